// Report definitions live in reports/*.json (title, query template, default
// grouping, chart specs). A definition names a `kind`, the code that knows
// how to assemble its output; adding a report of an existing kind is adding
// files to reports/ and queries/ only.
import { listInputDir, readInputText } from '../core/inputs.js';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { baseChartData } from './charts.js';
import { compareReport } from './compare.js';
import { blocksReport, type BlocksOptions } from '../live/blocks-report.js';
import { isGroupKey } from './groups.js';
import { monthlyReport } from './monthly.js';
import { summaryReport } from './summary.js';
import { summaryDatasets, type ReportParams } from './summary-rows.js';
import { packageRoot } from '../core/package-root.js';
import { useSlotsFor } from './slots.js';
import { checkModels } from './filters.js';
import type { ReportDefinition, ReportOutput } from './output.js';

export type { ReportDefinition, ReportOutput };

/** Marks a report as made from generated sample data: `"demo": true` in its JSON, and the HTML says so. */
export function markDemo(out: ReportOutput): void {
  out.demo = true;
  out.json.demo = true;
}

export function loadDefinitions(): ReportDefinition[] {
  const dir = join(packageRoot(), 'reports');
  // Read through core/inputs.ts: the report memo keys on these files.
  return listInputDir(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const d = JSON.parse(readInputText(join(dir, f))) as ReportDefinition;
      for (const k of d.default_by) if (!isGroupKey(k)) throw new Error(`${f}: unknown default_by key ${k}`);
      return d;
    });
}

export function findDefinition(name: string): ReportDefinition | undefined {
  return loadDefinitions().find((d) => d.name === name);
}

/** `live`: what the blocks report needs besides the common options (src/live/blocks-report.ts). */
export async function runReport(
  conn: DuckDBConnection,
  def: ReportDefinition,
  p: ReportParams,
  warnings: string[],
  live?: BlocksOptions,
): Promise<ReportOutput> {
  await checkModels(conn, p.models ?? []);
  // Reports that cut local days read slots the zone does not cut (blocks cut UTC hours).
  if (def.kind !== 'blocks') await useSlotsFor(conn, p.tz);
  switch (def.kind) {
    case 'summary': {
      const { report: r } = await summaryReport(conn, p, warnings);
      const charts = p.charts === false ? undefined : await baseChartData(conn, p);
      return {
        definition: def,
        json: r as unknown as Record<string, unknown>,
        datasets: summaryDatasets(def.title, p, r, live?.harnessGiven === true),
        warnings: r.warnings,
        charts,
      };
    }
    case 'monthly':
      return monthlyReport(conn, def, p, warnings);
    case 'compare':
      return compareReport(conn, def, p, warnings);
    case 'blocks':
      return blocksReport(conn, def, p, warnings, live ?? { harnessGiven: false, now: Date.now() });
    default:
      return def.kind satisfies never;
  }
}
