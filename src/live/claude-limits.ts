// Claude Code's plan limits, as its status-line input gives them
// (`rate_limits.five_hour` / `seven_day`: {used_percentage, resets_at}); its
// transcripts record none. `tx-usage statusline` keeps each new reading in
// tx-usage's own cache dir (never in Claude Code's folders), and `limits`
// and `watch` read them back as rate-limit snapshots.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RateLimitSnapshot, RateLimitWindow } from '../core/types.js';

/** Readings kept (oldest dropped first): months of changes. */
const MAX_READINGS = 20_000;
/** An unchanged reading's last-seen time is written at most this often. */
const TOUCH_EVERY_MS = 60_000;

export interface ClaudeReading {
  /** First and last time these figures were read (epoch ms). */
  first: number;
  last: number;
  session: string;
  five_hour: RateLimitWindow | null;
  seven_day: RateLimitWindow | null;
}

export function claudeLimitsPath(cacheDir: string): string {
  return join(cacheDir, 'live', 'claude-rate-limits.json');
}

export function readClaudeReadings(cacheDir: string): ClaudeReading[] {
  try {
    const j = JSON.parse(readFileSync(claudeLimitsPath(cacheDir), 'utf8')) as { v: number; readings: ClaudeReading[] };
    return j.v === 1 && Array.isArray(j.readings) ? j.readings : [];
  } catch {
    return [];
  }
}

const same = (a: ClaudeReading, b: ClaudeReading) =>
  JSON.stringify([a.five_hour, a.seven_day]) === JSON.stringify([b.five_hour, b.seven_day]);

/** Adds a reading (or extends the last one when its figures are unchanged). Best effort: a cache that cannot be written is skipped. */
export function recordClaudeReading(cacheDir: string, r: ClaudeReading): void {
  const readings = readClaudeReadings(cacheDir);
  const last = readings[readings.length - 1];
  if (last && same(last, r)) {
    if (r.last - last.last < TOUCH_EVERY_MS) return;
    last.last = Math.max(last.last, r.last);
  } else readings.push(r);
  const path = claudeLimitsPath(cacheDir);
  try {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ v: 1, readings: readings.slice(-MAX_READINGS) }));
    renameSync(tmp, path);
  } catch {
    /* a cache only */
  }
}

/** The readings as rate-limit snapshots (five_hour = primary, seven_day = secondary). */
export function claudeSnapshots(cacheDir: string): RateLimitSnapshot[] {
  return readClaudeReadings(cacheDir).map((r) => ({
    harness: 'claude-code',
    session_id: r.session,
    ts: r.first,
    last_ts: r.last,
    limit_id: null,
    plan_type: null,
    primary: r.five_hour,
    secondary: r.seven_day,
    credits: null,
    reached_type: null,
    source_file: claudeLimitsPath(cacheDir),
    source_line: null,
  }));
}
