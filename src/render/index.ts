// One entry point from a report's output to text in the requested format.
import type { ReportOutput } from '../report/output.js';
import type { Dataset } from './columns.js';
import { renderCsv } from './csv.js';
import { renderJson } from './json.js';
import { renderTable, type TableOptions } from './table.js';

export const FORMATS = ['table', 'json', 'csv', 'html'] as const;
export type Format = (typeof FORMATS)[number];

export type HtmlRenderer = (out: ReportOutput, opts?: { home?: string }) => string;
let html: HtmlRenderer | null = null;
/** The HTML renderer registers itself (it is heavy: vega bundles). */
export function setHtmlRenderer(r: HtmlRenderer): void {
  html = r;
}

/** The text formats, from the report's JSON document and tables alone. */
export function renderText(
  format: Exclude<Format, 'html'>,
  json: unknown,
  datasets: Dataset[],
  table: TableOptions,
): string {
  switch (format) {
    case 'json':
      return renderJson(json);
    case 'csv':
      return renderCsv(datasets.find((d) => d.csv !== false) ?? datasets[0]!);
    case 'table':
      return datasets.map((d) => renderTable(d, table)).join('\n');
    default:
      return format satisfies never;
  }
}

export function renderOutput(format: Format, out: ReportOutput, table: TableOptions): string {
  switch (format) {
    case 'json':
    case 'csv':
    case 'table':
      return renderText(format, out.json, out.datasets, table);
    case 'html':
      if (!html) throw new Error('the HTML renderer is not available in this build');
      return html(out, { home: table.home });
    default:
      return format satisfies never;
  }
}
