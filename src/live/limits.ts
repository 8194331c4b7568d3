// Plan limits: the rate-limit snapshots harnesses record (Codex in its
// rollouts, Claude Code in its status-line input) grouped into windows, with
// what was spent in each, so that a user sees what a percent of a limit buys.
//
// A window is one (harness, primary|secondary) limit period: it ends at its
// `resets_at` and began `window_minutes` before. Snapshots of the same window
// repeat its reset time, give or take a little (it is computed from a
// relative time by some builds): snapshots whose reset times lie within a
// tenth of the window (at most 10 minutes) of one the window was seen with
// belong to it, whatever came between (two Codex sessions running at once
// interleave their snapshots, one of them reporting an older anchor:
// openai/codex#23190). Codex also moves a weekly window's reset while the
// usage goes on (openai/codex#5999, #7325, #35952: "reset moved from Nov 29
// to Dec 2", the percent unchanged): a snapshot seen before the latest
// window's reset, with a percent no lower than the window's, is that window
// with its reset moved (it keeps its first start). A lower percent there is a
// reset (openai/codex#19987: "your usage goes back ... and your time window
// restarts"): a new window. So each window is one row, wherever it is shown.
//
// A window whose reset time has passed is `reset`: its last observed figures
// are kept, and its current use is 0 % (currentUsedPercent): the limit has
// started again since. Every view (limits, watch, the status line, the
// dashboard) takes the current windows from currentLimits.
import type { RateLimitSnapshot, RateLimitWindow } from '../core/types.js';
import { metricsOfEvents, type LiveEvent, type LiveMetrics } from './blocks.js';

export type WindowSlot = 'primary' | 'secondary';

export interface LimitWindow {
  harness: string;
  slot: WindowSlot;
  window_minutes: number;
  limit_id: string | null;
  plan_type: string | null;
  /** First instant of the window (resets_at − window_minutes) and its reset (epoch ms). */
  start: number;
  resets_at: number;
  peak_used_percent: number | null;
  /** The last snapshot's figures. */
  used_percent: number | null;
  observed_at: number;
  first_observed_at: number;
  reached_type: string | null;
  credits: RateLimitSnapshot['credits'];
}

/** `5h`, `weekly`, or `<N>m` / `<N>h` / `<N>d` for other lengths. */
export function windowLabel(minutes: number): string {
  if (minutes === 300) return '5h';
  if (minutes === 10_080) return 'weekly';
  if (minutes % 1440 === 0) return `${minutes / 1440}d`;
  if (minutes % 60 === 0) return `${minutes / 60}h`;
  return `${minutes}m`;
}

/**
 * The snapshot says a limit was reached (rate_limit_reached_type) and this
 * window is the one at 100 %: a window keeps that mark until it resets. The
 * type does not name its window, so a window below 100 % is not marked.
 */
const reachedHere = (s: RateLimitSnapshot, w: RateLimitWindow) =>
  s.reached_type !== null && (w.used_percent ?? 0) >= 100;

