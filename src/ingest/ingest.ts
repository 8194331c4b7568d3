// Brings the store up to date with the harness files: discovers sources,
// decides per source what changed (unchanged / appended / rewritten / gone:
// plan.ts), extracts only that — in worker threads when there is enough of
// it (run-jobs.ts) — and writes it with its bookkeeping atomically per
// batch (phase-writer.ts).
import { existsSync, writeFileSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { HarnessId } from '../core/types.js';
import type { Harness, SourceRef } from '../harnesses/types.js';
import { loadSourceStates, markRetained, settlePending, type CostFn, type SourceWrite } from '../store/write.js';
import { discoverAll, scanDigest, stampOf, withHarnesses, type HarnessScan, type Stamp } from './discover.js';
import { setLastIngestDigest, takeOfferedDiscovery } from './handoff.js';
import type { ScanFacts } from './stamp.js';
import { takeEarlyExtraction, writeSidecar } from './early.js';
import { usableHorizon } from './horizon.js';
import { withIngestMemoryLimit } from '../store/memory-limit.js';
import { countRetained, recordSourcesDigest, storedSourcesState, upToDateFor } from '../store/sources-digest.js';
import { mark } from '../core/trace.js';
import { byHarness, planPhase, type Item, type PhaseInput } from './plan.js';
import { PhaseWriter, type WriteTally } from './phase-writer.js';
import { runPlans, type RunJobsContext } from './run-jobs.js';

export { sidecarPath } from './handoff.js';
export { knownProjects } from './plan.js';

export interface IngestOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  rootOverrides: Partial<Record<HarnessId, string[]>>;
  tmpDir: string;
  cost: CostFn;
  /** Called as sources are processed (for a progress bar). */
  progress?: (done: number, total: number) => void;
  /** Threads that extract (default: one per core, at most 4; 1 = this thread alone, N = N - 1 workers and this thread). Env TX_USAGE_WORKERS overrides. */
  concurrency?: number;
  /** Sources already discovered (the warm fast path found them before deciding to ingest). */
  discovered?: {
    scans: ScanFacts[];
    warnings: string[];
    stamps?: Map<string, Stamp | null> | Promise<Map<string, Stamp | null>> | null;
  };
  /** Where to leave the index of known sources for the next run's early start (see early.ts). */
  sidecar?: string | null;
  /**
   * Sources the store has never read, last written before this time (ms
   * since the epoch), may be left unread: a report's first day less a margin
   * (see horizon.ts). Absent or null: every source is read.
   */
  horizonMs?: number | null;
  /** Told of every source's rows as they go to the store (the live views add them to what they hold, src/cli/live-refresh.ts). */
  onWrite?: (w: SourceWrite) => void;
}

export interface IngestStats {
  /** Transcript bytes read (plain and compressed) by the scanners. */
  bytesRead: number;
  /** Bytes re-read to check appended files are unchanged before their resume points (see tailHash). */
  tailCheckBytes: number;
  /** Worker threads used, this thread helping them (0 = all extraction in this thread). */
  workers: number;
  /** Sources whose early read (started before the store was open) was used. */
  earlyUsed: number;
  /** Most bytes held at once for one unfinished line, over all sources read (the memory a long line costs). */
  peakHeldBytes: number;
  /** Most sources' results this thread held at once before writing them (phase-writer.ts: bounded, not growing with the sources). */
  peakHeldResults: number;
  /** Nothing changed since the last complete ingest: the store's sources digest matched, nothing was planned (store/sources-digest.ts). */
  upToDate: boolean;
  events: number;
  ms: { discover: number; plan: number; extract: number; total: number };
  /** Milliseconds since the process started, when the ingest began and ended. */
  at: { start: number; end: number };
}

