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
  /**
   * With --by session: the sessions of the rows, and every session estimate
   * the store held for them (Claude Code cost-state), so rows keep theirs and
   * a new row of a known session gets its own. A row of another session
   * takes the full path.
   */
  estimates?: { sessions: string[]; entries: [string, number][] };
  table: { width: number; color: boolean };
}

/** Group keys the delta path can compute for a response (machine rows need the store). */
export const DELTA_KEYS: readonly GroupKey[] = ['day', 'week', 'month', 'model', 'project', 'harness', 'session'];

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
 * Whether `a` is the row billed_events keeps over `b` for the same dedupe key
 * (src/store/schema.ts): the largest usage, then the lower dedupe rank, then
 * the first source file and line.
 */
export function billedOver(a: UsageEvent, b: UsageEvent): boolean {
  const ta = a.input_tokens + a.cache_read_tokens + a.cache_write_tokens + a.output_tokens;
  const tb = b.input_tokens + b.cache_read_tokens + b.cache_write_tokens + b.output_tokens;
  if (ta !== tb) return ta > tb;
  if (a.dedupe_rank !== b.dedupe_rank) return a.dedupe_rank < b.dedupe_rank;
  if (a.source_file !== b.source_file) return Buffer.compare(Buffer.from(a.source_file), Buffer.from(b.source_file)) < 0;
  if (a.source_line === b.source_line) return false;
  return b.source_line === null || (a.source_line !== null && a.source_line < b.source_line);
}

/**
 * What new events change in a remembered report, given every event the
 * journal holds for the same keys: `counted` ones are already in its rows
 * (the journal's records up to the state it was rendered at), the rest and
 * `fresh` ones are not. Per dedupe key, the billed event among all of them
 * is added when none was counted, or swapped in for the one that was.
 */
export function changesFor<E extends { event: UsageEvent }>(counted: E[], uncounted: E[]): { adds: E[]; swaps: { from: E; to: E }[] } {
  const byKey = new Map<string, { item: E; counted: boolean }[]>();
  const push = (item: E, isCounted: boolean) => {
    const k = `${item.event.harness}\u0000${item.event.dedupe_key}`;
    const list = byKey.get(k);
    if (list) list.push({ item, counted: isCounted });
    else byKey.set(k, [{ item, counted: isCounted }]);
  };
  for (const c of counted) push(c, true);
  for (const u of uncounted) push(u, false);
  const best = (xs: { item: E; counted: boolean }[]) => xs.reduce<{ item: E; counted: boolean } | null>((w, x) => (w === null || billedOver(x.item.event, w.item.event) ? x : w), null);
  const adds: E[] = [];
  const swaps: { from: E; to: E }[] = [];
  for (const list of byKey.values()) {
    const all = best(list)!;
    if (all.counted) continue;
    const before = best(list.filter((x) => x.counted));
    if (before) swaps.push({ from: before.item, to: all.item });
    else adds.push(all.item);
  }
  return { adds, swaps };
}

/**
 * The snapshot's rows with `adds` added and each swap's `from` replaced by its
 * `to` (as summary.sql's filters, groups and sums would have them), or the
 * reason it cannot be done exactly.
 */
