// The usage summary report: rows per --by keys + totals + context, in the
// binding JSON contract's shape.
import type { DuckDBConnection } from '@duckdb/node-api';
import { e10ToUsd } from '../core/money.js';
import type { HarnessId } from '../core/types.js';
import { keysSlot, type GroupKey } from './groups.js';
import { loadTemplate, runTemplate } from './template.js';

export type CostMode = 'auto' | 'computed' | 'recorded';
export type CostSource = 'computed' | 'recorded' | 'mixed' | 'none';

export interface ReportParams {
  since: string;
  until: string;
  tz: string;
  by: GroupKey[];
  harnesses: HarnessId[];
  project: string;
  costMode: CostMode;
  /** Build the chart data sets too (only the HTML renderer draws them; default true). */
  charts?: boolean;
}

export interface Metrics {
  requests: number;
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  cost_usd: number | null;
  cost_source: CostSource;
  computed_cost_usd: number | null;
  recorded_cost_usd: number | null;
}

export const METRIC_FIELDS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
  'cost_usd',
  'cost_source',
  'computed_cost_usd',
  'recorded_cost_usd',
] as const satisfies readonly (keyof Metrics)[];

export type Row = Record<string, string | number | null>;

export interface ContextEntry {
  harness: string;
  session: string;
  project: string | null;
  model: string | null;
  turns: number;
  latest_used_tokens: number | null;
  max_tokens: number | null;
  peak_used_tokens: number | null;
  first_ts: string | null;
  last_ts: string | null;
}

export interface SummaryReport {
  since: string;
  until: string;
  timezone: string;
  group_by: GroupKey[];
  rows: Row[];
  totals: Metrics;
  context?: ContextEntry[];
  warnings: string[];
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function costSource(usageEvents: number, priced: number, recorded: number): CostSource {
  if (priced === 0) return 'none';
  if (priced < usageEvents) return 'mixed';
  if (recorded === priced) return 'recorded';
  if (recorded === 0) return 'computed';
  return 'mixed';
}

/** Metric fields of one template row, in contract order and types. */
export function metricsOf(r: Record<string, unknown>): Metrics {
  return {
    requests: num(r.requests),
    input_tokens: num(r.input_tokens),
    cache_read_tokens: num(r.cache_read_tokens),
    cache_write_tokens: num(r.cache_write_tokens),
    output_tokens: num(r.output_tokens),
    reasoning_tokens: num(r.reasoning_tokens),
    total_tokens: num(r.total_tokens),
    cost_usd: e10ToUsd(r.cost_e10 as string | null),
    cost_source: costSource(num(r.usage_events), num(r.priced_events), num(r.recorded_events)),
    computed_cost_usd: e10ToUsd(r.computed_cost_e10 as string | null),
    recorded_cost_usd: e10ToUsd(r.recorded_cost_e10 as string | null),
  };
}

export function templateValues(p: ReportParams) {
  return { since: p.since, until: p.until, tz: p.tz, harnesses: p.harnesses, project: p.project };
}

export async function summaryReport(conn: DuckDBConnection, p: ReportParams, warnings: string[]): Promise<SummaryReport> {
  const t = loadTemplate('summary');
  const values = { ...templateValues(p), cost_mode: p.costMode };
  const raw = await runTemplate(conn, t, values, { keys: keysSlot(p.by) });
  // Every metric the totals need is additive over the rows, so they are summed
  // here (exactly: integers, costs as BigInt 1e-10 USD) instead of evaluating
  // the dedupe window over every event a second time.
  const tot = sumTemplateRows(raw);
  const estimates = p.by.includes('session') ? await sessionEstimates(conn) : null;
  const rows = raw.map((r) => {
    const row: Row = {};
    for (const k of p.by) row[k] = (r[k] as string | null) ?? null;
    Object.assign(row, metricsOf(r));
    if (estimates) {
      // Claude Code's own running estimate for the session (cost-state): shown
      // beside, never added to, the per-response costs.
      row.session_estimate_usd = estimates.get(`${r.harness ?? ''}\u0000${r.session}`) ?? estimates.get(`*\u0000${r.session}`) ?? null;
    }
    return row;
  });
  const report: SummaryReport = {
    since: p.since,
    until: p.until,
    timezone: p.tz,
    group_by: p.by,
    rows,
    totals: metricsOf(tot),
    warnings,
  };
  const ctx = await contextEntries(conn, p);
  if (ctx.length) report.context = ctx;
  return report;
}

async function sessionEstimates(conn: DuckDBConnection): Promise<Map<string, number>> {
  const r = await conn.runAndReadAll(`SELECT harness, session_id, recorded_cost_e10 FROM session_estimate_latest`);
  const m = new Map<string, number>();
  for (const x of r.getRowObjectsJson() as any[]) {
    const usd = e10ToUsd(x.recorded_cost_e10)!;
    m.set(`${x.harness}\u0000${x.session_id}`, usd);
    m.set(`*\u0000${x.session_id}`, usd);
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

const ADDITIVE_COUNTS = ['requests', 'input_tokens', 'cache_read_tokens', 'cache_write_tokens', 'output_tokens', 'reasoning_tokens', 'total_tokens', 'usage_events', 'priced_events', 'recorded_events'];
const ADDITIVE_COSTS = ['cost_e10', 'computed_cost_e10', 'recorded_cost_e10'];

/** The summary template's row for no grouping keys, from its grouped rows (null costs stay null when no row has one). */
export function sumTemplateRows(rows: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ADDITIVE_COUNTS) out[k] = rows.reduce((n, r) => n + BigInt((r[k] as string | number | null) ?? 0), 0n).toString();
  for (const k of ADDITIVE_COSTS) {
    const present = rows.filter((r) => r[k] !== null && r[k] !== undefined);
    out[k] = present.length ? present.reduce((n, r) => n + BigInt(r[k] as string | number), 0n).toString() : null;
  }
  return out;
}
