// Extraction that starts before the store is open. Loading DuckDB, the
// prices and the report code takes a few hundred milliseconds; sources the
// store has certainly never seen (absent from the sidecar index the last
// ingest left next to the store) can be read meanwhile, in worker threads.
// The index is only a hint: the ingest still plans every source from the
// store's own bookkeeping, writes an early result as a full re-read, drops
// one the store turns out to have unchanged, and reads anything else itself.
import { tmpdir } from 'node:os';
import { readSidecar } from './sidecar.js';
import type { HarnessScan, Stamp } from './discover.js';
import { stampOf, type DiscoverOptions } from './discover.js';
import type { Job, JobResult } from './job.js';
import { ExtractPool, workersAvailable } from './pool.js';
import { workersWanted } from './worker-count.js';
import { mayLeaveUnread, mayDefer, usableHorizon } from './horizon.js';
import { mark } from '../core/trace.js';
import { withMeta } from './discovery-record.js';

export { readSidecar, writeSidecar } from './sidecar.js';

/** Below this much new data, starting workers early costs more than it saves. */
const EARLY_MIN_BYTES = 8 << 20;
/** Results that may wait for the store to open (most of them small: jobs run largest first). */
const EARLY_AHEAD = 512;

export interface EarlyRun {
  opts: DiscoverOptions;
  pool: ExtractPool;
  /** By source key: the stamp taken before the read, and the result when it is in. */
  jobs: Map<string, { stamp: Stamp; job: Job; result: Promise<JobResult> }>;
  /**
   * Says a result has been taken (written or dropped) by the ingest. Until
   * then it counts against the workers' allowance of unread results, which
   * bounds the memory early results can hold while the store is not open.
   */
  release(jobId: number): void;
  /** Releases every result (the ingest is done with the early run). */
  releaseAll(): void;
  /** Settles when every early job has run. */
  done: Promise<void>;
}

let early: EarlyRun | null = null;

/**
 * Starts reading, in worker threads, the plain and compressed JSONL sources
 * of harnesses that need nothing from the store, when the sidecar does not
 * know them, the report's horizon does not leave them unread, and there is
 * enough of them. Does nothing otherwise. Returns whether it started.
 */
export function startEarlyExtraction(
  opts: DiscoverOptions,
  scans: HarnessScan[],
  sidecarPath: string,
  stamps?: Map<string, Stamp | null>,
  horizonMs: number | null = null,
): boolean {
  if (early || !workersAvailable()) return false;
  const known = readSidecar(sidecarPath) ?? new Set<string>();
  // Sources the ingest will leave unread (horizon.ts) are not read early either.
  const horizon = usableHorizon(scans, horizonMs);
  type Pick = { stamp: Stamp; job: Job; harness: HarnessScan['harness'] };
  const picked: Pick[] = [];
  // Old enough to be left unread if their last line is old too: that takes
  // a read of each one's end, done once the workers have the rest (on a cold
  // page cache those reads go to the disk, one by one).
  const maybe: Pick[] = [];
  let bytes = 0;
  let id = 0;
  const tmpDir = tmpdir(); // once: it reads the environment each call
  for (const s of scans) {
    if (s.harness.usesKnownProjects) continue;
    for (const src of s.sources) {
      if (src.kind === 'sqlite' || known.has(src.key)) continue;
      const stamp = stamps && stamps.has(src.key) ? stamps.get(src.key)! : stampOf(src);
      if (!stamp) continue;
      // Ids from the top of the range, apart from the ingest's own.
      const p = {
        stamp,
        harness: s.harness,
        job: {
          id: 1_000_000_000 + ++id,
          harness: src.harness,
          source: withMeta(src),
          resume: null,
          tmpDir,
          knownProjects: new Set<string>(),
        },
      };
      if (mayDefer(s.harness, stamp, horizon)) maybe.push(p);
      else {
        bytes += stamp.size;
        picked.push(p);
      }
    }
  }
  const n = workersWanted(opts.env);
  if (n < 2) return false;
  if (bytes < EARLY_MIN_BYTES || picked.length < 2) {
    // Too little certain work to start for: the rest decides.
    const rest = maybe.filter((p) => !mayLeaveUnread(p.job.source, p.harness, p.stamp, horizon));
    picked.push(...rest);
    bytes += rest.reduce((t, p) => t + p.stamp.size, 0);
    maybe.length = 0;
    if (bytes < EARLY_MIN_BYTES || picked.length < 2) return false;
  }
  const pool = new ExtractPool(Math.min(n, picked.length));
  const waiting = new Map<number, { resolve: (r: JobResult) => void; reject: (e: Error) => void }>();
  const jobs = new Map<string, { stamp: Stamp; job: Job; result: Promise<JobResult> }>();
  const taken = new Map<number, () => void>();
  const takenPromise = new Map<number, Promise<void>>();
  const runs: Promise<void>[] = [];
  const start = (list: Pick[]) => {
    list.sort((a, b) => b.stamp.size - a.stamp.size);
    for (const p of list) {
      takenPromise.set(p.job.id, new Promise<void>((r) => taken.set(p.job.id, r)));
      const result = new Promise<JobResult>((resolve, reject) => waiting.set(p.job.id, { resolve, reject }));
      result.catch(() => undefined); // observed by the ingest
      jobs.set(p.job.source.key, { stamp: p.stamp, job: p.job, result });
    }
    runs.push(
      pool
        .runAll(
          list.map((p) => p.job),
          async (r) => {
            // Handed over and forgotten here: only the ingest holds a result, until it has written it.
            waiting.get(r.id)?.resolve(r);
            waiting.delete(r.id);
            await takenPromise.get(r.id);
            takenPromise.delete(r.id);
          },
          EARLY_AHEAD,
        )
        .catch((e: unknown) => {
          for (const p of list) waiting.get(p.job.id)?.reject(e as Error);
        }),
    );
  };
  start(picked);
  mark(
    `early extraction started (${pool.size} worker${pool.size === 1 ? '' : 's'} and the main thread, ${picked.length} sources)`,
  );
  // The old ones whose last line is recent after all: a second batch, after the first (pool.ts queues them).
  const late = maybe.filter((p) => !mayLeaveUnread(p.job.source, p.harness, p.stamp, horizon));
  if (late.length) start(late);
  if (maybe.length) mark(`early extraction: ${late.length} of ${maybe.length} old sources added`);
  const release = (id: number) => {
    taken.get(id)?.();
    taken.delete(id);
  };
  const releaseAll = () => {
    for (const r of taken.values()) r();
  };
  const done = Promise.all(runs).then(() => undefined);
  early = {
    opts: { home: opts.home, env: opts.env, rootOverrides: opts.rootOverrides },
    pool,
    jobs,
    release,
    releaseAll,
    done,
  };
  return true;
}

/** Whether an early run was started and not yet taken: its threads are reading on every core. */
export function earlyExtractionStarted(): boolean {
  return early !== null;
}

/** The early run for these options, if one was started (taken once). */
export function takeEarlyExtraction(opts: DiscoverOptions): EarlyRun | null {
  const e = early;
  if (!e) return null;
  early = null;
  if (
    e.opts.home !== opts.home ||
    e.opts.env !== opts.env ||
    JSON.stringify(e.opts.rootOverrides) !== JSON.stringify(opts.rootOverrides)
  ) {
    e.releaseAll();
    void e.done.then(() => e.pool.close());
    return null;
  }
  return e;
}
