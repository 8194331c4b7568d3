// The summary report from its grouped template rows, without the store: the
// shapes of the binding JSON contract, and the pure steps from raw rows to
// the report and its tables (rows from DuckDB).
import { e10ToUsd } from '../core/money.js';
import type { HarnessId } from '../core/types.js';
import { GRAIN_COLUMNS, keyColumns, USAGE_METRIC_COLUMNS, type Dataset } from '../render/columns.js';
import type { GroupKey } from './groups.js';
import { periodLabel } from './period.js';
import { sortRows, type SortKey } from './sort.js';
import { grainNote, unpricedNote } from '../render/cells.js';
import { sessionColumns } from './session-columns.js';

export type CostMode = 'auto' | 'computed' | 'recorded';
/**
 * computed / recorded: every response priced that way; mixed: every response
 * priced, some recorded and some computed; partial: some responses priced and
 * some not (the cost is the priced part); none: no response priced.
 */
export type CostSource = 'computed' | 'recorded' | 'mixed' | 'partial' | 'none';

export interface ReportParams {
  since: string;
  until: string;
  tz: string;
  by: GroupKey[];
  harnesses: HarnessId[];
  project: string;
  /** --model: exact model ids (absent or [] = any; report/filters.ts). */
  models?: string[];
  costMode: CostMode;
  /** Row order (--sort); default: time keys chronologically, others by cost. */
  sort?: SortKey;
  /** Build the chart data sets too (only the HTML renderer draws them; default true). */
  charts?: boolean;
  /** report compare --all: every row in the tables, those with too few prompts to compare included. */
  all?: boolean;
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
  /** Requests of the responses without a cost (under --cost): not in cost_usd. */
  unpriced_requests: number;
  /** Their tokens (input + cache read + cache write + output). */
  unpriced_tokens: number;
}

/**
 * Of a row's figures, those of rows made from session totals (grain
 * `session` or `snapshot`, core/types.ts GRAINS): placed at a session's last
 * activity, not response by response. 0 (and a null cost) when none.
 */
export interface GrainFields {
  session_grain_requests: number;
  session_grain_tokens: number;
  session_grain_cost_usd: number | null;
}

export const GRAIN_FIELDS = [
  'session_grain_requests',
  'session_grain_tokens',
  'session_grain_cost_usd',
] as const satisfies readonly (keyof GrainFields)[];

/** The grain fields of one summary template row. */
export function grainFieldsOf(r: TemplateRow): GrainFields {
  return {
    session_grain_requests: num(r.session_grain_requests),
    session_grain_tokens: num(r.session_grain_tokens),
    session_grain_cost_usd: e10ToUsd((r.session_grain_cost_e10 as string | null) ?? null),
  };
}

/** The parameters every report template takes, from the report's. */
export function templateValues(p: ReportParams) {
  return {
    since: p.since,
    until: p.until,
    tz: p.tz,
    harnesses: p.harnesses,
    project: p.project,
    models: p.models ?? [],
  };
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
  'unpriced_requests',
  'unpriced_tokens',
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
  totals: Metrics & GrainFields;
  context?: ContextEntry[];
  warnings: string[];
}

/** One row of queries/summary.sql: the group's key values, then its sums (integers as strings or numbers, e10 costs). */
export type TemplateRow = Record<string, unknown>;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export function costSource(usageEvents: number, priced: number, recorded: number): CostSource {
  if (priced === 0) return 'none';
  if (priced < usageEvents) return 'partial';
  if (recorded === priced) return 'recorded';
  if (recorded === 0) return 'computed';
  return 'mixed';
}

/** Metric fields of one template row, in contract order and types. */
export function metricsOf(r: TemplateRow): Metrics {
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
    unpriced_requests: num(r.unpriced_requests),
    unpriced_tokens: num(r.unpriced_tokens),
  };
}

/** The summary template's integer sums: added exactly (BigInt) when rows are combined. */
export const ADDITIVE_COUNTS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
  'usage_events',
  'priced_events',
  'recorded_events',
  'unpriced_requests',
  'unpriced_tokens',
  'session_grain_requests',
  'session_grain_tokens',
] as const;
/** Its cost sums: NULL while nothing in the group has a cost. */
export const ADDITIVE_COSTS = ['cost_e10', 'computed_cost_e10', 'recorded_cost_e10', 'session_grain_cost_e10'] as const;