export interface IngestResult {
  scans: HarnessScan[];
  unchanged: number;
  appended: number;
  rewritten: number;
  /** Sources whose files were gone this run: their rows are kept, marked retained (see markRetained). */
  removed: number;
  /** Retained sources found on disk again. */
  returned: number;
  /** Sources the store keeps whose files are gone (after this run). */
  retained: number;
  /** Sources left unread under the horizon (see horizon.ts): unknown to the store until a command needs them. */
  deferred: number;
  /** Sources that could not be read this run (permission denied…): warned about, and read again next run. */
  unread: number;
  /** Warnings raised while discovering (unreadable directories...). */
  discoveryWarnings: string[];
  /** Digest of roots, discovery warnings and every source's stamp taken BEFORE reading it (what the store now reflects). */
  digest: string;
  stats: IngestStats;
}

/** What an ingest (or a survey of a read-only store, survey.ts) found before reading anything. */
export interface Found {
  scans: HarnessScan[];
  discoveryWarnings: string[];
  /** Every source's stamp (null: it cannot be stat'ed), and its fingerprint ('missing' then). */
  stamps: Map<string, Stamp | null>;
  raw: Map<string, string>;
  digest: string;
  early: ReturnType<typeof takeEarlyExtraction>;
}

/** The sources (offered by the memo's search, else discovered now) and their stamps, taken before anything is read. */
export async function findAndStamp(opts: IngestOptions): Promise<Found> {
  const given = opts.discovered ?? takeOfferedDiscovery(opts);
  const early = takeEarlyExtraction(opts);
  const discoveryWarnings: string[] = given ? [...given.warnings] : [];
  const scans = given ? withHarnesses(given.scans) : await discoverAll(opts, discoveryWarnings);
  // Stamps are taken before anything is read: a file that changes while it
  // is read looks changed next run, never the other way round.
  const stamps = new Map<string, Stamp | null>();
  const raw = new Map<string, string>();
  // Taken while the store opened (cli/runtime.ts).
  const givenStamps = given?.stamps ? await given.stamps : null;
  for (const s of scans)
    for (const src of s.sources) {
      // A source read early was stamped before that read; one offered with
      // its discovery was stamped then, before anything was read.
      const st =
        early?.jobs.get(src.key)?.stamp ?? (givenStamps?.has(src.key) ? givenStamps.get(src.key)! : stampOf(src));
      stamps.set(src.key, st);
      raw.set(src.key, st?.fingerprint ?? 'missing');
    }
  return { scans, discoveryWarnings, stamps, raw, digest: scanDigest(scans, raw, discoveryWarnings), early };
}

/**
 * Brings the store up to date: finds what changed (findAndStamp), then per
 * phase plans it (plan.ts), reads it (run-jobs.ts) and writes it as it comes
 * (phase-writer.ts); settles the marks once at the end.
 */
export function ingest(conn: DuckDBConnection, opts: IngestOptions): Promise<IngestResult> {
  // DuckDB's buffer bounded while it writes and settles, whatever the number of sources (store/memory-limit.ts).
  return withIngestMemoryLimit(conn, () => ingestBounded(conn, opts));
}

