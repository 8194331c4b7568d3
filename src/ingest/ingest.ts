// Brings the store up to date with the harness files: discovers sources,
// decides per source what changed (unchanged / appended / rewritten / gone),
// extracts only that — in worker threads when there is enough of it — and
// writes it with its bookkeeping atomically per batch.
import { existsSync, writeFileSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { HarnessId } from '../core/types.js';
import type { Harness, SourceRef } from '../harnesses/types.js';
import { BatchWriter, loadSourceBook, loadSourceStates, markRetained, settlePending, type CostFn, type SourceBookRow, type SourceWrite } from '../store/write.js';
import { discoverAll, scanDigest, stampOf, tailCheckBytes, tailHash, withHarnesses, type HarnessScan, type Stamp } from './discover.js';
import { setLastIngestDigest, takeOfferedDiscovery } from './handoff.js';
import type { ScanFacts } from './stamp.js';
import { runJob, type Job, type JobResult } from './job.js';
import { ExtractPool, workersAvailable } from './pool.js';
import { workersWanted } from './worker-count.js';
import { digest128 } from '../core/digest.js';
import { takeEarlyExtraction, writeSidecar } from './early.js';
import { mayLeaveUnread, usableHorizon } from './horizon.js';
import { withMeta } from './discovery-record.js';
import { countRetained, recordSourcesDigest, storedSourcesState, upToDateFor } from '../store/sources-digest.js';
import { mark } from '../core/trace.js';
import { UnitColumns } from '../core/unit-columns.js';
import type { Collected } from './collect.js';
import { countedRowsOf } from '../store/counted-rows.js';

export { sidecarPath } from './handoff.js';

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
  discovered?: { scans: ScanFacts[]; warnings: string[]; stamps?: Map<string, Stamp | null> | Promise<Map<string, Stamp | null>> | null };
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

const BATCH_EVENTS = 5_000;
const BATCH_SOURCES = 500;
/** Batches go into one transaction, committed when it has been open this long and at the end of each phase (see BatchWriter). */
const COMMIT_EVERY_MS = 2_000;
/** Below this much to read, starting worker threads costs more than it saves. */
const PARALLEL_MIN_BYTES = 8 << 20;

type Plan = { src: SourceRef; harness: Harness; stamp: Stamp; mode: 'full' | 'append'; prev: SourceBookRow | null; bytes: number };

function planSource(src: SourceRef, harness: Harness, stamp: Stamp, prev: SourceBookRow | undefined, stats: IngestStats): Plan | null {
  if (prev && prev.fingerprint === stamp.fingerprint) return null;
  // Append-only JSONL that only grew, same inode, same bytes before the
  // resume point: read just the new bytes.
  if (
    prev &&
    src.kind === 'jsonl' &&
    prev.kind === 'jsonl' &&
    prev.ino === stamp.ino &&
    prev.resume_offset !== null &&
    stamp.size > prev.size &&
    prev.resume_offset <= stamp.size &&
    prev.tail_hash !== null
  ) {
    stats.tailCheckBytes += tailCheckBytes(prev.resume_offset);
    if (tailHash(src.path, prev.resume_offset) === prev.tail_hash) {
      return { src, harness, stamp, mode: 'append', prev, bytes: stamp.size - prev.resume_offset };
    }
  }
  return { src, harness, stamp, mode: 'full', prev: prev ?? null, bytes: stamp.size };
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
      const st = early?.jobs.get(src.key)?.stamp ?? (givenStamps?.has(src.key) ? givenStamps.get(src.key)! : stampOf(src));
      stamps.set(src.key, st);
      raw.set(src.key, st?.fingerprint ?? 'missing');
    }
  return { scans, discoveryWarnings, stamps, raw, digest: scanDigest(scans, raw, discoveryWarnings), early };
}

