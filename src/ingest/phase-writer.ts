// Writing a phase's results as they come: each result becomes its source's
// write (rows and bookkeeping, store/write.ts SourceWrite), gathered into
// batches written one after another while extraction goes on, all in
// transactions the BatchWriter commits every COMMIT_EVERY_MS and at the end
// of the phase. A full batch waits only for the write before the previous
// one, so at most two batches are held besides the one being filled.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { HarnessId } from '../core/types.js';
import { countedRowsOf } from '../store/counted-rows.js';
import { mark } from '../core/trace.js';
import { UnitColumns } from '../core/unit-columns.js';
import { BatchWriter, type CostFn, type SourceBookRow, type SourceWrite } from '../store/write.js';
import type { Collected } from './collect.js';
import type { JobResult } from './job.js';
import type { Plan } from './plan.js';
import type { ExtractPool } from './pool.js';
import type { Stamp } from './stamp.js';
import { PackedCollected } from './transport.js';

/**
 * A batch is written once it holds this many responses or sources. A result
 * waiting in a batch outlives the young generation's collections and is
 * promoted, so every result held costs old-generation garbage that V8 only
 * collects once that space has grown to a multiple of what is live: with
 * 2 000 sources a batch, a first ingest of 100k small files grew this
 * thread's heap to ~300 MB for ~130 MB live; with 200, ~175 MB (issue 47).
 * Results held at once (the batch being filled and the two being written)
 * are at most 3 × BATCH_SOURCES, whatever the number of sources (peakHeldResults).
 */
const BATCH_EVENTS = 5_000;
export const BATCH_SOURCES = 200;
/** Batches go into one transaction, committed when it has been open this long and at the end of each phase (see BatchWriter). */
const COMMIT_EVERY_MS = 2_000;

/** What the ingest counts as results are written. */
export interface WriteTally {
  appended: number;
  rewritten: number;
  /** Sources whose read failed this run (permission denied…). */
  unread: number;
  events: number;
  bytesRead: number;
  peakHeldBytes: number;
  /** Most sources' results held at once, waiting in a batch or being written (bounded by design: BATCH_SOURCES). */
  peakHeldResults: number;
}

export interface PhaseWriterOptions {
  cost: CostFn;
  /** Told of every source's write as it goes to the store (the live views). */
  onWrite?: (w: SourceWrite) => void;
  /** Told once per source written. */
  onSource?: () => void;
  /** The report's horizon (horizon.ts) and the harnesses whose copies it has seen at or after it. */
  horizon: number | null;
  copiesSeen: Set<HarnessId>;
}

