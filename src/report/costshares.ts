// Share of cost from uncached input, cache reads, cache writes and output.
//
// The store keeps one cost per response, not its split. Within one month,
// harness, provider and model every response is billed at the same per-token
// rates, so each priced response satisfies
//     cost = r_in·input + r_cr·cache_read + r_cw·cache_write + r_1h·cache_write_1h + r_out·output
// and the rates can be recovered from the responses themselves: a
// non-negative least-squares fit on the sums of products that
// queries/monthly_costfit.sql returns. With linear prices and responses that
// vary enough to pin every rate down, the fit reproduces the costs exactly
// (`exact`); long-context tiers or a per-request fee make it approximate.
// Where a group's responses cannot separate the rates (one response, or all
// in the same proportions) its month is fitted on the whole range's responses
// of that group; failing that its cost is reported as `unattributed`, never
// guessed. The per-group components are scaled so they add up to the group's
// actual cost.
import { e10ToUsd } from '../core/money.js';

/** Regressors, in the order of the query's columns. */
export const REGRESSORS = ['in', 'cr', 'cw', 'cw1h', 'out'] as const;
const COMPONENT_OF = ['input', 'cache_read', 'cache_write', 'cache_write', 'output'] as const;
export const COMPONENTS = ['input', 'cache_read', 'cache_write', 'output'] as const;
export type Component = (typeof COMPONENTS)[number];

export interface Moments {
  n: number;
  y: number;
  yy: number;
  x: number[];
  /** Upper and lower triangle both filled. */
  xx: number[][];
  xy: number[];
}

export interface CostShares {
  /** Cost of the month's priced responses, the basis of the shares. */
  priced_cost_usd: number;
  input_usd: number;
  cache_read_usd: number;
  cache_write_usd: number;
  output_usd: number;
  unattributed_usd: number;
  input_share: number;
  cache_read_share: number;
  cache_write_share: number;
  output_share: number;
  unattributed_share: number;
  /** Every group's fitted rates reproduce its costs (relative RMS error < 1e-6) and nothing is unattributed. */
  exact: boolean;
}

const K = REGRESSORS.length;
const n0 = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export function momentsOf(r: Record<string, unknown>): Moments {
  const xx: number[][] = Array.from({ length: K }, () => new Array<number>(K).fill(0));
  for (let i = 0; i < K; i++) {
    for (let j = i; j < K; j++) {
      const v = n0(r[`sum_${REGRESSORS[i]}_${REGRESSORS[j]}`]);
      xx[i]![j] = v;
      xx[j]![i] = v;
    }
  }
  return {
    n: n0(r.responses),
    y: n0(r.sum_cost),
    yy: n0(r.sum_cost_cost),
    x: REGRESSORS.map((a) => n0(r[`sum_${a}`])),
    xx,
    xy: REGRESSORS.map((a) => n0(r[`sum_${a}_cost`])),
  };
}

export function addMoments(a: Moments, b: Moments): Moments {
  return {
    n: a.n + b.n,
    y: a.y + b.y,
    yy: a.yy + b.yy,
    x: a.x.map((v, i) => v + b.x[i]!),
    xx: a.xx.map((row, i) => row.map((v, j) => v + b.xx[i]![j]!)),
    xy: a.xy.map((v, i) => v + b.xy[i]!),
  };
}

/** Cholesky solve of a small symmetric positive definite system; null when (numerically) singular. */
function solveSpd(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const l: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i]![j]!;
      for (let k = 0; k < j; k++) s -= l[i]![k]! * l[j]![k]!;
      if (i === j) {
        // `a` has a unit diagonal (columns normalized), so this is a relative test.
        if (s <= 1e-10) return null;
        l[i]![i] = Math.sqrt(s);
      } else l[i]![j] = s / l[j]![j]!;
    }
  }
  const z = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= l[i]![k]! * z[k]!;
    z[i] = s / l[i]![i]!;
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = z[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k]![i]! * x[k]!;
    x[i] = s / l[i]![i]!;
  }
  return x;
}

/** Residual sum of squares of rates `r` on moments `m`. */
function rss(m: Moments, r: number[]): number {
  let s = m.yy;
  for (let i = 0; i < K; i++) {
    s -= 2 * r[i]! * m.xy[i]!;
    for (let j = 0; j < K; j++) s += r[i]! * m.xx[i]![j]! * r[j]!;
  }
  return Math.max(0, s);
}