/** Every window the snapshots show, per harness and slot, oldest first. */
export function limitWindows(snaps: readonly RateLimitSnapshot[]): LimitWindow[] {
  const out: LimitWindow[] = [];
  /** The reset times each window was seen with (a moved reset keeps its old ones). */
  const anchors = new Map<LimitWindow, number[]>();
  const sorted = [...snaps].sort((a, b) => a.ts - b.ts || a.last_ts - b.last_ts);
  for (const harness of [...new Set(sorted.map((s) => s.harness))]) {
    for (const slot of ['primary', 'secondary'] as const) {
      const mine: LimitWindow[] = [];
      for (const s of sorted) {
        const w = s.harness === harness ? s[slot] : null;
        if (!w || w.resets_at === null || w.window_minutes === null || w.window_minutes <= 0) continue;
        const tolerance = Math.min(10 * 60_000, (w.window_minutes * 60_000) / 10);
        const len = w.window_minutes * 60_000;
        const same = mine.filter((x) => x.window_minutes === w.window_minutes);
        // A window seen with this reset time (the latest such), else the latest window when this is its reset moved.
        let cur =
          [...same].reverse().find((x) => anchors.get(x)!.some((r) => Math.abs(r - w.resets_at!) <= tolerance)) ?? null;
        const latest = same[same.length - 1];
        const moved =
          !cur &&
          latest !== undefined &&
          s.ts < latest.resets_at &&
          w.used_percent !== null &&
          w.used_percent >= (latest.used_percent ?? 0);
        if (moved) cur = latest;
        if (cur) {
          if (w.used_percent !== null)
            cur.peak_used_percent = Math.max(cur.peak_used_percent ?? w.used_percent, w.used_percent);
          // The latest snapshot's figures (an interleaved older reading of an earlier window updates that one only).
          if (s.last_ts >= cur.observed_at) {
            cur.used_percent = w.used_percent;
            cur.observed_at = s.last_ts;
            cur.resets_at = w.resets_at;
            cur.start = Math.min(cur.start, w.resets_at - len);
            cur.plan_type = s.plan_type ?? cur.plan_type;
            cur.limit_id = s.limit_id ?? cur.limit_id;
            cur.credits = s.credits ?? cur.credits;
          }
          if (reachedHere(s, w)) cur.reached_type = s.reached_type;
          anchors.get(cur)!.push(w.resets_at);
          continue;
        }
        const made: LimitWindow = {
          harness,
          slot,
          window_minutes: w.window_minutes,
          limit_id: s.limit_id,
          plan_type: s.plan_type,
          start: w.resets_at - w.window_minutes * 60_000,
          resets_at: w.resets_at,
          peak_used_percent: w.used_percent,
          used_percent: w.used_percent,
          observed_at: s.last_ts,
          first_observed_at: s.ts,
          reached_type: reachedHere(s, w) ? s.reached_type : null,
          credits: s.credits,
        };
        anchors.set(made, [w.resets_at]);
        mine.push(made);
      }
      out.push(...mine);
    }
  }
  return out.sort((a, b) => a.harness.localeCompare(b.harness) || a.slot.localeCompare(b.slot) || a.start - b.start);
}

/** The percent of the limit used now: the last observed one, or 0 once the window has reset. */
export function currentUsedPercent(w: Pick<LimitWindow, 'used_percent' | 'resets_at'>, now: number): number | null {
  return w.resets_at <= now ? 0 : w.used_percent;
}

/**
 * The current limits, one per harness and window length, from every snapshot
 * known (stored Codex ones, Claude Code's readings): what `limits`, `watch`,
 * the dashboard and MCP show as the plan limits.
 */
export function currentLimits(snaps: readonly RateLimitSnapshot[]): LimitWindow[] {
  return latestWindows(limitWindows(snaps));
}

/** Each harness and slot's latest window (the current limit, or the last one seen, now reset). */
export function latestWindows(windows: readonly LimitWindow[]): LimitWindow[] {
  const last = new Map<string, LimitWindow>();
  for (const w of windows) {
    const k = `${w.harness}\0${w.slot}`;
    const prev = last.get(k);
    if (
      !prev ||
      w.observed_at > prev.observed_at ||
      (w.observed_at === prev.observed_at && w.resets_at > prev.resets_at)
    )
      last.set(k, w);
  }
  return [...last.values()];
}

export type SpentMetrics = LiveMetrics & { tokens_per_percent: number | null; cost_usd_per_percent: number | null };

/** What the harness spent in the window so far (until its reset or now), and per percent of the limit at its peak. */
export function spentIn(w: LimitWindow, events: readonly LiveEvent[], now: number): SpentMetrics {
  const until = Math.min(w.resets_at, now);
  const mine = events.filter((e) => e.harness === w.harness && e.ts >= w.start && e.ts < until);
  const m = metricsOfEvents(mine);
  const peak = w.peak_used_percent;
  const per = (v: number | null, digits: number) =>
    v === null || !peak ? null : Math.round((v / peak) * 10 ** digits) / 10 ** digits;
  return { ...m, tokens_per_percent: per(m.total_tokens, 2), cost_usd_per_percent: per(m.cost_usd, 8) };
}
