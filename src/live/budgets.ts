// Spend against the budgets of the config file (config.ts): per day, month
// and 5-hour block, optionally for one harness or one project. The one
// evaluation used by `statusline`, `watch`, `report` and `check`.
//
// - day / month: the calendar day or month (in the view's zone) so far;
//   block: the active block of each block family in view (a budget for one
//   harness: that harness's block).
// - spent: the cost of the priced responses (a partial sum says so through
//   `unpriced_requests`); null when it cannot be known (a month the live
//   snapshot does not reach back to).
// - projected by the period's end: day and month at the pace so far (spent /
//   time elapsed × the period's length), once an hour of the day, or a day of
//   the month, has gone by; a block at the block's burn rate (blocks.ts).
// - status: `over` at or above 100 %, `projected_over` when the projection
//   passes the budget, `warn` at or above 80 %, else `ok`.
import type { Block, LiveEvent } from './blocks.js';
import { activeFigures, unpricedRequestsOf } from './blocks.js';
import type { Budget, BudgetPeriod } from './config.js';
import type { BudgetFigure } from './statusline.js';
import { isoInZone, localDay, localDayStartMs, nextDay } from './time.js';
import type { LiveSnapshot } from './snapshot.js';

export const WARN_SHARE = 0.8;

/** What budgets are measured on. */
export interface SpendSource {
  now: number;
  tz: string;
  /** Cost (1e-10 USD, null when nothing priced) and unpriced requests of responses since `fromMs` matching the scope; null when not known. */
  spent(
    scope: { harness?: string; project?: string },
    fromMs: number,
  ): { cost_e10: bigint | null; unpriced_requests: number } | null;
  /** The active block of each block family. */
  activeBlocks: Block[];
}

export function monthStartDay(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

function nextMonthDay(day: string): string {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10);
}

/** The period's bounds (epoch ms) at `now` in `tz`. */
export function periodBounds(
  period: Exclude<BudgetPeriod, 'block'>,
  now: number,
  tz: string,
): { start: number; end: number } {
  const day = localDay(now, tz);
  if (period === 'day') return { start: localDayStartMs(day, tz), end: localDayStartMs(nextDay(day), tz) };
  const first = monthStartDay(day);
  return { start: localDayStartMs(first, tz), end: localDayStartMs(nextMonthDay(first), tz) };
}

const MIN_ELAPSED: Record<Exclude<BudgetPeriod, 'block'>, number> = { day: 3_600_000, month: 86_400_000 };
const usdOf = (e10: bigint | null) => (e10 === null ? null : Number(e10) / 1e10);
const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;

export type BudgetResult = BudgetFigure & {
  unpriced_requests: number;
  period_start: string | null;
  period_end: string | null;
};

function scopeName(b: Budget): string {
  return b.harness ? `harness ${b.harness}` : b.project ? `project ${b.project}` : 'all';
}

function status(limit: number, spent: number | null, projected: number | null): BudgetFigure['status'] {
  if (spent !== null && spent >= limit) return 'over';
  if (projected !== null && projected > limit) return 'projected_over';
  if (spent !== null && spent >= limit * WARN_SHARE) return 'warn';
  return 'ok';
}

const matches = (e: LiveEvent, b: Budget) =>
  (!b.harness || e.harness === b.harness) && (!b.project || (e.project ?? '').includes(b.project));