export async function ingest(conn: DuckDBConnection, opts: IngestOptions): Promise<IngestResult> {
  const t0 = performance.now();
  const { scans, discoveryWarnings, stamps, raw, digest, early } = await findAndStamp(opts);
  const tDiscovered = performance.now();
  const stats: IngestStats = { bytesRead: 0, tailCheckBytes: 0, workers: 0, earlyUsed: 0, peakHeldBytes: 0, upToDate: false, events: 0, ms: { discover: tDiscovered - t0, plan: 0, extract: 0, total: 0 }, at: { start: t0, end: 0 } };

  setLastIngestDigest(null);
  const result: IngestResult = { scans, unchanged: 0, appended: 0, rewritten: 0, removed: 0, returned: 0, retained: 0, deferred: 0, unread: 0, discoveryWarnings, digest, stats };
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

  const byKey = new Map<string, SourceRef>();
  for (const s of scans) for (const src of s.sources) byKey.set(src.key, src);
  // Sources whose files are gone keep their rows as history (retained);
  // retained ones found again are sources like any other from here on.
  const gone = [...fingerprints.keys()].filter((k) => !byKey.has(k) && !retained.has(k));
  const back = [...retained].filter((k) => byKey.has(k));
  const retainedNow = await markRetained(conn, gone, back);
  result.removed = gone.length;
  result.returned = back.length;
  result.retained = retainedNow ?? retained.size;

  // Harnesses that resolve projects from other harnesses' cwds (Cursor) run
  // after the rest, with the projects known by then.
  type Item = { src: SourceRef; harness: Harness };
  const itemsOf = (list: HarnessScan[]): Item[] => list.flatMap((s) => s.sources.map((src) => ({ src, harness: s.harness })));
  const phases: { items: Item[]; known: boolean }[] = [
    { items: itemsOf(scans.filter((s) => !s.harness.usesKnownProjects)), known: false },
    { items: itemsOf(scans.filter((s) => s.harness.usesKnownProjects)), known: true },
  ];
  const total = scans.reduce((n, s) => n + s.sources.length, 0);
  // Left unread under the horizon, by harness; read after all when a copy of
  // a response turns up in that harness's other files (see horizon.ts).
  const deferred = new Map<HarnessId, Item[]>();
  const copiesSeen = new Set<HarnessId>();
  let done = 0;
  /** Sources whose read failed this run (permission denied…): no sources digest is recorded, so the next run reads them again. */
  let unreadSources = 0;
  let pool: ExtractPool | null = early?.pool ?? null;
  if (pool) stats.workers = pool.size;
  let jobId = 0;
  try {
    for (let ph = 0; ph < phases.length; ph++) {
      const phase = phases[ph]!;
      if (ph === 1) {
        const afterAll = [...copiesSeen].flatMap((h) => deferred.get(h) ?? []);
        for (const h of copiesSeen) deferred.delete(h);
        if (afterAll.length) {
          done -= afterAll.length;
          phases.splice(1, 0, { items: afterAll, known: false });
          ph--;
          continue;
        }
      }
      if (!phase.items.length) continue;
      const late = ph > 0 && !phase.known;
      const tPlan = performance.now();
      const known = phase.known ? await knownProjects(conn) : new Set<string>();
      const extra = phase.known ? digest128([...known].sort().join('\n')) : '';
      const plans: Plan[] = [];
      const stamped = phase.items.map(({ src, harness }) => {
        const st = stamps.get(src.key) ?? null;
        // (An imported usage CSV resolves no projects: its rows do not depend on them.)
        return { src, harness, stamp: st && extra && src.kind !== 'csv' ? { ...st, fingerprint: `${st.fingerprint}|${extra}` } : st };
      });
      // Whole bookkeeping rows only for the known sources that changed.
      const book = await loadSourceBook(
        conn,
        stamped.filter((x) => fingerprints.has(x.src.key) && fingerprints.get(x.src.key) !== x.stamp?.fingerprint).map((x) => x.src.key),
      );
      for (const { src, harness, stamp } of stamped) {
        if (stamp && fingerprints.get(src.key) === stamp.fingerprint) {
          result.unchanged++;
          opts.progress?.(++done, total);
          continue;
        }
        if (!late && !fingerprints.has(src.key) && !early?.jobs.has(src.key) && mayLeaveUnread(src, harness, stamp, horizon)) {
          const list = deferred.get(harness.id) ?? [];
          if (!list.length) deferred.set(harness.id, list);
          list.push({ src, harness });
          opts.progress?.(++done, total);
          continue;
        }
        const prev = book.get(src.key);
        // A source that cannot even be stat'ed still gets extracted, so its
        // failure is reported as a warning naming it.
        const plan = stamp
          ? planSource(src, harness, stamp, prev, stats)
          : { src, harness, stamp: { size: 0, ino: '', fingerprint: `missing:${Date.now()}`, mtimeMs: 0 }, mode: 'full' as const, prev: prev ?? null, bytes: 0 };
        if (plan) plans.push(plan);
        else {
          result.unchanged++;
          opts.progress?.(++done, total);
        }
      }
      stats.ms.plan += performance.now() - tPlan;
      const tExtract = performance.now();
      // Sources already being read early: their (whole-file) results are
      // written as full re-reads; the rest is read here.
      const fromEarly: { p: Plan; result: Promise<JobResult>; id: number }[] = [];
      if (early) {
        for (let i = plans.length - 1; i >= 0; i--) {
          const e = early.jobs.get(plans[i]!.src.key);
          if (!e) continue;
          fromEarly.push({ p: { ...plans[i]!, mode: 'full' }, result: e.result, id: e.job.id });
          stats.earlyUsed++;
          early.jobs.delete(plans[i]!.src.key);
          plans.splice(i, 1);
        }
        // The rest were read for nothing (the store has them unchanged): let them go.
        for (const e of early.jobs.values()) early.release(e.job.id);
      }
      const bytes = plans.reduce((n, p) => n + p.bytes, 0);
      const want = workersWanted(opts.env, opts.concurrency);
      if (!pool && want > 1 && plans.length > 1 && bytes >= PARALLEL_MIN_BYTES && workersAvailable()) {
        pool = new ExtractPool(Math.min(want, plans.length));
        stats.workers = pool.size;
      }
      // Largest first, so one big file does not start last and run alone.
      plans.sort((a, b) => b.bytes - a.bytes);

      let pending: SourceWrite[] = [];
      let pendingEvents = 0;
      // Marks and session facts are settled once, after the last phase (settlePending below).
      const writer = new BatchWriter(conn, opts.cost, COMMIT_EVERY_MS, true);
      let writing: Promise<void> = Promise.resolve();
      // Batches are written one after another while extraction goes on; a
      // full batch waits only for the write before the previous one, so at
      // most two batches are held in memory besides the one being filled.
      let previous: Promise<void> = Promise.resolve();
      const flush = () => {
        const b = pending;
        pending = [];
        pendingEvents = 0;
        previous = writing;
        if (b.length) writing = writing.then(() => writer.write(b));
        return writing;
      };
      // Near the end of the pool's jobs, results are written as they come
      // instead of in batches: this thread would otherwise finish its last
      // jobs holding up to a batch and write it after them, on the run's
      // tail, while the workers have nothing left to do. Writing takes this
      // thread's time, so the workers claim more of the last jobs.
      // Results taken in one turn of the event loop (a backlog) go together.
      const nearEnd = () => pool !== null && pool.nearEnd;
      let flushSoon = false;
      const writeSoon = () => {
        if (flushSoon) return;
        flushSoon = true;
        setImmediate(() => {
          flushSoon = false;
          if (pending.length) void flush().catch(() => undefined); // a failure surfaces at the final flush
        });
      };
      if (pool) {
        pool.onNearEnd = () => {
          mark('ingest: near the end of the jobs');
          writeSoon();
        };
      }
      const accept = async (p: Plan, r: JobResult) => {
        stats.bytesRead += r.bytesRead;
        stats.peakHeldBytes = Math.max(stats.peakHeldBytes, r.peakHeldBytes ?? 0);
        if (r.collected.failed) {
          unreadSources++;
          r = { ...r, collected: unreadResult(r.collected, p.prev !== null) };
        }
        if (!r.collected.failed && p.mode === 'full' && p.prev !== null) r = { ...r, collected: await keepCounted(conn, p, r.collected) };
        const rp = r.collected.resume;
        const bookRow: SourceBookRow = {
          source_key: p.src.key,
          harness: p.src.harness,
          path: p.src.path,
          kind: p.src.kind,
          fingerprint: p.stamp.fingerprint,
          size: p.stamp.size,
          ino: p.stamp.ino,
          resume_offset: rp ? rp.offset : null,
          resume_lines: rp ? rp.lines : null,
          resume_state: rp && rp.state !== undefined ? JSON.stringify(rp.state) : null,
          tail_hash: r.tailHash,
        };
        if (p.mode === 'append') result.appended++;
        else result.rewritten++;
        stats.events += r.collected.events.length;
        // A copy dated before the horizon has its original there too (a copy is made after it): no report window holds either.
        if (horizon !== null && p.harness.rankMarksCopies && !copiesSeen.has(p.harness.id) && r.collected.events.some((e) => e.dedupe_rank >= (p.harness.copyRankFrom ?? 1) && e.ts >= horizon)) copiesSeen.add(p.harness.id);
        let write: SourceWrite = { collected: r.collected, book: bookRow, mode: p.mode, fresh: p.prev === null };
        // A source that could not be read: tried again next run (its
        // bookkeeping never matches a stamp), and what the store held of it
        // is kept meanwhile (its rows and resume point, as an append of
        // nothing), with the failure as its warning until it is read.
        if (r.collected.failed) {
          write = p.prev
            ? { collected: r.collected, book: { ...p.prev, fingerprint: unreadFingerprint(p.stamp) }, mode: 'append', fresh: false }
            : { ...write, book: { ...bookRow, fingerprint: unreadFingerprint(p.stamp), resume_offset: null, resume_lines: null, resume_state: null, tail_hash: null } };
        }
        opts.onWrite?.(write);
        pending.push(write);
        pendingEvents += r.collected.events.length;
        opts.progress?.(++done, total);
        if (pendingEvents >= BATCH_EVENTS || pending.length >= BATCH_SOURCES) {
          void flush().catch(() => undefined); // a failure surfaces at the final flush
          await previous;
        } else if (nearEnd()) writeSoon();
      };
      const jobOf = (p: Plan): Job => ({
        id: ++jobId,
        harness: p.harness.id,
        source: withMeta(p.src),
        resume:
          p.mode === 'append' && p.prev
            ? { offset: p.prev.resume_offset!, lines: p.prev.resume_lines ?? 0, state: p.prev.resume_state ? JSON.parse(p.prev.resume_state) : undefined }
            : null,
        // A whole document rewritten on every save is read in full, with what its last read remembered.
        prior: p.src.kind === 'json' && p.prev?.resume_state ? JSON.parse(p.prev.resume_state) : undefined,
        tmpDir: opts.tmpDir,
        knownProjects: known,
      });
      // One result is taken at a time, early ones and the others alike.
      let taking: Promise<void> = Promise.resolve();
      const take = (p: Plan, r: JobResult) => (taking = taking.then(() => accept(p, r)));
      // An early read that failed (its worker died...) is simply done again here.
      const earlyTaken = Promise.all(
        fromEarly.map(({ p, result, id }) =>
          result
            .catch(() => runJob(jobOf(p)))
            .then((r) => take(p, r))
            .finally(() => early?.release(id)),
        ),
      );
      if (pool && plans.length > 1) {
        const jobs = plans.map(jobOf);
        const byId = new Map(jobs.map((j, i) => [j.id, plans[i]!]));
        await pool.runAll(jobs, (r) => take(byId.get(r.id)!, r));
      } else {
        for (const p of plans) await take(p, await runJob(jobOf(p)));
      }
      await earlyTaken;
      await taking;
      if (pool) pool.onNearEnd = null;
      mark(`ingest: phase ${ph} extracted`);
      await flush();
      mark(`ingest: phase ${ph} written`);
      await writer.commit();
      mark(`ingest: phase ${ph} committed`);
      stats.ms.extract += performance.now() - tExtract;
    }
  } finally {
    if (early) {
      // Early reads of sources the store had unchanged: dropped, but they were read.
      early.releaseAll();
      await early.done;
      for (const e of early.jobs.values()) stats.bytesRead += await e.result.then((r) => r.bytesRead, () => 0);
    }
    // Not waited for: the workers are idle, and their isolates' teardown
    // (~5 ms on a cold run) goes on while the report is queried.
    void pool?.close().catch(() => undefined);
  }
  // The billed and kept marks and the session facts of what this ingest (or one killed before it) wrote.
  await settlePending(conn);
  mark('ingest: settled');
  for (const list of deferred.values()) result.deferred += list.length;
  // The sidecar lists the keys the store knows: rewritten only when they changed (it was 15 ms of an append run).
  const unread = new Set([...deferred.values()].flatMap((l) => l.map((x) => x.src.key)));
  const storeKeys = unread.size ? [...raw.keys()].filter((k) => !unread.has(k)) : [...raw.keys()];
  const sameKeys = result.removed === 0 && result.returned === 0 && storeKeys.length === fingerprints.size - retained.size && storeKeys.every((k) => fingerprints.has(k));
  if (opts.sidecar && !(sameKeys && !unread.size && existsSync(opts.sidecar))) writeSidecar(opts.sidecar, storeKeys, unread, horizon);
  mark('ingest: extracted and written');
  // Everything found was read, unchanged or left unread under the horizon: the next run with the
  // same digest, and a horizon no earlier (when some were left unread), has nothing to do.
  if (unreadSources === 0 && [...stamps.values()].every((st) => st !== null)) await recordSourcesDigest(conn, digest, storedDigest, result.deferred > 0 ? horizon : null);
  result.unread = unreadSources;
  return finishStats(opts, result, t0, digest);
}

