// The ingest's side of the delta path (see delta-state.ts): before planning,
// the journal's writes go into the store (each only onto the bookkeeping it
// was read from); after the ingest, the base is brought up to date with what
// was written — from the previous base when the store's write generation
// shows nothing else touched the store since, else from the store itself.
import { UnitColumns } from '../core/unit-columns.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PriceCache } from '../pricing/cache.js';
import { mergePriceCaches } from '../pricing/cache.js';
import { committedWrites, storeIdentity, type SourceBookRow, type SourceWrite } from '../store/write.js';
import type { SourceRef } from '../harnesses/types.js';
import type { ScanDigests } from './stamp.js';
import { BookTable, keyHash, mergeKeys, readBase, readJournal, removeJournal, sortedKeys, writeBase, type BookEntry, type DeltaBase, type JournalWrite } from './delta-state.js';

export interface DeltaBaseOptions {
  dbPath: string;
  /** The pricer's answers so far (see pricing/cache.ts), or null when no pricer is at hand. */
  prices: () => PriceCache | null;
}

function bookEntry(b: SourceBookRow, tailWarned: boolean): BookEntry | null {
  if (b.kind !== 'jsonl' || b.resume_offset === null) return null;
  return {
    fingerprint: b.fingerprint,
    size: b.size,
    ino: b.ino,
    resume_offset: b.resume_offset,
    resume_lines: b.resume_lines ?? 0,
    resume_state: b.resume_state,
    tail_hash: b.tail_hash,
    tailWarned,
  };
}

export class DeltaBaseKeeper {
  /** The store's identity at the start, read only when there is a base to check it against. */
  private identity: { storeId: string | null; generation: number } | null = null;
  private writesAtStart = 0;
  private prev: DeltaBase | null = null;
  private emptyAtStart = false;
  private readonly books = new Map<string, BookEntry | null>();
  private readonly keys: number[] = [];
  private removed: string[] = [];
  /** The base's tables made ahead by prepare(), for the writes noted so far (null: made when written). */
  private prepared: { books: BookTable; keys: Float64Array } | null = null;
  private wrote = false;
  private hadJournal = false;

  constructor(private readonly conn: DuckDBConnection, private readonly opts: DeltaBaseOptions) {}

  /** Call before anything is written, with the store's fingerprints. */
  async start(fingerprints: Map<string, string>): Promise<void> {
    this.writesAtStart = committedWrites.count;
    this.prev = readBase(this.opts.dbPath);
    if (this.prev) this.identity = await storeIdentity(this.conn);
    this.emptyAtStart = fingerprints.size === 0;
  }

  /** The previous base still describes the store: same store, nothing written since it was made. */
  private prevHolds(): boolean {
    const p = this.prev;
    return p !== null && this.identity !== null && p.storeId === this.identity.storeId && p.generation === this.identity.generation;
  }

  /**
   * The journal's writes that apply to the store as it is (its bookkeeping of
   * the source is the one the delta read from), one per source, in order.
   * `fingerprints` is updated to what they leave. The journal is then spent.
   */
  journalWrites(fingerprints: Map<string, string>, sources: Map<string, SourceRef>): SourceWrite[] {
    const journal = readJournal(this.opts.dbPath);
    this.hadJournal = journal.length > 0;
    const byKey = new Map<string, { last: JournalWrite; events: JournalWrite['events']; skips: JournalWrite['skips']; counts: Record<string, number> }>();
    for (const rec of journal) {
      for (const w of rec.writes) {
        if (!sources.has(w.key) || fingerprints.get(w.key) !== w.baseFingerprint) continue;
        fingerprints.set(w.key, w.book.fingerprint);
        const m = byKey.get(w.key);
        if (!m) {
          byKey.set(w.key, { last: w, events: [...w.events], skips: [...w.skips], counts: { ...w.counts } });
          continue;
        }
        m.last = w;
        m.events.push(...w.events);
        m.skips.push(...w.skips);
        for (const [k, n] of Object.entries(w.counts)) m.counts[k] = (m.counts[k] ?? 0) + n;
      }
    }
    const out: SourceWrite[] = [];
    for (const [key, m] of byKey) {
      const b = m.last.book;
      const src = sources.get(key)!;
      out.push({
        collected: {
          source: src,
          events: m.events,
          estimates: [],
          contexts: [],
          units: new UnitColumns(),
          facts: [],
          warnings: [],
          tailWarnings: [],
          skips: m.skips,
          counts: m.counts,
          resume: { offset: b.resume_offset, lines: b.resume_lines, state: b.resume_state === null ? undefined : JSON.parse(b.resume_state) },
          failed: false,
        },
        book: {
          source_key: key,
          harness: b.harness,
          path: b.path,
          kind: b.kind,
          fingerprint: b.fingerprint,
          size: b.size,
          ino: b.ino,
          resume_offset: b.resume_offset,
          resume_lines: b.resume_lines,
          resume_state: b.resume_state,
          tail_hash: b.tail_hash,
        },
        mode: 'append',
      });
    }
    return out;
  }

