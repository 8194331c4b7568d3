// Claude Code deletes a transcript `cleanupPeriodDays` days after it was last
// written (default 30), at start-up, without a trace (README "Retention";
// anthropics/claude-code#62476, #85743, #90667). tx-usage keeps what it has
// read, but what was deleted before its first run is gone: the first report
// and `tx-usage sources` say how far back the transcripts on disk reach and
// which setting keeps more.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Claude Code's default, when settings.json sets no cleanupPeriodDays. */
export const DEFAULT_CLEANUP_DAYS = 30;
const MAX_SETTINGS_BYTES = 1 << 20;

export interface Retention {
  /** The oldest modification time of a transcript on disk (ms), or null when none is. */
  oldestMs: number | null;
  /** cleanupPeriodDays in force. */
  days: number;
  /** The settings file that sets it, or null for the default. */
  setIn: string | null;
}

/** The config dir whose settings.json Claude Code reads: CLAUDE_CONFIG_DIR (its first entry), else ~/.claude. */
function configDir(home: string, env: NodeJS.ProcessEnv): string {
  const first = env.CLAUDE_CONFIG_DIR?.split(',')
    .map((s) => s.trim())
    .find(Boolean);
  return first || join(home, '.claude');
}

/** cleanupPeriodDays from the user's settings.json; the default when it is absent, unreadable or not a positive number. */
export function cleanupPeriod(home: string, env: NodeJS.ProcessEnv): { days: number; setIn: string | null } {
  const file = join(configDir(home, env), 'settings.json');
  try {
    const st = statSync(file);
    if (!st.isFile() || st.size > MAX_SETTINGS_BYTES) return { days: DEFAULT_CLEANUP_DAYS, setIn: null };
    const v = (JSON.parse(readFileSync(file, 'utf8')) as { cleanupPeriodDays?: unknown } | null)?.cleanupPeriodDays;
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) return { days: v, setIn: file };
  } catch {
    // No settings file, or not JSON: Claude Code then uses its default too.
  }
  return { days: DEFAULT_CLEANUP_DAYS, setIn: null };
}

/** How far back the transcripts `paths` reach (oldest modification time) and the setting in force. */
export function retentionOf(paths: readonly string[], home: string, env: NodeJS.ProcessEnv): Retention {
  let oldestMs: number | null = null;
  for (const p of paths) {
    try {
      const m = statSync(p).mtimeMs;
      if (oldestMs === null || m < oldestMs) oldestMs = m;
    } catch {
      // Gone since discovery: it says nothing of the others.
    }
  }
  return { oldestMs, ...cleanupPeriod(home, env) };
}

/** The sentence the first report and `sources` say (null when no transcript is on disk). */
export function retentionText(r: Retention): string | null {
  if (r.oldestMs === null) return null;
  const day = new Date(r.oldestMs).toISOString().slice(0, 10);
  const setting = r.setIn
    ? `cleanupPeriodDays is ${r.days} in ${r.setIn}`
    : `cleanupPeriodDays is not set: the default, ${DEFAULT_CLEANUP_DAYS}`;
  return (
    `Claude Code deletes a transcript ${r.days} days after it was last written (${setting}); ` +
    `the oldest Claude Code transcript on disk was last written on ${day}, so usage from before it can no longer be read ` +
    `(tx-usage keeps what it has read from now on). Set "cleanupPeriodDays" to more days in ~/.claude/settings.json to keep more.`
  );
}
