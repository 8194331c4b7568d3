// What `tx-usage limits` prints: the current limit of each harness and
// window (currentLimits, the one source of every view), and every window seen
// in the range with its peak and spend. The tables show each window once: the
// current ones, then the earlier ones (the JSON's `windows` lists them all).
// Shape documented in docs/reports.md ("limits").
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RateLimitSnapshot } from '../core/types.js';
import { COST_PARTIAL, type Column, type Dataset } from '../render/columns.js';
import { loadTemplate, runTemplate } from '../report/template.js';
import { readSpans } from './events.js';
import {
  currentUsedPercent,
  latestWindows,
  limitWindows,
  spentIn,
  windowLabel,
  type LimitWindow,
  type SpentMetrics,
} from './limits.js';
import { isoInZone, localMinute } from './time.js';

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** Snapshots recorded in the store (Codex), last seen at or after `fromMs`, plus each harness's latest. */
export async function storedSnapshots(
  conn: DuckDBConnection,
  harnesses: string[],
  fromMs: number,
): Promise<RateLimitSnapshot[]> {
  const rows = await runTemplate(conn, loadTemplate('live_rate_limits'), { harnesses, from_ms: Math.floor(fromMs) });
  const win = (r: Record<string, unknown>, p: 'primary' | 'secondary') =>
    r[`${p}_used_percent`] === null && r[`${p}_window_minutes`] === null && r[`${p}_resets_at_ms`] === null
      ? null
      : {
          used_percent: num(r[`${p}_used_percent`]),
          window_minutes: num(r[`${p}_window_minutes`]),
          resets_at: num(r[`${p}_resets_at_ms`]),
        };
  return rows.map((r) => ({
    harness: String(r.harness) as RateLimitSnapshot['harness'],
    session_id: String(r.session_id),
    ts: Number(r.first_seen_ms),
    last_ts: Number(r.last_seen_ms),
    limit_id: text(r.limit_id),
    plan_type: text(r.plan_type),
    primary: win(r, 'primary'),
    secondary: win(r, 'secondary'),
    credits:
      r.credits_has_credits === null && r.credits_unlimited === null && r.credits_balance === null
        ? null
        : {
            has_credits: (r.credits_has_credits as boolean | null) ?? null,
            unlimited: (r.credits_unlimited as boolean | null) ?? null,
            balance: text(r.credits_balance),
          },
    reached_type: text(r.reached_type),
    source_file: '',
    source_line: null,
  }));
}

export type CurrentLimit = {
  harness: string;
  window: string;
  window_minutes: number;
  plan_type: string | null;
  limit_id: string | null;
  used_percent: number | null;
  observed_at: string;
  resets_at: string;
  reset: boolean;
  reached_type: string | null;
  credits: RateLimitSnapshot['credits'];
  window_start: string;
  peak_used_percent: number | null;
  /** The percent used now: `used_percent`, or 0 once the window has reset (added; `used_percent` keeps the last observed one). */
  current_used_percent: number | null;
} & SpentMetrics;

export type PastWindow = {
  harness: string;
  window: string;
  window_minutes: number;
  plan_type: string | null;
  start: string;
  resets_at: string;
  reset: boolean;
  peak_used_percent: number | null;
  last_used_percent: number | null;
  first_observed_at: string;
  observed_at: string;
  reached_type: string | null;
} & SpentMetrics;

export interface LimitsReport {
  timezone: string;
  now: string;
  since: string;
  limits: CurrentLimit[];
  windows: PastWindow[];
  warnings: string[];
}

/**
 * The report from the snapshots: `fromMs` bounds the windows listed (those
 * resetting at or after it); spend comes from the store's billed responses.
 */
