// Codex plan rate-limit snapshots (contract `codex`, record `event_msg /
// token_count`, field `rate_limits`: {limit_id, limit_name, primary:
// {used_percent, window_minutes, resets_at} | null, secondary, credits:
// {has_credits, unlimited, balance} | null, plan_type,
// rate_limit_reached_type, ...}). Only these figures are read; limit_name and
// every other field are left alone. `resets_at` is Unix seconds; older
// builds wrote `resets_in_seconds` (relative to the line's time), read too.
// Identical snapshots in a row (Codex repeats them with every token_count)
// are kept as one, observed from its first to its last line.
import type { RateLimitSnapshot, RateLimitWindow } from '../../core/types.js';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);

/** Instants a Date can hold; anything else in resets_at is not a time. */
const MAX_MS = 8.64e15;
const instant = (ms: number | null) => (ms !== null && ms > 0 && ms < MAX_MS ? Math.round(ms) : null);

function windowOf(v: unknown, ts: number): RateLimitWindow | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const w = v as Record<string, unknown>;
  const at = num(w.resets_at);
  const inSec = num(w.resets_in_seconds);
  const resets = at !== null ? instant(at * 1000) : inSec !== null ? instant(ts + inSec * 1000) : null;
  const used = num(w.used_percent);
  const rawMinutes = num(w.window_minutes);
  // A window length the store's INTEGER column holds, in whole minutes.
  const minutes = rawMinutes !== null && rawMinutes > 0 && rawMinutes < 2 ** 31 ? rawMinutes : null;
  if (used === null && minutes === null && resets === null) return null;
  return { used_percent: used, window_minutes: minutes === null ? null : Math.round(minutes), resets_at: resets };
}

function creditsOf(v: unknown): RateLimitSnapshot['credits'] {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const c = v as Record<string, unknown>;
  const balance = typeof c.balance === 'number' && Number.isFinite(c.balance) ? String(c.balance) : str(c.balance);
  return { has_credits: bool(c.has_credits), unlimited: bool(c.unlimited), balance };
}

/** The figures that make two snapshots the same (everything but when and where they were seen). */
const sameKey = (s: RateLimitSnapshot) =>
  JSON.stringify([s.limit_id, s.plan_type, s.primary, s.secondary, s.credits, s.reached_type]);

/** Collects a rollout's snapshots, one per run of identical ones. */
export class RateLimitReader {
  private readonly out: RateLimitSnapshot[] = [];
  private lastKey: string | null = null;

  constructor(private readonly file: string) {}

  /** `raw` is a token_count's `rate_limits` (null or absent: nothing recorded). */
  observe(raw: unknown, ts: number, line: number, session: string): void {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
    const r = raw as Record<string, unknown>;
    const snap: RateLimitSnapshot = {
      harness: 'codex',
      session_id: session,
      ts,
      last_ts: ts,
      limit_id: str(r.limit_id),
      plan_type: str(r.plan_type),
      primary: windowOf(r.primary, ts),
      secondary: windowOf(r.secondary, ts),
      credits: creditsOf(r.credits),
      reached_type: str(r.rate_limit_reached_type),
      source_file: this.file,
      source_line: line,
    };
    if (!snap.primary && !snap.secondary && !snap.credits && !snap.plan_type && !snap.reached_type) return;
    const key = sameKey(snap);
    const prev = this.out[this.out.length - 1];
    if (prev && key === this.lastKey) {
      prev.last_ts = Math.max(prev.last_ts, ts);
      return;
    }
    this.lastKey = key;
    this.out.push(snap);
  }

  /** Hands the snapshots to the sink (the session id is the thread's, known only once session_meta was read). */
  flush(emit: (s: RateLimitSnapshot) => void, session: string): void {
    for (const s of this.out) emit({ ...s, session_id: session });
  }
}
