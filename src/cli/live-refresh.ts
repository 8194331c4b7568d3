// Brings the store up to date and writes the live snapshot (src/live/snapshot.ts):
// what a status line's background refresh runs (`tx-usage statusline
// --refresh`), and what `watch` does on every refresh.
import type { HarnessId } from '../core/types.js';
import type { IngestResult } from '../ingest/ingest.js';
import { defineReportMacros } from '../report/macros.js';
import { writeSnapshot, type LiveSnapshot } from '../live/snapshot.js';
import { buildSnapshot } from '../live/snapshot-build.js';
import { clearFailure, recordFailure, refreshRunningSince, releaseLock, takeLock } from '../live/refresh-lock.js';
import { costFunction, type CostSetup } from './pricing.js';
import { cacheDir, openAndRefresh, type Runtime } from './runtime.js';

export interface Refreshed {
  snapshot: LiveSnapshot;
  ingest: IngestResult;
}

let setup: CostSetup | null = null;

/** One refresh: the incremental ingest (appended bytes only), then the snapshot, written to the cache dir. */
export async function refreshSnapshot(rt: Runtime, o: { now: number; lineHarnesses: string[]; monthStart: number }): Promise<Refreshed> {
  // The pricer once per process (watch refreshes many times).
  setup ??= await costFunction(rt);
  const cost = setup;
  // Everything is read: blocks chain back past any window (see report blocks).
  const { store, ingest } = await openAndRefresh({ ...rt, quiet: true }, cost.fn, { horizonMs: null });
  try {
    await defineReportMacros(store.conn);
    const price = (harness: HarnessId, provider: string | null, model: string) =>
      cost.pricer.costE10({ harness, provider, model, ts: o.now, input_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_5m_tokens: null, cache_write_1h_tokens: null, output_tokens: 1, reasoning_tokens: 0 });
    const snapshot = await buildSnapshot(store.conn, ingest, { now: o.now, dbPath: rt.dbPath, lineHarnesses: o.lineHarnesses, price, exportPrices: (at) => cost.pricer.exportCache(at), monthStart: o.monthStart });
    writeSnapshot(cacheDir(rt.env, rt.home), snapshot);
    return { snapshot, ingest };
  } finally {
    await store.close();
  }
}

/**
 * `statusline --refresh`: a refresh under the lock (waiting for one already
 * running to end). Quiet: it runs detached from a status line; a failure is
 * written down for status lines to see.
 */
export async function lockedRefresh(rt: Runtime, o: { now: number; lineHarnesses: string[]; monthStart: number }): Promise<void> {
  const dir = cacheDir(rt.env, rt.home);
  const started = Date.now();
  while (!takeLock(dir, process.pid)) {
    if (refreshRunningSince(dir) === null && Date.now() - started > 5_000) break;
    if (Date.now() - started > 150_000) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    await refreshSnapshot(rt, o);
    clearFailure(dir);
  } catch (e) {
    recordFailure(dir, Date.now(), (e as Error)?.message ?? String(e));
  } finally {
    releaseLock(dir, process.pid);
  }
}
