// The ready row's facts about the sources (store/ready.ts), made once the
// store is up to date with them: their stored warnings with when a report's
// horizon leaves each out, whether Cursor sources make every source needed,
// whether any response lacks a price, and how many sources are retained.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { HarnessScan } from './discover.js';
import { stampOf } from './stamp.js';
import { mayLeaveUnreadAfter, usableHorizon } from './horizon.js';
import { hasUnpricedResponses, responseSpans, storedWarningsBySource } from '../store/read.js';
import { countRetained } from '../store/sources-digest.js';
import type { Ready, ReadyWarning } from '../store/ready.js';
import { HARNESS_IDS, type HarnessId } from '../core/types.js';

export async function sourceFacts(
  conn: DuckDBConnection,
  scans: HarnessScan[],
): Promise<Pick<Ready, 'warnings' | 'horizonless' | 'unpriced' | 'retained'>> {
  const stored = await storedWarningsBySource(conn, [...HARNESS_IDS]);
  const spans = await responseSpans(conn, [...new Set(stored.map((w) => w.source_key))]);
  const bySource = new Map(
    scans.flatMap((s) => s.sources.map((src) => [src.key, { src, harness: s.harness }] as const)),
  );
  const after = new Map<string, number | null>();
  const warnings: ReadyWarning[] = stored.map((w) => {
    let until = after.get(w.source_key);
    if (until === undefined) {
      const s = bySource.get(w.source_key);
      // A source no longer found keeps its warnings (what the store still holds of it is reported).
      until = s ? mayLeaveUnreadAfter(s.src, s.harness, stampOf(s.src)) : null;
      after.set(w.source_key, until);
    }
    return { harness: w.harness as HarnessId, reason: w.reason, until, span: spans.get(w.source_key) ?? null };
  });
  return {
    warnings,
    horizonless: usableHorizon(scans, 0) === null,
    unpriced: await hasUnpricedResponses(conn),
    retained: await countRetained(conn),
  };
}