/**
 * The rewrite rule for an append-only transcript (JSONL) read again from its
 * start because it shrank or changed before where the last read ended
 * (truncated, rewritten in place): the responses counted from it before
 * stay counted (the README: last month's spend does not shrink; deleting the
 * file keeps them too, as retained rows), what it holds now is counted by its
 * responses' keys (a response read before and still there is the new read's
 * row), and the change is named once, in the warnings and `sources`.
 */
async function keepCounted(conn: DuckDBConnection, p: Plan, c: Collected): Promise<Collected> {
  if (p.src.kind !== 'jsonl' || p.prev?.kind !== 'jsonl' || p.prev.resume_offset === null) return c;
  // A migration's re-read ('read again: …', store/schema.ts) replaces what an earlier build counted: nothing is kept.
  if (p.prev.fingerprint.startsWith('read again:')) return c;
  const old = await countedRowsOf(conn, p.src.key);
  if (!old.length) return c;
  const now = new Set(c.events.map((e) => `${e.harness}\0${e.dedupe_key}`));
  const kept = old.filter((e) => !now.has(`${e.harness}\0${e.dedupe_key}`));
  if (!kept.length) return c;
  const how = p.stamp.size < p.prev.resume_offset ? `truncated (${p.stamp.size} bytes; ${p.prev.resume_offset} had been read)` : 'rewritten in place (its bytes before the end of the last read changed)';
  const warning = `${p.src.path}: ${how}: ${kept.length} response${kept.length > 1 ? 's' : ''} counted before and no longer in it stay counted; what it holds now is counted by response id`;
  return { ...c, events: [...c.events, ...kept], warnings: [...c.warnings, warning] };
}