/** Relative RMS error of rates `r` on `m`: 0 when they reproduce every cost. */
export function fitError(m: Moments, r: number[]): number {
  if (m.n === 0 || m.y <= 0) return 0;
  return Math.sqrt(rss(m, r) / m.n) / (m.y / m.n);
}

/**
 * Per-token rates (cost units per token, one per regressor; 0 for tokens that
 * never occur) that best reproduce the costs with every rate ≥ 0, or null
 * when the responses cannot separate the rates.
 */
export function fitRates(m: Moments): number[] | null {
  const active = REGRESSORS.map((_, i) => i).filter((i) => m.xx[i]![i]! > 0);
  if (!active.length || m.y <= 0) return null;
  // Normalize columns to unit length so the singularity test is scale-free.
  const d = active.map((i) => Math.sqrt(m.xx[i]![i]!));
  const g = active.map((i, a) => active.map((j, b) => m.xx[i]![j]! / (d[a]! * d[b]!)));
  const h = active.map((i, a) => m.xy[i]! / d[a]!);
  if (!solveSpd(g, h)) return null; // not identifiable: many rate sets fit equally well
  // Non-negative least squares by enumeration (at most 2^5 faces): the
  // optimum is the unconstrained optimum of one face, and every feasible face
  // optimum is a candidate, so the feasible one with the least residual wins.
  let best: number[] | null = null;
  let bestRss = Infinity;
  for (let mask = 1; mask < 1 << active.length; mask++) {
    const idx = active.map((_, a) => a).filter((a) => mask & (1 << a));
    const z = solveSpd(
      idx.map((a) => idx.map((b) => g[a]![b]!)),
      idx.map((a) => h[a]!),
    );
    if (!z || z.some((v) => v < -1e-12)) continue;
    const r = new Array<number>(K).fill(0);
    idx.forEach((a, t) => (r[active[a]!] = Math.max(0, z[t]!) / d[a]!));
    const e = rss(m, r);
    if (e < bestRss) {
      bestRss = e;
      best = r;
    }
  }
  return best;
}

export interface FitGroupRow {
  month: string;
  group: string;
  /** Exact Σ cost of the group's priced responses in the month (e10 units, as DuckDB returns it). */
  cost_e10: string | number | null;
  moments: Moments;
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/** Cost shares per month (null for a month without priced responses). */
export function costSharesByMonth(rows: FitGroupRow[]): Map<string, CostShares> {
  const range = new Map<string, Moments>();
  for (const r of rows) {
    const prev = range.get(r.group);
    range.set(r.group, prev ? addMoments(prev, r.moments) : r.moments);
  }
  const acc = new Map<
    string,
    { total: bigint; parts: Record<Component, number>; unattributed: number; exact: boolean }
  >();
  for (const r of rows) {
    let a = acc.get(r.month);
    if (!a) {
      a = { total: 0n, parts: { input: 0, cache_read: 0, cache_write: 0, output: 0 }, unattributed: 0, exact: true };
      acc.set(r.month, a);
    }
    const cost = BigInt(r.cost_e10 ?? 0);
    a.total += cost;
    const rates = fitRates(r.moments) ?? fitRates(range.get(r.group)!);
    const fitted = rates ? rates.map((rate, i) => rate * r.moments.x[i]!) : null;
    const sum = fitted ? fitted.reduce((s, v) => s + v, 0) : 0;
    if (!rates || !fitted || !(sum > 0)) {
      a.unattributed += Number(cost);
      a.exact = false;
      continue;
    }
    if (fitError(r.moments, rates) > 1e-6) a.exact = false;
    // Scale to the group's actual cost, so components add up to it.
    const scale = Number(cost) / sum;
    fitted.forEach((v, i) => (a!.parts[COMPONENT_OF[i]!] += v * scale));
  }
  const out = new Map<string, CostShares>();
  for (const [month, a] of acc) {
    const total = Number(a.total);
    if (total <= 0) continue;
    const usd = (e10: number) => round6(e10ToUsd(Math.round(e10))!);
    const share = (e10: number) => round6(e10 / total);
    out.set(month, {
      priced_cost_usd: e10ToUsd(a.total)!,
      input_usd: usd(a.parts.input),
      cache_read_usd: usd(a.parts.cache_read),
      cache_write_usd: usd(a.parts.cache_write),
      output_usd: usd(a.parts.output),
      unattributed_usd: usd(a.unattributed),
      input_share: share(a.parts.input),
      cache_read_share: share(a.parts.cache_read),
      cache_write_share: share(a.parts.cache_write),
      output_share: share(a.parts.output),
      unattributed_share: share(a.unattributed),
      exact: a.exact,
    });
  }
  return out;
}