/** Every budget's figures (block budgets: one per active block in scope; none when no block is active). */
export function evaluateBudgets(budgets: readonly Budget[], src: SpendSource): BudgetResult[] {
  const out: BudgetResult[] = [];
  for (const b of budgets) {
    if (b.period === 'block') {
      for (const blk of src.activeBlocks.filter((x) => !b.harness || x.harness === b.harness)) {
        const events = blk.events.filter((e) => matches(e, b));
        let cost: bigint | null = null;
        let unpriced = 0;
        for (const e of events) {
          unpriced += unpricedRequestsOf(e);
          if (e.cost_e10 !== null) cost = (cost ?? 0n) + e.cost_e10;
        }
        const spent = usdOf(cost);
        const a = events.length
          ? activeFigures({ ...blk, events, recent: blk.recent?.filter((e) => matches(e, b)) }, src.now)
          : null;
        const projected = a?.projected_cost_usd ?? spent;
        out.push({
          scope: b.harness || b.project ? scopeName(b) : `block ${blk.harness}`,
          period: 'block',
          limit_usd: b.usd,
          spent_usd: spent === null ? (events.length ? null : 0) : round(spent, 4),
          projected_usd: projected === null ? null : round(projected, 4),
          share: spent === null ? (events.length ? null : 0) : round(spent / b.usd, 4),
          status: status(b.usd, spent, projected),
          unpriced_requests: unpriced,
          period_start: isoInZone(blk.start, src.tz),
          period_end: isoInZone(blk.end, src.tz),
        });
        if (!b.harness && !b.project) out[out.length - 1]!.scope = 'all';
      }
      continue;
    }
    const { start, end } = periodBounds(b.period, src.now, src.tz);
    const s = src.spent({ harness: b.harness, project: b.project }, start);
    const spent = s === null ? null : s.cost_e10 === null ? (s.unpriced_requests ? null : 0) : usdOf(s.cost_e10)!;
    const elapsed = src.now - start;
    const projected =
      spent === null ? null : elapsed >= MIN_ELAPSED[b.period] ? (spent / elapsed) * (end - start) : null;
    out.push({
      scope: scopeName(b),
      period: b.period,
      limit_usd: b.usd,
      spent_usd: spent === null ? null : round(spent, 4),
      projected_usd: projected === null ? null : round(projected, 4),
      share: spent === null ? null : round(spent / b.usd, 4),
      status: status(b.usd, spent, projected),
      unpriced_requests: s?.unpriced_requests ?? 0,
      period_start: isoInZone(start, src.tz),
      period_end: isoInZone(end, src.tz),
    });
  }
  return out;
}

/** Spend from a list of responses that covers everything since `coveredFrom` (a store query, or the snapshot's window). */
export function spendFromEvents(
  events: readonly LiveEvent[],
  coveredFrom: number,
  before?: (
    scope: { harness?: string; project?: string },
    fromMs: number,
  ) => { cost_e10: bigint | null; unpriced_requests: number } | null,
) {
  return (scope: { harness?: string; project?: string }, fromMs: number) => {
    let base: { cost_e10: bigint | null; unpriced_requests: number } | null = { cost_e10: null, unpriced_requests: 0 };
    if (fromMs < coveredFrom) {
      base = before ? before(scope, fromMs) : null;
      if (!base) return null;
    }
    let cost = base.cost_e10;
    let unpriced = base.unpriced_requests;
    const b = { ...scope } as Budget;
    for (const e of events) {
      if (e.ts < Math.max(fromMs, coveredFrom) || !matches(e, b)) continue;
      unpriced += unpricedRequestsOf(e);
      if (e.cost_e10 !== null) cost = (cost ?? 0n) + e.cost_e10;
    }
    return { cost_e10: cost, unpriced_requests: unpriced };
  };
}

/** Spend as the live snapshot knows it: its window (appends merged in), and the month before the window. */
export function snapshotSpend(snap: LiveSnapshot, windowEvents: readonly LiveEvent[]) {
  return spendFromEvents(windowEvents, snap.from, (scope, fromMs) => {
    if (snap.month.start !== fromMs) return null;
    let cost: bigint | null = null;
    let unpriced = 0;
    for (const r of snap.month.before) {
      if (
        (scope.harness && r.harness !== scope.harness) ||
        (scope.project && !(r.project ?? '').includes(scope.project))
      )
        continue;
      if (r.cost_e10 !== null) cost = (cost ?? 0n) + BigInt(r.cost_e10);
      unpriced += r.unpriced_requests;
    }
    return { cost_e10: cost, unpriced_requests: unpriced };
  });
}
