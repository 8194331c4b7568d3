// Brings the store up to date and writes the live snapshot (src/live/snapshot.ts):
// what a status line's background refresh runs (`tx-usage statusline
// --refresh`), and what `watch` does on every refresh.
//
// Given the snapshot it made last, a refresh whose ingest only appended to
// sources (or read new ones) adds the responses it wrote to that snapshot
// instead of reading the store again: the same rows, combined by the store's
// own rule (src/live/merge.ts), priced by the same pricer the ingest used.
// Anything else (a source rewritten or gone, a response before the window, a
// new month) makes the snapshot again from the store, as does every tenth
// refresh, so that the window moves on.
import type { HarnessId, UsageEvent } from '../core/types.js';
import type { IngestResult } from '../ingest/ingest.js';
import type { SourceRef } from '../harnesses/types.js';
import type { SourceWrite } from '../store/write.js';
import { defineReportMacros } from '../report/macros.js';
import { sessionKey, snapSource, writeSnapshot, type LiveSnapshot, type SnapSource } from '../live/snapshot.js';
import { buildSnapshot } from '../live/snapshot-build.js';
import { mergeAppended, sumsToRow } from '../live/merge.js';
import {
  clearFailure,
  liveDirProblem,
  recordFailure,
  refreshRunningSince,
  releaseLock,
  takeLock,
} from '../live/refresh-lock.js';
import { ReadOnlyStoreError } from '../store/errors.js';
import { costFunction, type CostSetup } from './pricing.js';
import { cacheDir, openAndRefresh, type Runtime } from './runtime.js';
import { mark } from '../core/trace.js';

export interface Refreshed {
  snapshot: LiveSnapshot;
  ingest: IngestResult;
  /** The previous snapshot was carried forward with the ingest's new rows (no store queries). */
  incremental: boolean;
  /**
   * With `readOnlyOk`, a store that cannot be written was read as it is
   * (nothing ingested, the snapshot not written to the cache dir): its
   * warning (runtime.ts answerReadOnly). Else empty.
   */
  storeWarnings: string[];
}

export interface RefreshOptions {
  now: number;
  lineHarnesses: string[];
  monthStart: number;
}

/** Incremental refreshes in a row before the snapshot is made from the store again (its window moves on then). */
const REBUILD_EVERY = 10;

let setup: CostSetup | null = null;
let sinceRebuild = 0;

/** The previous snapshot with what the ingest wrote added, or null when that cannot be done exactly. */
function carryForward(
  prev: LiveSnapshot,
  writes: SourceWrite[],
  ingest: IngestResult,
  rt: Runtime,
  o: RefreshOptions,
  cost: CostSetup,
): LiveSnapshot | null {
  if (prev.db !== rt.dbPath || prev.month.start !== o.monthStart || ingest.removed > 0 || sinceRebuild >= REBUILD_EVERY)
    return null;
  // Appends to sources the store had, and sources it never had: every row written is new. A source read again from its start replaces rows.
  if (writes.some((w) => w.mode !== 'append' && !w.fresh)) return null;
  const events: UsageEvent[] = writes.flatMap((w) => w.collected.events);
  const merged = mergeAppended(prev, events, (e) => cost.fn(e));
  if (merged.unproven) return null;
  const refs = new Map<string, SourceRef>();
  for (const s of ingest.scans) for (const r of s.sources) refs.set(r.key, r);
  const sources: Record<string, SnapSource> = { ...prev.sources };
  for (const w of writes) {
    const ref = refs.get(w.book.source_key);
    if (!ref || !o.lineHarnesses.includes(ref.harness) || ref.kind !== 'jsonl') continue;
    const old = sources[ref.path];
    sources[ref.path] = snapSource(
      ref,
      w.book,
      [...new Set([...(old?.sessions ?? []), ...w.collected.events.map((e) => e.session_id)])].sort(),
    );
  }
  const sessions: LiveSnapshot['sessions'] = {};
  for (const [k, v] of merged.sessions) {
    const before = prev.sessions[k];
    sessions[k] = { ...sumsToRow(v), first_ts_ms: before?.first_ts_ms ?? null, last_ts_ms: before?.last_ts_ms ?? null };
  }
  for (const e of events) {
    const s = sessions[sessionKey(e.harness, e.session_id)]!;
    if (s.first_ts_ms === null || e.ts < Number(s.first_ts_ms)) s.first_ts_ms = String(e.ts);
    if (s.last_ts_ms === null || e.ts > Number(s.last_ts_ms)) s.last_ts_ms = String(e.ts);
  }
  const limits = [...prev.limits, ...writes.flatMap((w) => w.collected.rateLimits ?? [])];
  return {
    ...prev,
    made_at: o.now,
    events: merged.events,
    sessions,
    sources,
    limits,
    prices: cost.pricer.exportCache([o.now, o.now + 86_400_000]),
  };
}

