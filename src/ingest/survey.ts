// What an ingest would have found, for a store that cannot be written (a
// store shared from another machine, a `chmod -w` folder): the sources are
// found and stamped as the ingest finds them, nothing is read or written,
// and the store's bookkeeping says how many of them it does not hold as they
// are now. The command then answers from the store as it is, saying so
// (cli/runtime.ts openAndRefresh, `readOnlyOk`).
import type { DuckDBConnection } from '@duckdb/node-api';
import { loadSourceStates } from '../store/write.js';
import { countRetained, storedSourcesState, upToDateFor } from '../store/sources-digest.js';
import { setLastIngestDigest } from './handoff.js';
import { mayLeaveUnread, usableHorizon } from './horizon.js';
import { findAndStamp, type IngestOptions, type IngestResult } from './ingest.js';

export interface Survey {
  /** As an ingest that read nothing would say it: every source found, none read. */
  result: IngestResult;
  /**
   * Sources on disk the store does not hold as they are now (new, grown,
   * rewritten, unreadable): what an ingest would have read. Sources a
   * report's horizon leaves unread (horizon.ts) are not among them, nor are
   * files gone from disk (their rows stay in the store as history either way).
   */
  changed: number;
}

export async function surveyReadOnly(conn: DuckDBConnection, opts: IngestOptions): Promise<Survey> {
  const t0 = performance.now();
  const found = await findAndStamp(opts);
  // Sources an early start began reading (it could not know the store is read-only): dropped.
  if (found.early) {
    const e = found.early;
    e.releaseAll();
    void e.done.then(() => e.pool.close()).catch(() => undefined);
  }
  // A report on a store that did not take in the sources is never memoized:
  // the memo would replay it once the store can be written again.
  setLastIngestDigest(null);
  const { scans, raw, stamps, digest, discoveryWarnings } = found;
  let changed = 0;
  // The last ingest read everything this run needs as it is now (store/sources-digest.ts): nothing changed, at the cost of one query.
  const horizon = usableHorizon(scans, opts.horizonMs);
  if (!upToDateFor(await storedSourcesState(conn), digest, horizon)) {
    const { fingerprints } = await loadSourceStates(conn);
    for (const s of scans)
      for (const src of s.sources) {
        const now = raw.get(src.key)!;
        const held = fingerprints.get(src.key);
        if (held === undefined) {
          if (!mayLeaveUnread(src, s.harness, stamps.get(src.key) ?? null, horizon)) changed++;
          continue;
        }
        // A harness that resolves projects from the others' (Cursor) has
        // `|<digest of the known projects>` after its stamp (ingest.ts): only
        // its stamp is compared, as only the files are in question.
        const same =
          held === now ||
          (s.harness.usesKnownProjects && held.startsWith(`${now}|`) && !held.slice(now.length + 1).includes('|'));
        if (!same) changed++;
      }
  }
  const total = raw.size;
  opts.progress?.(total, total);
  const ms = performance.now() - t0;
  return {
    changed,
    result: {
      scans,
      unchanged: total - changed,
      appended: 0,
      rewritten: 0,
      removed: 0,
      returned: 0,
      retained: await countRetained(conn),
      deferred: 0,
      unread: changed,
      discoveryWarnings,
      digest,
      stats: {
        bytesRead: 0,
        tailCheckBytes: 0,
        workers: 0,
        earlyUsed: 0,
        peakHeldBytes: 0,
        peakHeldResults: 0,
        upToDate: changed === 0,
        events: 0,
        ms: { discover: ms, plan: 0, extract: 0, total: ms },
        at: { start: t0, end: performance.now() },
      },
    },
  };
}
