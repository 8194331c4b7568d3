// Claude Code's transcript retention, said once in the first report that has
// Claude Code transcripts and in every `tx-usage sources` (the sentence and
// the setting: src/harnesses/claude-code/retention.ts).
import type { DuckDBConnection } from '@duckdb/node-api';
import { retentionOf, retentionText, type Retention } from '../harnesses/claude-code/retention.js';
import type { ScanFacts } from '../ingest/stamp.js';
import type { Runtime } from './runtime.js';

/** Meta key: the first report said it. */
const SAID = 'claude_retention_said';

/** How far back the Claude Code transcripts this run found reach, or null when it found none. */
export function claudeRetention(rt: Runtime, scans: readonly ScanFacts[]): Retention | null {
  const scan = scans.find((s) => s.harness.id === 'claude-code');
  if (!scan?.sources.length) return null;
  return retentionOf(
    scan.sources.map((s) => s.path),
    rt.home,
    rt.env,
  );
}

const DAY_MS = 86_400_000;

/**
 * The sentence, the first time a report of this store finds Claude Code
 * transcripts reaching back to the cleanup period (so older ones were
 * likely deleted before tx-usage could read them); null otherwise, after
 * that, or when the store cannot note it. Files all younger than the period
 * have lost nothing yet: nothing to say.
 */
export async function retentionNoticeOnce(
  conn: DuckDBConnection,
  rt: Runtime,
  scans: readonly ScanFacts[],
  nowMs: number,
): Promise<string | null> {
  if (!scans.some((s) => s.harness.id === 'claude-code' && s.sources.length > 0)) return null;
  try {
    // Asked first: once said, no report stats the transcripts for it again.
    const seen = await conn.runAndReadAll(`SELECT 1 FROM meta WHERE key = '${SAID}'`);
    if (seen.currentRowCount > 0) return null;
  } catch {
    return null;
  }
  const r = claudeRetention(rt, scans);
  if (!r || r.oldestMs === null || r.oldestMs > nowMs - (r.days - 1) * DAY_MS) return null;
  const text = retentionText(r);
  if (!text) return null;
  try {
    await conn.run(`INSERT OR REPLACE INTO meta VALUES ('${SAID}', '1')`);
  } catch {
    return null; // a store answered read-only: said by a later run that can note it
  }
  return text;
}