export function addEvents(s: SummarySnapshot, adds: PricedEvent[], swaps: { from: PricedEvent; to: PricedEvent }[] = []): { rows: TemplateRow[] } | { fallback: string } {
  const p = s.params;
  if (p.by.some((k) => !DELTA_KEYS.includes(k))) return { fallback: `--by ${p.by.join(',')}` };
  const rows = s.rows.map((r) => ({ ...r }));
  const tuple = (r: TemplateRow) => p.by.map((k) => (r[k] as string | null) ?? null);
  const known = rows.length;
  const index = new Map(rows.map((r, i) => [JSON.stringify(tuple(r)), i]));

  /** Where a response goes in this report: its group's id, or null when the filters leave it out. */
  const place = (e: UsageEvent): { id: string; keys: (string | null)[] } | null => {
    if (!p.harnesses.includes(e.harness)) return null;
    if (p.project !== '' && !(e.project ?? '').includes(p.project)) return null;
    const d = dayOf(s.days, e.ts);
    // The table covers a day either side of the range: outside it, outside the range.
    if (d === 'before' || d === 'after' || d.day < p.since || d.day > p.until) return null;
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
    return { id: JSON.stringify(t), keys: t };
  };
  const costOf = ({ computed, recorded }: PricedEvent) => (p.costMode === 'computed' ? computed : p.costMode === 'recorded' ? recorded : recorded ?? computed);
  // An unpriced response in range adds a warning naming its model, with counts (cli/pricing.ts unpricedModelWarnings).
  const unpriced = ({ event: e, computed, recorded }: PricedEvent) =>
    p.costMode !== 'recorded' && e.requests > 0 && computed === null && (p.costMode === 'computed' || recorded === null);
  const knownSessions = p.by.includes('session') ? new Set(s.estimates?.sessions ?? []) : null;
  const rowAt = (where: { id: string; keys: (string | null)[] }): TemplateRow | null => {
    let i = index.get(where.id);
    if (i === undefined) {
      if (knownSessions && !knownSessions.has(where.keys[p.by.indexOf('session')]!)) return null;
      const row: TemplateRow = {};
      p.by.forEach((k, j) => (row[k] = where.keys[j]!));
      for (const k of ADDITIVE_COUNTS) row[k] = '0';
      for (const k of ADDITIVE_COSTS) row[k] = null;
      i = rows.length;
      rows.push(row);
      index.set(where.id, i);
    }
    return rows[i]!;
  };
  /** Adds one response's sums to its row (sign -1: takes them out again; counts then stay, see swaps). */
  const addSums = (r: TemplateRow, pe: PricedEvent, sign: 1 | -1) => {
    const e = pe.event;
    const add = (k: string, n: number | bigint) => (r[k] = (big(r[k]) + BigInt(sign) * BigInt(n)).toString());
    add('input_tokens', e.input_tokens);
    add('cache_read_tokens', e.cache_read_tokens);
    add('cache_write_tokens', e.cache_write_tokens);
    add('cache_write_1h_tokens', e.cache_write_1h_tokens ?? 0);
    add('output_tokens', e.output_tokens);
    add('reasoning_tokens', e.reasoning_tokens);
    add('total_tokens', e.input_tokens + e.cache_read_tokens + e.cache_write_tokens + e.output_tokens);
    const addCost = (k: string, v: bigint | null) => {
      if (v !== null) r[k] = (r[k] === null || r[k] === undefined ? BigInt(sign) * v : big(r[k]) + BigInt(sign) * v).toString();
    };
    addCost('cost_e10', costOf(pe));
    addCost('computed_cost_e10', pe.computed);
    addCost('recorded_cost_e10', pe.recorded);
  };

  for (const pe of adds) {
    const where = place(pe.event);
    if (!where) continue;
    if (unpriced(pe)) return { fallback: `no price for ${pe.event.harness} model ${pe.event.model ?? '(none)'}` };
    const r = rowAt(where);
    if (!r) return { fallback: `a new session (${pe.event.session_id}): its estimate is in the store` };
    const add = (k: string, n: number) => (r[k] = (big(r[k]) + BigInt(n)).toString());
    add('requests', pe.event.requests);
    add('usage_events', 1);
    const cost = costOf(pe);
    const usesRecorded = p.costMode === 'recorded' || (p.costMode === 'auto' && pe.recorded !== null);
    if (cost !== null) add('priced_events', 1);
    if (cost !== null && usesRecorded) add('recorded_events', 1);
    addSums(r, pe, 1);
  }
  // A response seen before with less usage (an earlier split line of it, read
  // by an earlier delta run): its sums are replaced in place. Only where both
  // land in the same row with costs of the same kind, so every count and
  // every NULL of the row stays as it is.
  for (const { from, to } of swaps) {
    const a = place(from.event);
    const b = place(to.event);
    if (!a && !b) continue;
    if (!a || !b || a.id !== b.id) return { fallback: `a response seen before now falls in another group (${to.event.dedupe_key})` };
    if (unpriced(from) || unpriced(to)) return { fallback: `no price for ${to.event.harness} model ${to.event.model ?? '(none)'}` };
    if ((from.computed === null) !== (to.computed === null) || (from.recorded === null) !== (to.recorded === null) || from.event.requests !== to.event.requests) {
      return { fallback: `a response seen before changes how it is priced (${to.event.dedupe_key})` };
    }
    const r = rowAt(b)!; // the row of `from`, which is counted: it exists
    addSums(r, from, -1);
    addSums(r, to, 1);
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
  const estimates = s.params.by.includes('session') ? new Map(s.estimates?.entries ?? []) : null;
  const report = summaryFromRows(s.params, rows, estimates, s.context, s.warnings);
  return renderText(s.format, report, summaryDatasets(s.title, s.params, report), s.table);
}