/**
 * One refresh: the incremental ingest (appended bytes only), then the
 * snapshot, written to the cache dir. `readOnlyOk` (watch): a store that
 * cannot be written is answered from as `report` does; that snapshot is not
 * written, since status lines take a snapshot in the cache dir for the store
 * brought up to date.
 */
export async function refreshSnapshot(
  rt: Runtime,
  o: RefreshOptions,
  prev: LiveSnapshot | null = null,
  readOnlyOk = false,
): Promise<Refreshed> {
  // The pricer once per process (watch refreshes many times).
  setup ??= await costFunction(rt);
  const cost = setup;
  const writes: SourceWrite[] = [];
  // Everything is read: blocks chain back past any window (see report blocks).
  const { store, ingest, storeWarnings } = await openAndRefresh({ ...rt, quiet: true }, cost.fn, {
    horizonMs: null,
    onWrite: (w) => writes.push(w),
    readOnlyOk,
  });
  try {
    let snapshot = prev ? carryForward(prev, writes, ingest, rt, o, cost) : null;
    const incremental = snapshot !== null;
    if (snapshot) sinceRebuild++;
    else {
      await defineReportMacros(store.conn);
      const price = (harness: HarnessId, provider: string | null, model: string) =>
        cost.pricer.costE10({
          harness,
          provider,
          model,
          ts: o.now,
          input_tokens: 1,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          cache_write_5m_tokens: null,
          cache_write_1h_tokens: null,
          output_tokens: 1,
          reasoning_tokens: 0,
        });
      snapshot = await buildSnapshot(store.conn, ingest, {
        now: o.now,
        dbPath: rt.dbPath,
        lineHarnesses: o.lineHarnesses,
        price,
        exportPrices: (at) => cost.pricer.exportCache(at),
        monthStart: o.monthStart,
      });
      sinceRebuild = 0;
    }
    mark(`snapshot: made (${incremental ? 'carried forward' : 'from the store'})`);
    if (!storeWarnings.length) {
      writeSnapshot(cacheDir(rt.env, rt.home), snapshot);
      mark('snapshot: written');
    }
    return { snapshot, ingest, incremental, storeWarnings };
  } finally {
    await store.close();
  }
}

/**
 * `statusline --refresh`: a refresh under the lock (waiting for one already
 * running to end). Quiet: it runs detached from a status line; a failure is
 * written down for status lines to see.
 */
export async function lockedRefresh(rt: Runtime, o: RefreshOptions): Promise<void> {
  const dir = cacheDir(rt.env, rt.home);
  // Nowhere to write the snapshot (nor the lock, nor a failure record): said
  // to whoever ran it by hand (exit 1); a status line finds it out itself.
  const unwritable = liveDirProblem(dir);
  if (unwritable)
    throw new Error(
      `the live snapshot cannot be written (${unwritable}): give tx-usage's cache folder write permission, or set XDG_CACHE_HOME to one it can write`,
    );
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
    recordFailure(dir, Date.now(), (e as Error)?.message ?? String(e), failureNote(e));
  } finally {
    releaseLock(dir, process.pid);
  }
}

/** The few words a status line shows for a failed refresh (its JSON has the whole message). */
function failureNote(e: unknown): string {
  if (e instanceof ReadOnlyStoreError) return e.missing ? 'store cannot be created' : 'store read-only';
  return 'refresh failed';
}