  /** A source's rows were written (full or append). */
  noted(w: SourceWrite): void {
    this.wrote = true;
    this.prepared = null;
    this.books.set(w.book.source_key, bookEntry(w.book, w.collected.tailWarnings.length > 0));
    for (const e of w.collected.events) this.keys.push(keyHash(e.harness, e.dedupe_key));
  }

  noteRemoved(keys: string[]): void {
    if (keys.length) this.wrote = true;
    if (keys.length) this.prepared = null;
    this.removed.push(...keys);
  }

  /**
   * Makes the base's tables of sources and dedupe keys for the writes noted
   * so far, when they need nothing from the store (JavaScript only, ~15 ms
   * on a cold run): for the ingest to run while its commit goes on on
   * DuckDB's threads. A write noted later undoes it.
   */
  prepare(): void {
    if (this.prepared || !(this.prevHolds() || this.emptyAtStart)) return;
    this.prepared = this.tablesFrom(this.prevHolds());
  }

  /** The base's tables from the previous base (when it holds) and the writes noted. */
  private tablesFrom(fromPrev: boolean): { books: BookTable; keys: Float64Array } {
    const prev = this.prev;
    const raw: Map<string, BookEntry | string> = fromPrev ? prev!.books.raw() : new Map();
    for (const k of this.removed) raw.delete(k);
    for (const [k, b] of this.books) {
      if (b) raw.set(k, b);
      else raw.delete(k);
    }
    return { books: BookTable.from(raw), keys: fromPrev ? mergeKeys(prev!.keys, this.keys) : sortedKeys(this.keys) };
  }

  /**
   * After the ingest: what the base needs from the store (queries) now, and
   * a function that writes it (JavaScript work only) — for the caller to run
   * while the store checkpoints. Null when the base is still current.
   */
  async finish(facts: ScanDigests, fps: Map<string, string>, deferred = 0): Promise<(() => void) | null> {
    const digest = facts.digest;
    const prices = this.opts.prices();
    const prev = this.prev;
    const fromPrev = this.prevHolds();
    if (fromPrev && !this.wrote && prev!.digest === digest && (prev!.deferred ?? 0) === deferred && (prices === null || prev!.prices?.fingerprint === prices.fingerprint)) {
      if (this.hadJournal) removeJournal(this.opts.dbPath);
      return null;
    }
    // The store is open in this process alone: its generation now is the one
    // at the start plus this process's commits (no query, when it was read).
    const identity = this.identity?.storeId
      ? { storeId: this.identity.storeId, generation: this.identity.generation + committedWrites.count - this.writesAtStart }
      : await storeIdentity(this.conn);
    if (identity.storeId === null) return null; // never written: nothing to describe
    const storeId = identity.storeId;
    const stored = fromPrev || this.emptyAtStart ? null : await this.fromStore();
    return () => {
      const { books, keys } = stored ?? this.prepared ?? this.tablesFrom(fromPrev);
      writeBase(this.opts.dbPath, {
        v: 1,
        storeId,
        generation: identity.generation,
        digest,
        shape: facts.shape(),
        fps: facts.keys.map((k) => fps.get(k) ?? 'missing'),
        books,
        prices: prices ? mergePriceCaches(prev?.prices ?? null, prices) : prev?.prices ?? null,
        deferred,
        keys,
      });
      // Written after the base: a journal left behind holds writes the store
      // now has, which the next ingest would skip anyway (their bookkeeping moved on).
      if (this.hadJournal) removeJournal(this.opts.dbPath);
    };
  }

  private async fromStore(): Promise<{ books: BookTable; keys: Float64Array }> {
    const r = await this.conn.runAndReadAll(`
      SELECT s.source_key, s.harness, s.path, s.kind, s.fingerprint, s.size, s.ino, s.resume_offset, s.resume_lines, s.resume_state, s.tail_hash,
             EXISTS (SELECT 1 FROM source_issues i WHERE i.source_key = s.source_key AND i.kind = 'warning-tail') AS tail_warned
      FROM sources s WHERE s.kind = 'jsonl' AND s.resume_offset IS NOT NULL`);
    const entries: [string, BookEntry][] = [];
    for (const row of r.getRowObjectsJson() as any[]) {
      const b = bookEntry({ ...row, size: Number(row.size), resume_offset: Number(row.resume_offset), resume_lines: row.resume_lines === null ? null : Number(row.resume_lines) }, row.tail_warned === true);
      if (b) entries.push([row.source_key, b]);
    }
    const books = BookTable.from(entries);
    const k = await this.conn.runAndReadAll(`SELECT harness, dedupe_key FROM usage_events`);
    const [hs = [], ks = []] = k.getColumns() as [string[]?, string[]?];
    const hashes: number[] = new Array(hs.length);
    for (let i = 0; i < hs.length; i++) hashes[i] = keyHash(hs[i]!, ks[i]!);
    return { books, keys: sortedKeys(hashes) };
  }
}