/** The summary template's row for no grouping keys, from its grouped rows (null costs stay null when no row has one). */
export function sumTemplateRows(rows: TemplateRow[]): TemplateRow {
  const out: TemplateRow = {};
  for (const k of ADDITIVE_COUNTS)
    out[k] = rows.reduce((n, r) => n + BigInt((r[k] as string | number | null) ?? 0), 0n).toString();
  for (const k of ADDITIVE_COSTS) {
    const present = rows.filter((r) => r[k] !== null && r[k] !== undefined);
    out[k] = present.length ? present.reduce((n, r) => n + BigInt(r[k] as string | number), 0n).toString() : null;
  }
  return out;
}

/**
 * The report from the template's rows. `estimates` (with --by session):
 * Claude Code's own running estimate per session (cost-state), shown beside,
 * never added to, the per-response costs.
 */
export function summaryFromRows(
  p: ReportParams,
  raw: TemplateRow[],
  estimates: Map<string, number> | null,
  context: ContextEntry[],
  warnings: string[],
): SummaryReport {
  // Every metric the totals need is additive over the rows, so they are summed
  // here (exactly: integers, costs as BigInt 1e-10 USD) instead of evaluating
  // the dedupe window over every event a second time.
  const tot = sumTemplateRows(raw);
  // Context-only groups (Cursor chats, no billed usage) are zero rows here:
  // they are listed in their own context section, never as usage.
  const billed = raw.filter((r) => num(r.usage_events) > 0);
  const rows = sortRows(
    billed.map((r) => {
      const row: Row = {};
      for (const k of p.by) row[k] = (r[k] as string | null) ?? null;
      Object.assign(row, metricsOf(r), grainFieldsOf(r));
      if (estimates) row.session_estimate_usd = sessionEstimate(estimates, r);
      return row;
    }),
    p.by,
    p.sort,
  );
  const report: SummaryReport = {
    since: p.since,
    until: p.until,
    timezone: p.tz,
    group_by: p.by,
    rows,
    totals: { ...metricsOf(tot), ...grainFieldsOf(tot) },
    warnings,
  };
  if (context.length) report.context = context;
  return report;
}

/** Keys of the estimates map: a session in its harness, and the session in any harness. */
export const estimateKeys = (harness: string, session: string) => [`${harness}\u0000${session}`, `*\u0000${session}`];

/** The estimate shown beside a row (its harness when the row has one, else the session's in any harness). */
export function sessionEstimate(estimates: Map<string, number>, r: TemplateRow): number | null {
  const [own, any] = estimateKeys((r.harness as string | undefined) ?? '', r.session as string);
  return estimates.get(own!) ?? estimates.get(any!) ?? null;
}

const CONTEXT_NOTE =
  'Cursor does not record billed usage locally: these are context-window occupancy figures at checkpoints, not billed tokens, and are not in any total above.';

/**
 * The tables of a summary report: usage per group, then Cursor's context
 * figures when there are any and they were asked for (`showContext`: Cursor
 * named by --harness, or --by harness; also when nothing was billed, so that
 * a Cursor-only report is not empty). They are not billing data: JSON keeps
 * them in `context` always.
 */
export function summaryDatasets(title: string, p: ReportParams, r: SummaryReport, showContext = true): Dataset[] {
  const notes = [
    unpricedNote(r.totals.unpriced_requests, r.totals.unpriced_tokens),
    grainNote(r.totals.session_grain_tokens),
  ].filter((n): n is string => n !== null);
  const columns = [
    ...(p.by.includes('session') ? sessionColumns(p.by) : [...keyColumns(p.by), ...USAGE_METRIC_COLUMNS]),
    ...GRAIN_COLUMNS,
  ];
  const datasets: Dataset[] = [
    { title: `${title} ${periodLabel(p.since, p.until, p.tz)}`, columns, rows: r.rows, totals: { ...r.totals }, notes },
  ];
  if (r.context?.length && (showContext || p.by.includes('harness') || !r.rows.length)) {
    datasets.push({
      title: 'Cursor context',
      columns: [
        { field: 'session', label: 'Chat', kind: 'key', narrow: true, keep: 'ends' },
        { field: 'project', label: 'Project', kind: 'key', narrow: true },
        { field: 'model', label: 'Model', kind: 'text' },
        { field: 'turns', label: 'Turns', kind: 'int', narrow: true },
        { field: 'latest_used_tokens', label: 'Latest', kind: 'int', narrow: true },
        { field: 'max_tokens', label: 'Max', kind: 'int', narrow: true },
        { field: 'peak_used_tokens', label: 'Peak', kind: 'int', narrow: true },
        { field: 'last_ts', label: 'Last activity', kind: 'time' },
      ],
      rows: r.context.map((c) => ({ ...c })),
      notes: [CONTEXT_NOTE],
      timezone: p.tz,
    });
  }
  return datasets;
}
