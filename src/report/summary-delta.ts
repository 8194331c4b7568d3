// A remembered summary report brought up to date with new responses, without
// the store: the delta path (cli/delta.ts) adds the responses read from a few
// appended lines to the report's grouped rows, the way queries/summary.sql
// would have counted them, and renders the result with the same code as the
// full path. It only adds: anything it cannot do exactly (a response outside
// the remembered day table, an unpriced model that would change the
// warnings, a new session row whose estimate it does not know) gives a
// reason, and the caller takes the full path.
import { usdToE10 } from '../core/money.js';
import type { UsageEvent } from '../core/types.js';
import { renderText } from '../render/index.js';
import type { GroupKey } from './groups.js';
import { ADDITIVE_COSTS, ADDITIVE_COUNTS, summaryDatasets, summaryFromRows, type ContextEntry, type ReportParams, type TemplateRow } from './summary-rows.js';

/** One local calendar day of the report's zone (queries/local_days.sql). */
export interface LocalDay {
  day: string;
  week: string;
  month: string;
  /** UTC epoch ms of its first instant. */
  start: number;
}

/** What a summary rendering is remembered with, so that new responses can be added to it. */
export interface SummarySnapshot {
  v: 1;
  title: string;
  params: ReportParams;
  format: 'table' | 'json' | 'csv';
  /** The template's rows (queries/summary.sql), keys then sums. */
  rows: TemplateRow[];
  context: ContextEntry[];
  warnings: string[];
  /** Consecutive local days covering since - 1 .. until + 2: every instant between the first start and the last start has its day here. */
  days: LocalDay[];
  /** Fingerprint of the prices the rows were costed with (pricing/cache.ts). */
  pricer: string;
  table: { width: number; color: boolean };
}

/** Group keys the delta path can compute for a response (machine and session rows need the store). */
export const DELTA_KEYS: readonly GroupKey[] = ['day', 'week', 'month', 'model', 'project', 'harness'];

/** A response and its costs: computed (null: no price) and recorded by the harness (null: none), in 1e-10 USD. */
export interface PricedEvent {
  event: UsageEvent;
  computed: bigint | null;
  recorded: bigint | null;
}

export function pricedEvent(event: UsageEvent, computedE10: bigint | null): PricedEvent {
  return {
    event,
    computed: computedE10,
    recorded: event.recorded_cost_usd === null ? null : usdToE10(event.recorded_cost_usd),
  };
}

function dayOf(days: LocalDay[], ts: number): LocalDay | 'before' | 'after' {
  if (!days.length || ts < days[0]!.start) return 'before';
  if (ts >= days[days.length - 1]!.start) return 'after';
  let lo = 0;
  let hi = days.length - 1;
  // The last day whose start is <= ts.
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (days[mid]!.start <= ts) lo = mid;
    else hi = mid;
  }
  return days[lo]!;
}

/** DuckDB orders VARCHAR by their UTF-8 bytes; ORDER BY ALL puts NULLs last. */
function compareKeys(a: (string | null)[], b: (string | null)[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    const c = Buffer.compare(Buffer.from(x, 'utf8'), Buffer.from(y, 'utf8'));
    if (c !== 0) return c;
  }
  return 0;
}

const big = (v: unknown): bigint => (v === null || v === undefined ? 0n : BigInt(v as string | number));

/**
 * The snapshot's rows with `events` added (as summary.sql's filters, groups
 * and sums would have them), or the reason it cannot be done exactly.
 */
export function addEvents(s: SummarySnapshot, events: PricedEvent[]): { rows: TemplateRow[] } | { fallback: string } {
  const p = s.params;
  if (p.by.some((k) => !DELTA_KEYS.includes(k))) return { fallback: `--by ${p.by.join(',')}` };
  const rows = s.rows.map((r) => ({ ...r }));
  const tuple = (r: TemplateRow) => p.by.map((k) => (r[k] as string | null) ?? null);
  const known = rows.length;
  const index = new Map(rows.map((r, i) => [JSON.stringify(tuple(r)), i]));
  for (const { event: e, computed, recorded } of events) {
    if (!p.harnesses.includes(e.harness)) continue;
    if (p.project !== '' && !(e.project ?? '').includes(p.project)) continue;
    const d = dayOf(s.days, e.ts);
    if (d === 'before' || d === 'after') {
      // The table covers a day either side of the range: outside it, outside the range.
      continue;
    }
    if (d.day < p.since || d.day > p.until) continue;
    const cost = p.costMode === 'computed' ? computed : p.costMode === 'recorded' ? recorded : recorded ?? computed;
    const usesRecorded = p.costMode === 'recorded' || (p.costMode === 'auto' && recorded !== null);
    // An unpriced response in range adds a warning naming its model (cli/pricing.ts unpricedModelWarnings).
    if (p.costMode !== 'recorded' && e.requests > 0 && computed === null && (p.costMode === 'computed' || recorded === null)) {
      return { fallback: `no price for ${e.harness} model ${e.model ?? '(none)'}` };
    }
    const keys: Record<GroupKey, string | null> = {
      day: d.day,
      week: d.week,
      month: d.month,
      model: e.model ?? 'unknown',
      project: e.project ?? 'unknown',
      harness: e.harness,
      session: e.session_id,
      machine: null,
    };
    const t = p.by.map((k) => keys[k]);
    const id = JSON.stringify(t);
    let i = index.get(id);
    if (i === undefined) {
      const row: TemplateRow = {};
      p.by.forEach((k, j) => (row[k] = t[j]!));
      for (const k of ADDITIVE_COUNTS) row[k] = '0';
      for (const k of ADDITIVE_COSTS) row[k] = null;
      i = rows.length;
      rows.push(row);
      index.set(id, i);
    }
    const r = rows[i]!;
    const add = (k: string, n: number | bigint) => (r[k] = (big(r[k]) + BigInt(n)).toString());
    add('requests', e.requests);
    add('input_tokens', e.input_tokens);
    add('cache_read_tokens', e.cache_read_tokens);
    add('cache_write_tokens', e.cache_write_tokens);
    add('cache_write_1h_tokens', e.cache_write_1h_tokens ?? 0);
    add('output_tokens', e.output_tokens);
    add('reasoning_tokens', e.reasoning_tokens);
    add('total_tokens', e.input_tokens + e.cache_read_tokens + e.cache_write_tokens + e.output_tokens);
    add('usage_events', 1);
    if (cost !== null) add('priced_events', 1);
    if (cost !== null && usesRecorded) add('recorded_events', 1);
    const addCost = (k: string, v: bigint | null) => {
      if (v !== null) r[k] = (r[k] === null || r[k] === undefined ? v : big(r[k]) + v).toString();
    };
    addCost('cost_e10', cost);
    addCost('computed_cost_e10', computed);
    addCost('recorded_cost_e10', recorded);
  }
  if (rows.length > known) {
    // New groups go where ORDER BY ALL puts them, provided the remembered rows
    // show the same order (else the order here is not DuckDB's).
    for (let i = 1; i < known; i++) if (compareKeys(tuple(rows[i - 1]!), tuple(rows[i]!)) > 0) return { fallback: 'row order differs from the store\'s' };
    rows.sort((a, b) => compareKeys(tuple(a), tuple(b)));
  }
  return { rows };
}

/** The text the full path prints for these rows (same builders, same renderers). */
export function renderSnapshot(s: SummarySnapshot, rows: TemplateRow[]): string {
  const report = summaryFromRows(s.params, rows, null, s.context, s.warnings);
  return renderText(s.format, report, summaryDatasets(s.title, s.params, report), s.table);
}
