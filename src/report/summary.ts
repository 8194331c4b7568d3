// The usage summary report: rows per --by keys + totals + context, in the
// binding JSON contract's shape.
import type { DuckDBConnection } from '@duckdb/node-api';
import { e10ToUsd } from '../core/money.js';
import {
  estimateKeys,
  summaryFromRows,
  templateValues,
  type ContextEntry,
  type ReportParams,
  type SummaryReport,
  type TemplateRow,
} from './summary-rows.js';
import { keysSlot } from './groups.js';
import { loadTemplate, runTemplate } from './template.js';
import { applySessionView, sessionFacts } from './session-view.js';

export type { ContextEntry, CostMode, CostSource, Metrics, ReportParams, Row, SummaryReport } from './summary-rows.js';
export { costSource, METRIC_FIELDS, metricsOf, sumTemplateRows, templateValues } from './summary-rows.js';

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The summary report, the template's own rows and (with --by session) the session estimates. */
export async function summaryReport(
  conn: DuckDBConnection,
  p: ReportParams,
  warnings: string[],
): Promise<{ report: SummaryReport; raw: TemplateRow[]; estimates: Map<string, number> | null }> {
  const t = loadTemplate('summary');
  const values = { ...templateValues(p), cost_mode: p.costMode };
  const raw = await runTemplate(conn, t, values, { keys: keysSlot(p.by) });
  const estimates = p.by.includes('session') ? await sessionEstimates(conn) : null;
  const report = summaryFromRows(p, raw, estimates, await contextEntries(conn, p), warnings);
  if (p.by.includes('session')) applySessionView(report, await sessionFacts(conn, p));
  return { report, raw, estimates };
}

async function sessionEstimates(conn: DuckDBConnection): Promise<Map<string, number>> {
  const r = await conn.runAndReadAll(`SELECT harness, session_id, recorded_cost_e10 FROM session_estimate_latest`);
  const m = new Map<string, number>();
  for (const x of r.getRowObjectsJson() as any[]) {
    const usd = e10ToUsd(x.recorded_cost_e10)!;
    for (const k of estimateKeys(x.harness, x.session_id)) m.set(k, usd);
  }
  return m;
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

export async function contextEntries(conn: DuckDBConnection, p: ReportParams): Promise<ContextEntry[]> {
  const rows = await runTemplate(conn, loadTemplate('context'), templateValues(p));
  return rows.map((r) => ({
    harness: String(r.harness),
    session: String(r.session),
    project: (r.project as string | null) ?? null,
    model: (r.model as string | null) ?? null,
    turns: num(r.turns),
    latest_used_tokens: numOrNull(r.latest_used_tokens),
    max_tokens: numOrNull(r.max_tokens),
    peak_used_tokens: numOrNull(r.peak_used_tokens),
    first_ts: iso(r.first_ts_ms),
    last_ts: iso(r.last_ts_ms),
  }));
}