async function ingestBounded(conn: DuckDBConnection, opts: IngestOptions): Promise<IngestResult> {
  const t0 = performance.now();
  const { scans, discoveryWarnings, stamps, raw, digest, early } = await findAndStamp(opts);
  const stats: IngestStats = {
    bytesRead: 0,
    tailCheckBytes: 0,
    workers: 0,
    earlyUsed: 0,
    peakHeldBytes: 0,
    peakHeldResults: 0,
    upToDate: false,
    events: 0,
    ms: { discover: performance.now() - t0, plan: 0, extract: 0, total: 0 },
    at: { start: t0, end: 0 },
  };
  setLastIngestDigest(null);
  const result: IngestResult = {
    scans,
    unchanged: 0,
    appended: 0,
    rewritten: 0,
    removed: 0,
    returned: 0,
    retained: 0,
    deferred: 0,
    unread: 0,
    discoveryWarnings,
    digest,
    stats,
  };
  // Nothing changed since the last complete ingest (store/sources-digest.ts): nothing to read or write.
  const storedDigest = await storedSourcesState(conn);
  const horizon = usableHorizon(scans, opts.horizonMs);
  if (upToDateFor(storedDigest, digest, horizon) && !early) {
    result.unchanged = raw.size;
    result.retained = await countRetained(conn);
    stats.upToDate = true;
    opts.progress?.(raw.size, raw.size);
    return finishStats(opts, result, t0, digest);
  }
  const { fingerprints, retained } = await loadSourceStates(conn);
  await retainGone(conn, scans, fingerprints, retained, result);

  const total = scans.reduce((n, s) => n + s.sources.length, 0);
  let done = 0;
  const progress = (n: number) => opts.progress?.((done += n), total);
  // Left unread under the horizon, by harness; read after all when a copy of
  // a response turns up in that harness's other files (see horizon.ts).
  const deferred = new Map<HarnessId, Item[]>();
  const copiesSeen = new Set<HarnessId>();
  const tally: WriteTally = {
    appended: 0,
    rewritten: 0,
    unread: 0,
    events: 0,
    bytesRead: 0,
    peakHeldBytes: 0,
    peakHeldResults: 0,
  };
  const jobs: RunJobsContext = {
    env: opts.env,
    concurrency: opts.concurrency,
    tmpDir: opts.tmpDir,
    early,
    pool: early?.pool ?? null,
    jobIds: { last: 0 },
    stats,
  };
  if (jobs.pool) stats.workers = jobs.pool.size;
  try {
    for (const phase of phasesOf(scans, deferred, copiesSeen)) {
      const tPlan = performance.now();
      if (phase.late) done -= phase.items.length; // counted as left unread before
      const planned = await planPhase(conn, phase, {
        fingerprints,
        stamps,
        horizon,
        earlyKeys: (k) => early?.jobs.has(k) ?? false,
        checked: stats,
      });
      result.unchanged += planned.unchanged;
      byHarness(planned.deferred, deferred);
      progress(planned.unchanged + planned.deferred.length);
      stats.ms.plan += performance.now() - tPlan;
      const tExtract = performance.now();
      const writer = new PhaseWriter(
        conn,
        { cost: opts.cost, onWrite: opts.onWrite, onSource: () => progress(1), horizon, copiesSeen },
        tally,
      );
      await runPlans(
        planned.plans,
        planned.knownProjects,
        jobs,
        (p, r) => writer.accept(p, r),
        (pool) => writer.watch(pool),
      );
      await writer.finish();
      stats.ms.extract += performance.now() - tExtract;
    }
  } finally {
    if (early) {
      // Early reads of sources the store had unchanged: dropped, but they were read.
      early.releaseAll();
      await early.done;
      for (const e of early.jobs.values())
        stats.bytesRead += await e.result.then(
          (r) => r.bytesRead,
          () => 0,
        );
    }
    // Not waited for: the workers are idle, and their isolates' teardown
    // (~5 ms on a cold run) goes on while the report is queried.
    void jobs.pool?.close().catch(() => undefined);
  }
  Object.assign(stats, {
    bytesRead: stats.bytesRead + tally.bytesRead,
    peakHeldBytes: tally.peakHeldBytes,
    peakHeldResults: tally.peakHeldResults,
    events: tally.events,
  });
  Object.assign(result, { appended: tally.appended, rewritten: tally.rewritten, unread: tally.unread });
  // The billed and kept marks and the session facts of what this ingest (or one killed before it) wrote.
  await settlePending(conn);
  mark('ingest: settled');
  for (const list of deferred.values()) result.deferred += list.length;
  writeSidecarIfChanged(opts, raw, deferred, fingerprints, retained, result, horizon);
  mark('ingest: extracted and written');
  // Everything found was read, unchanged or left unread under the horizon: the next run with the
  // same digest, and a horizon no earlier (when some were left unread), has nothing to do.
  if (result.unread === 0 && [...stamps.values()].every((st) => st !== null))
    await recordSourcesDigest(conn, digest, storedDigest, result.deferred > 0 ? horizon : null);
  return finishStats(opts, result, t0, digest);
}

/**
 * Sources whose files are gone keep their rows as history (retained);
 * retained ones found again are sources like any other from here on.
 */