export class PhaseWriter {
  private readonly writer: BatchWriter;
  private pending: SourceWrite[] = [];
  private pendingEvents = 0;
  private writing: Promise<void> = Promise.resolve();
  private previous: Promise<void> = Promise.resolve();
  private flushSoon = false;
  private pool: ExtractPool | null = null;
  /** Sources' results taken and not yet written. */
  private held = 0;

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly o: PhaseWriterOptions,
    private readonly tally: WriteTally,
  ) {
    // Marks and session facts are settled once, after the last phase (store/write.ts settlePending).
    this.writer = new BatchWriter(conn, o.cost, COMMIT_EVERY_MS, true);
  }

  /**
   * Near the end of the pool's jobs, results are written as they come
   * instead of in batches: the last batch would otherwise be written after
   * the workers have finished, on the run's tail. Results taken in one turn
   * of the event loop (a backlog) go together.
   */
  watch(pool: ExtractPool): void {
    this.pool = pool;
    pool.onNearEnd = () => {
      mark('ingest: near the end of the jobs');
      this.writeSoon();
    };
  }

  private writeSoon(): void {
    if (this.flushSoon) return;
    this.flushSoon = true;
    setImmediate(() => {
      this.flushSoon = false;
      if (this.pending.length) void this.flush().catch(() => undefined); // a failure surfaces at the final flush
    });
  }

  private flush(): Promise<void> {
    const b = this.pending;
    this.pending = [];
    this.pendingEvents = 0;
    this.previous = this.writing;
    if (b.length) this.writing = this.writing.then(() => this.writer.write(b)).then(() => void (this.held -= b.length));
    return this.writing;
  }

  /** Takes a result: its source's write joins the batch; a full batch is written (waiting for the write before the previous one). */
  async accept(p: Plan, r: JobResult): Promise<void> {
    if (!r.collected.failed && p.mode === 'full' && p.prev !== null)
      r = { ...r, collected: await keepCounted(this.conn, p, r.collected) };
    const t = this.tally;
    t.bytesRead += r.bytesRead;
    t.peakHeldBytes = Math.max(t.peakHeldBytes, r.peakHeldBytes ?? 0);
    if (r.collected.failed) t.unread++;
    if (p.mode === 'append') t.appended++;
    else t.rewritten++;
    const write = sourceWrite(p, r);
    const events = eventCount(write.collected);
    t.events += events;
    // A copy dated before the horizon has its original there too (a copy is made after it): no report window holds either.
    const h = p.harness;
    if (
      this.o.horizon !== null &&
      h.rankMarksCopies &&
      !this.o.copiesSeen.has(h.id) &&
      hasCopy(write.collected, h.copyRankFrom ?? 1, this.o.horizon)
    )
      this.o.copiesSeen.add(h.id);
    this.o.onWrite?.(write);
    this.pending.push(write);
    t.peakHeldResults = Math.max(t.peakHeldResults, ++this.held);
    this.pendingEvents += events;
    this.o.onSource?.();
    if (this.pendingEvents >= BATCH_EVENTS || this.pending.length >= BATCH_SOURCES) {
      void this.flush().catch(() => undefined); // a failure surfaces at the final flush
      await this.previous;
    } else if (this.pool?.nearEnd) this.writeSoon();
  }

  /** Writes what is left and commits. */
  async finish(): Promise<void> {
    if (this.pool) this.pool.onNearEnd = null;
    await this.flush();
    mark('ingest: phase written');
    await this.writer.commit();
    mark('ingest: phase committed');
  }
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
  const plain = c instanceof PackedCollected ? c.plain() : c;
  const now = new Set(plain.events.map((e) => `${e.harness}\0${e.dedupe_key}`));
  const kept = old.filter((e) => !now.has(`${e.harness}\0${e.dedupe_key}`));
  if (!kept.length) return c;
  const how =
    p.stamp.size < p.prev.resume_offset
      ? `truncated (${p.stamp.size} bytes; ${p.prev.resume_offset} had been read)`
      : 'rewritten in place (its bytes before the end of the last read changed)';
  const warning = `${p.src.path}: ${how}: ${kept.length} response${kept.length > 1 ? 's' : ''} counted before and no longer in it stay counted; what it holds now is counted by response id`;
  return { ...plain, events: [...plain.events, ...kept], warnings: [...plain.warnings, warning] };
}

/** Responses in a result (without making them objects when packed). */
function eventCount(c: Collected): number {
  return c instanceof PackedCollected ? c.eventCount : c.events.length;
}

/** Whether a result holds a copy (dedupe_rank >= rankFrom) dated at or after `horizon`. */
function hasCopy(c: Collected, rankFrom: number, horizon: number): boolean {
  if (c instanceof PackedCollected) return c.someEvent((rank, ts) => rank >= rankFrom && ts >= horizon);
  return c.events.some((e) => e.dedupe_rank >= rankFrom && e.ts >= horizon);
}

/** The write of a source's result: its rows, and the bookkeeping that says what was read. */
function sourceWrite(p: Plan, r: JobResult): SourceWrite {
  const c = r.collected.failed ? unreadResult(r.collected, p.prev !== null) : r.collected;
  const rp = c.resume;
  const book: SourceBookRow = {
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
  if (!r.collected.failed) return { collected: c, book, mode: p.mode, fresh: p.prev === null };
  // A source that could not be read: tried again next run (its bookkeeping
  // never matches a stamp), and what the store held of it is kept meanwhile
  // (its rows and resume point, as an append of nothing), with the failure
  // as its warning until it is read.
  return p.prev
    ? { collected: c, book: { ...p.prev, fingerprint: unreadFingerprint(p.stamp) }, mode: 'append', fresh: false }
    : {
        collected: c,
        book: {
          ...book,
          fingerprint: unreadFingerprint(p.stamp),
          resume_offset: null,
          resume_lines: null,
          resume_state: null,
          tail_hash: null,
        },
        mode: p.mode,
        fresh: true,
      };
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
  if (c instanceof PackedCollected) {
    return known
      ? c.withoutRows({
          estimates: [],
          contexts: [],
          rateLimits: [],
          facts: [],
          skips: [],
          counts: {},
          warnings: [],
          tailWarnings: warnings,
          resume: null,
        })
      : c.with({ warnings: [], tailWarnings: warnings, resume: null });
  }
  return known
    ? {
        ...c,
        events: [],
        estimates: [],
        contexts: [],
        rateLimits: [],
        units: new UnitColumns(),
        facts: [],
        skips: [],
        counts: {},
        warnings: [],
        tailWarnings: warnings,
        resume: null,
      }
    : { ...c, warnings: [], tailWarnings: warnings, resume: null };
}
