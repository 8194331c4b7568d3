// What a report definition (reports/*.json) says, and what a report of any
// kind produces for the renderers: the types every report kind and renderer
// share, apart from the registry of definitions (definitions.ts) that loads
// the kinds.
import type { Dataset } from '../render/columns.js';
import type { ChartData, ChartDef } from './charts.js';
import type { GroupKey } from './groups.js';
import type { ReadsFrom } from './period.js';

export interface ReportDefinition {
  name: string;
  kind: 'summary' | 'monthly' | 'compare' | 'blocks';
  title: string;
  description: string;
  query: string;
  /** Further templates a kind runs, by role (e.g. monthly: top_sessions → monthly_sessions). */
  queries?: Record<string, string>;
  /** Kind-specific numbers (e.g. monthly: top_sessions, top_days). */
  options?: Record<string, number>;
  default_by: GroupKey[];
  /** The first day its queries read (default: the --since day); see firstDayRead. */
  reads_from?: ReadsFrom;
  /** vega-lite specs (data is filled in by the HTML renderer). */
  charts: ChartDef[];
}

/** What a report produces, for every renderer. */
export interface ReportOutput {
  definition: ReportDefinition;
  /** The JSON document (binding contract for the summary). */
  json: Record<string, unknown>;
  /** Tables for terminal, CSV (the first one) and HTML. */
  datasets: Dataset[];
  warnings: string[];
  /** Named data sets the definition's charts draw (HTML only). */
  charts?: ChartData;
  /** Made from generated sample data (--demo): said in the JSON, the HTML title and footer. */
  demo?: boolean;
}