export async function limitsReport(
  conn: DuckDBConnection,
  snaps: RateLimitSnapshot[],
  o: { tz: string; now: number; since: string; fromMs: number; warnings: string[] },
): Promise<LimitsReport> {
  const all = limitWindows(snaps);
  const listed = all.filter((w) => w.resets_at >= o.fromMs);
  const current = latestWindows(all);
  const need = [...new Set([...listed, ...current])];
  const harnesses = [...new Set(need.map((w) => w.harness))];
  // Each window's responses, added up from the store's slots (events.ts readSpans).
  const spans = await readSpans(
    conn,
    { harnesses, project: '', costMode: 'auto' },
    need.map((w) => [w.start, Math.min(w.resets_at, o.now)] as const),
  );
  const spent = (w: LimitWindow) => spentIn(w, spans[need.indexOf(w)]!, o.now);
  const iso = (ms: number) => isoInZone(ms, o.tz);
  const limits: CurrentLimit[] = current.map((w) => ({
    harness: w.harness,
    window: windowLabel(w.window_minutes),
    window_minutes: w.window_minutes,
    plan_type: w.plan_type,
    limit_id: w.limit_id,
    used_percent: w.used_percent,
    observed_at: iso(w.observed_at),
    resets_at: iso(w.resets_at),
    reset: w.resets_at <= o.now,
    reached_type: w.reached_type,
    credits: w.credits,
    window_start: iso(w.start),
    peak_used_percent: w.peak_used_percent,
    current_used_percent: currentUsedPercent(w, o.now),
    ...spent(w),
  }));
  const windows: PastWindow[] = [...listed]
    .sort(
      (a, b) => b.resets_at - a.resets_at || a.harness.localeCompare(b.harness) || a.window_minutes - b.window_minutes,
    )
    .map((w: LimitWindow) => ({
      harness: w.harness,
      window: windowLabel(w.window_minutes),
      window_minutes: w.window_minutes,
      plan_type: w.plan_type,
      start: iso(w.start),
      resets_at: iso(w.resets_at),
      reset: w.resets_at <= o.now,
      peak_used_percent: w.peak_used_percent,
      last_used_percent: w.used_percent,
      first_observed_at: iso(w.first_observed_at),
      observed_at: iso(w.observed_at),
      reached_type: w.reached_type,
      ...spent(w),
    }));
  return { timezone: o.tz, now: iso(o.now), since: o.since, limits, windows, warnings: o.warnings };
}

const pctOf = (v: number | null) => (v === null ? null : v / 100);

/** The tables: current limits (also the CSV), then the earlier windows in range: each window once. */
export function limitsDatasets(r: LimitsReport): Dataset[] {
  const when = (iso: string) => localMinute(Date.parse(iso), r.timezone);
  const current: Column[] = [
    { field: 'harness', label: 'Harness', kind: 'key', narrow: true },
    { field: 'window', label: 'Window', kind: 'text', narrow: true },
    { field: 'used', label: 'Used', kind: 'pct', narrow: true },
    { field: 'resets', label: 'Resets', kind: 'text', narrow: true },
    { field: 'plan_type', label: 'Plan', kind: 'text' },
    { field: 'total_tokens', label: 'Tokens', kind: 'int', narrow: true },
    { field: 'cost_usd', label: 'Cost', kind: 'usd', narrow: true, partial: COST_PARTIAL },
    // Added after the CSV's first columns (docs/reports.md): the window's peak and what 1 % of it bought.
    { field: 'peak', label: 'Peak', kind: 'pct' },
    { field: 'cost_usd_per_percent', label: '$/1%', kind: 'usd', narrow: true, partial: COST_PARTIAL },
  ];
  const past: Column[] = [
    { field: 'harness', label: 'Harness', kind: 'key', narrow: true },
    { field: 'window', label: 'Window', kind: 'text', narrow: true },
    { field: 'start', label: 'Start', kind: 'text' },
    { field: 'resets_at', label: 'Resets', kind: 'text' },
    { field: 'ends', label: 'Ends', kind: 'text', narrow: true },
    { field: 'peak', label: 'Peak', kind: 'pct', narrow: true },
    { field: 'total_tokens', label: 'Tokens', kind: 'int', narrow: true },
    { field: 'cost_usd', label: 'Cost', kind: 'usd', narrow: true, partial: COST_PARTIAL },
    { field: 'cost_usd_per_percent', label: '$/1%', kind: 'usd', narrow: true, partial: COST_PARTIAL },
    { field: 'tokens_per_percent', label: 'Tok/1%', kind: 'int' },
    { field: 'plan_type', label: 'Plan', kind: 'text' },
  ];
  // A window listed as a current limit is not listed again among the earlier ones.
  const isCurrent = (w: PastWindow) =>
    r.limits.some(
      (l) =>
        l.harness === w.harness &&
        l.window_minutes === w.window_minutes &&
        l.window_start === w.start &&
        l.resets_at === w.resets_at,
    );
  return [
    {
      title: 'Plan limits',
      columns: current,
      rows: r.limits.map((l) => ({
        ...l,
        used: pctOf(l.current_used_percent),
        peak: pctOf(l.peak_used_percent),
        resets: l.reset ? `reset at ${when(l.resets_at)}` : when(l.resets_at),
        reset: String(l.reset),
        credits: l.credits === null ? null : JSON.stringify(l.credits),
      })),
      notes: r.limits
        .filter((l) => l.reached_type && !l.reset)
        .map((l) => `${l.harness} ${l.window}: limit reached (${l.reached_type}) as of ${when(l.observed_at)}.`),
      empty:
        'No plan limits recorded: Codex writes them into its rollouts; Claude Code gives them to `tx-usage statusline`.',
    },
    {
      title: 'Earlier windows',
      columns: past,
      rows: r.windows
        .filter((w) => !isCurrent(w))
        .map((w) => ({ ...w, ends: when(w.resets_at), peak: pctOf(w.peak_used_percent), reset: String(w.reset) })),
      empty: 'No earlier limit window in this range.',
    },
  ];
}