async function retainGone(
  conn: DuckDBConnection,
  scans: HarnessScan[],
  fingerprints: Map<string, string>,
  retained: Set<string>,
  result: IngestResult,
): Promise<void> {
  const found = new Set<string>();
  for (const s of scans) for (const src of s.sources) found.add(src.key);
  const gone = [...fingerprints.keys()].filter((k) => !found.has(k) && !retained.has(k));
  const back = [...retained].filter((k) => found.has(k));
  const retainedNow = await markRetained(conn, gone, back);
  result.removed = gone.length;
  result.returned = back.length;
  result.retained = retainedNow ?? retained.size;
}

/**
 * The phases, in order: every harness but those that resolve projects from
 * other harnesses' cwds (Cursor); then, once, the sources left unread of
 * each harness a copy of whose responses turned up at or after the horizon
 * (read after all, see horizon.ts); then Cursor, with the projects known by then.
 */
function* phasesOf(
  scans: HarnessScan[],
  deferred: Map<HarnessId, Item[]>,
  copiesSeen: Set<HarnessId>,
): Generator<PhaseInput> {
  const itemsOf = (list: HarnessScan[]): Item[] =>
    list.flatMap((s) => s.sources.map((src) => ({ src, harness: s.harness })));
  const first = itemsOf(scans.filter((s) => !s.harness.usesKnownProjects));
  if (first.length) yield { items: first, known: false, late: false };
  const afterAll = [...copiesSeen].flatMap((h) => deferred.get(h) ?? []);
  for (const h of copiesSeen) deferred.delete(h);
  if (afterAll.length) yield { items: afterAll, known: false, late: true };
  const last = itemsOf(scans.filter((s) => s.harness.usesKnownProjects));
  if (last.length) yield { items: last, known: true, late: false };
}

/** The sidecar lists the keys the store knows: rewritten only when they changed (it was 15 ms of an append run). */
function writeSidecarIfChanged(
  opts: IngestOptions,
  raw: Map<string, string>,
  deferred: Map<HarnessId, Item[]>,
  fingerprints: Map<string, string>,
  retained: Set<string>,
  result: IngestResult,
  horizon: number | null,
): void {
  if (!opts.sidecar) return;
  const unread = new Set([...deferred.values()].flatMap((l) => l.map((x) => x.src.key)));
  const storeKeys = unread.size ? [...raw.keys()].filter((k) => !unread.has(k)) : [...raw.keys()];
  const sameKeys =
    result.removed === 0 &&
    result.returned === 0 &&
    storeKeys.length === fingerprints.size - retained.size &&
    storeKeys.every((k) => fingerprints.has(k));
  // Sources left unread are listed with the horizon they were left under (a later run under it starts no early read of them).
  if (!(sameKeys && !unread.size && existsSync(opts.sidecar))) writeSidecar(opts.sidecar, storeKeys, unread, horizon);
}

function finishStats(opts: IngestOptions, result: IngestResult, t0: number, digest: string): IngestResult {
  const stats = result.stats;
  stats.ms.total = performance.now() - t0;
  stats.at.end = performance.now();
  // A source left unread is read again by the next run: no report of this one is memoized on this digest.
  setLastIngestDigest(result.unread ? null : digest);
  writeStats(opts.env, {
    kind: 'ingest',
    ...stats,
    unchanged: result.unchanged,
    appended: result.appended,
    rewritten: result.rewritten,
    removed: result.removed,
    retained: result.retained,
    deferred: result.deferred,
  });
  return result;
}

/** TX_USAGE_STATS=FILE: what the last run did (bytes read, workers, timings), for the benchmark and tests. */
export function writeStats(env: NodeJS.ProcessEnv, stats: object): void {
  const file = env.TX_USAGE_STATS ?? process.env.TX_USAGE_STATS;
  if (!file) return;
  try {
    writeFileSync(file, JSON.stringify({ ...stats, maxRssKb: process.resourceUsage().maxRSS }) + '\n');
  } catch {
    /* statistics are best effort */
  }
}