/**
 * The bookkeeping fingerprint of a source whose read failed: never equal to
 * a stamp's (those start with its size), so every run plans it again until a
 * read succeeds. (A permission fixed by chmod changes no size or mtime.)
 */
function unreadFingerprint(stamp: Stamp): string {
  return `unread|${stamp.fingerprint}`;
}

/**
 * What is written of a failed read: its warnings, each held until the source
 * is next read (as a torn tail's is: `tailWarnings`). Of a source the store
 * holds (`known`), nothing else: its rows from the last good read are kept,
 * not replaced by what a partial read found. Of a new one, what it found
 * before failing: the next read replaces it whole.
 */
function unreadResult(c: Collected, known: boolean): Collected {
  const warnings = [...c.warnings, ...c.tailWarnings];
  return known
    ? { ...c, events: [], estimates: [], contexts: [], rateLimits: [], units: new UnitColumns(), facts: [], skips: [], counts: {}, warnings: [], tailWarnings: warnings, resume: null }
    : { ...c, warnings: [], tailWarnings: warnings, resume: null };
}

function finishStats(opts: IngestOptions, result: IngestResult, t0: number, digest: string): IngestResult {
  const stats = result.stats;
  stats.ms.total = performance.now() - t0;
  stats.at.end = performance.now();
  // A source left unread is read again by the next run: no report of this one is memoized on this digest.
  setLastIngestDigest(result.unread ? null : digest);
  writeStats(opts.env, { kind: 'ingest', ...stats, unchanged: result.unchanged, appended: result.appended, rewritten: result.rewritten, removed: result.removed, retained: result.retained, deferred: result.deferred });
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

/** The projects other harnesses' responses name (Cursor resolves its chats' folders against them). */
export async function knownProjects(conn: DuckDBConnection): Promise<Set<string>> {
  const r = await conn.runAndReadAll(`SELECT DISTINCT project FROM usage_events WHERE project IS NOT NULL`);
  return new Set((r.getRowObjectsJson() as { project: string }[]).map((x) => x.project));
}
