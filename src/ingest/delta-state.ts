// What the delta path (cli/delta.ts) needs to answer a report after a few
// appends WITHOUT opening the store, kept in two files beside it:
//
// - the base (`<db>.delta`), written after an ingest: the digest of the
//   sources the store then reflected, every source's fingerprint, the resume
//   bookkeeping of the append-only JSONL sources, the hashes of every dedupe
//   key in the store, and the pricer's answers (pricing/cache.ts);
// - the journal (`<db>.journal`): one line per delta run, with the events it
//   read from the appended bytes and the bookkeeping it advanced, chained by
//   digest (from → to). The next ingest writes these into the store (each only
//   if the store's row for the source is still the one the delta started
//   from), so appended bytes are read once.
//
// Nothing here is trusted beyond what it can prove: a journal whose chain
// does not start at the base's digest, a base of another store, a torn line,
// all mean "take the full path".
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import type { UsageEvent } from '../core/types.js';
import { parseWithBigInt, stringifyWithBigInt, type PriceCache } from '../pricing/cache.js';
import type { SkipTally } from './collect.js';

/** The resume bookkeeping of one append-only JSONL source (the store's `sources` row, trimmed). */
export interface BookEntry {
  fingerprint: string;
  size: number;
  ino: string | null;
  resume_offset: number;
  resume_lines: number;
  resume_state: string | null;
  tail_hash: string | null;
  /** The store holds a torn-tail warning for the source (a resume would drop it: the report changes). */
  tailWarned: boolean;
}

export interface DeltaBase {
  v: 1;
  /** The store this base describes (meta store_id) and its write generation then. */
  storeId: string;
  generation: number;
  /** Digests (stamp.ts scanDigests) of the sources the store reflected: with and without their fingerprints. */
  digest: string;
  shape: string;
  /** Every source's raw fingerprint, in the order of the shape's keys (short, unlike the keys). */
  fps: string[];
  /** Resumable sources (plain JSONL with a resume point), looked up one by one (see BookTable). */
  books: BookTable;
  prices: PriceCache | null;
  /**
   * Sources the store has not read (left for later under a report's horizon,
   * see horizon.ts); absent in bases written before there were any.
   */
  deferred?: number;
  /** Sorted hashes (keyHash) of every (harness, dedupe key) in the store: a superset is safe, a missing key is not. */
  keys: Float64Array;
}

/** One source's appended bytes as a delta run read them. */
export interface JournalWrite {
  key: string;
  /** The fingerprint of the bookkeeping the read started from: applied only onto that. */
  baseFingerprint: string;
  book: BookEntry & { harness: string; path: string; kind: string };
  events: UsageEvent[];
  skips: SkipTally[];
  counts: Record<string, number>;
}

export interface JournalRecord {
  from: string;
  to: string;
  writes: JournalWrite[];
}

/** Beside the store; src/store/store.ts removes both with it. */
const basePath = (dbPath: string) => `${dbPath}.delta`;
const journalPath = (dbPath: string) => `${dbPath}.journal`;

const MAGIC = 0x33445854; // "TXD3"

/** Characters of a dedupe key that keyHash reads: its end, where every harness's keys differ (ids, totals, times). */
const KEY_TAIL = 32;

/**
 * 53-bit hash (cyrb53) of a harness, a dedupe key's length and its last
 * KEY_TAIL characters. Two keys that hash alike only make the delta path give
 * way to the full one, never miscount; reading the tail alone keeps a cold
 * ingest, which hashes every key once, about three times cheaper.
 */
export function keyHash(harness: string, key: string): number {
  let h1 = 0xdeadbeef ^ key.length;
  let h2 = 0x41c6ce57 ^ key.length;
  for (let i = 0; i < harness.length; i++) {
    const ch = harness.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  for (let i = Math.max(0, key.length - KEY_TAIL); i < key.length; i++) {
    const ch = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Sorted, without repeats. */
export function sortedKeys(hashes: ArrayLike<number>): Float64Array {
  const a = Float64Array.from(hashes).sort();
  let n = 0;
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[n - 1]) a[n++] = a[i]!;
  return a.slice(0, n);
}

export function mergeKeys(a: Float64Array, more: number[]): Float64Array {
  if (!more.length) return a;
  const all = new Float64Array(a.length + more.length);
  all.set(a);
  all.set(more, a.length);
  return sortedKeys(all);
}

export function hasKey(keys: Float64Array, h: number): boolean {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = keys[mid]!;
    if (v === h) return true;
    if (v < h) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** A book entry as the text after its key: the bookkeeping as JSON (written field by field: thousands per cold run), a tab, the resume state. */
function bookValue(b: BookEntry): string {
  const str = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));
  return (
    `{"fingerprint":${str(b.fingerprint)},"size":${b.size},"ino":${str(b.ino)},"resume_offset":${b.resume_offset},` +
    `"resume_lines":${b.resume_lines},"tail_hash":${str(b.tail_hash)},"tailWarned":${b.tailWarned}}\t${b.resume_state ?? 'null'}`
  );
}

/** The index's hash of a source key (its end, where paths differ: a collision only costs a line read). */
const bookHash = (key: string) => keyHash('', key);

/**
 * The bookkeeping of every resumable source, as lines of
 * `"key"<TAB>{bookkeeping}<TAB>resume state` (all JSON) with an index of (hash of key, byte offset of line) pairs sorted by hash:
 * a delta run needs a handful of them, so it reads just those lines instead
 * of decoding megabytes of Codex resume states.
 */
export class BookTable {
  constructor(
    private readonly lines: Buffer,
    private readonly index: Float64Array,
  ) {}

  static from(entries: Iterable<[string, BookEntry | string]>): BookTable {
    let text = '';
    const pairs: [number, number][] = [];
    let at = 0;
    for (const [k, b] of entries) {
      // The resume state is JSON already: kept as it is, not escaped into a string again.
      const value = typeof b === 'string' ? b : bookValue(b);
      const line = `${JSON.stringify(k)}\t${value}\n`;
      pairs.push([bookHash(k), at]);
      text += line;
      at += Buffer.byteLength(line);
    }
    pairs.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    return new BookTable(Buffer.from(text, 'utf8'), Float64Array.from(pairs.flat()));
  }

  private lineAt(offset: number): [string, string] {
    const end = this.lines.indexOf(10, offset);
    const line = this.lines.toString('utf8', offset, end < 0 ? this.lines.length : end);
    const tab = line.indexOf('\t');
    return [JSON.parse(line.slice(0, tab)) as string, line.slice(tab + 1)];
  }

  get(key: string): BookEntry | undefined {
    const h = bookHash(key);
    const n = this.index.length / 2;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.index[2 * mid]! < h) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < n && this.index[2 * i] === h; i++) {
      const [k, value] = this.lineAt(this.index[2 * i + 1]!);
      if (k !== key) continue;
      const tab = value.indexOf('\t');
      const state = value.slice(tab + 1);
      return { ...(JSON.parse(value.slice(0, tab)) as BookEntry), resume_state: state === 'null' ? null : state };
    }
    return undefined;
  }

  /** Every entry, its value still as text (as from() takes it back). */
  raw(): Map<string, string> {
    const out = new Map<string, string>();
    for (const line of this.lines.toString('utf8').split('\n')) {
      if (!line) continue;
      const tab = line.indexOf('\t');
      out.set(JSON.parse(line.slice(0, tab)) as string, line.slice(tab + 1));
    }
    return out;
  }

  get bytes(): { lines: Buffer; index: Float64Array } {
    return { lines: this.lines, index: this.index };
  }
}

/**
 * Layout: magic, then the byte length of the header JSON, the number of key
 * hashes, the number of book index entries and the byte length of the book
 * lines (u32 each); the header (UTF-8), zero padding to 8 bytes, the key
 * hashes and the book index (float64), the book lines (UTF-8).
 */
export function writeBase(dbPath: string, base: DeltaBase): void {
  const { keys, books, ...rest } = base;
  const json = Buffer.from(stringifyWithBigInt(rest), 'utf8');
  const { lines, index } = books.bytes;
  const head = 20 + json.length;
  const pad = (8 - (head % 8)) % 8;
  const out = Buffer.alloc(head + pad + keys.length * 8 + index.length * 8 + lines.length);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(json.length, 4);
  out.writeUInt32LE(keys.length, 8);
  out.writeUInt32LE(index.length, 12);
  out.writeUInt32LE(lines.length, 16);
  json.copy(out, 20);
  let at = head + pad;
  for (const a of [keys, index]) {
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).copy(out, at);
    at += a.byteLength;
  }
  lines.copy(out, at);
  const path = basePath(dbPath);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, out);
    renameSync(tmp, path);
  } catch {
    rmSync(tmp, { force: true });
    /* only costs the delta path */
  }
}

/** A copy into an aligned array of its own (a file's buffer may sit at any offset of a pool). */
function float64s(buf: Buffer, at: number, count: number): Float64Array {
  const a = new Float64Array(count);
  Buffer.from(a.buffer).set(buf.subarray(at, at + count * 8));
  return a;
}

export function readBase(dbPath: string): DeltaBase | null {
  let buf: Buffer;
  try {
    buf = readFileSync(basePath(dbPath));
  } catch {
    return null;
  }
  try {
    if (buf.length < 20 || buf.readUInt32LE(0) !== MAGIC) return null;
    const jsonLen = buf.readUInt32LE(4);
    const keyCount = buf.readUInt32LE(8);
    const indexCount = buf.readUInt32LE(12);
    const linesLen = buf.readUInt32LE(16);
    const head = 20 + jsonLen;
    const keysAt = head + ((8 - (head % 8)) % 8);
    const indexAt = keysAt + keyCount * 8;
    const linesAt = indexAt + indexCount * 8;
    if (linesAt + linesLen !== buf.length) return null;
    const rest = parseWithBigInt(buf.toString('utf8', 20, head)) as Omit<DeltaBase, 'keys' | 'books'>;
    if (rest.v !== 1) return null;
    return { ...rest, keys: float64s(buf, keysAt, keyCount), books: new BookTable(buf.subarray(linesAt), float64s(buf, indexAt, indexCount)) };
  } catch {
    return null;
  }
}

/**
 * The journal's records. A line that cannot be read (a delta run killed
 * while writing it) is passed over: that run's memo entry was never saved,
 * and the next run wrote its record from the state before it.
 */
export function readJournal(dbPath: string): JournalRecord[] {
  const path = journalPath(dbPath);
  if (!existsSync(path)) return [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const out: JournalRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const r = JSON.parse(line) as JournalRecord;
      if (typeof r.from === 'string' && typeof r.to === 'string' && Array.isArray(r.writes)) out.push(r);
    } catch {
      /* torn: see above */
    }
  }
  return out;
}

/** Appends one record as one line (a single write in append mode), on a line of its own after a torn one. */
export function appendJournal(dbPath: string, rec: JournalRecord): boolean {
  try {
    const fd = openSync(journalPath(dbPath), 'a+', 0o600);
    try {
      const size = fstatSync(fd).size;
      const last = Buffer.alloc(1);
      const torn = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 10;
      writeSync(fd, (torn ? '\n' : '') + JSON.stringify(rec) + '\n');
    } finally {
      closeSync(fd);
    }
    return true;
  } catch {
    return false;
  }
}

export function removeJournal(dbPath: string): void {
  rmSync(journalPath(dbPath), { force: true });
}

/** The state a delta starts from: the base with the journal's records applied in order. */
export interface VirtualState {
  digest: string;
  /** Fingerprints in the order of `keys` (the shape's). */
  fps: string[];
  /** The bookkeeping of a resumable source: the journal's latest, else the base's. */
  book(key: string): BookEntry | undefined;
  /**
   * The states of the chain: digests[0] is the base's, and the journal's
   * i-th record took digests[i] to digests[i + 1] with `journalEvents` whose
   * `record` is i.
   */
  digests: string[];
  journalEvents: { event: UsageEvent; record: number }[];
}

/**
 * `keys`: the source keys in the base's order (the caller checked the shape).
 * Null when the journal's chain does not start at the base or breaks.
 */
export function virtualState(base: DeltaBase, journal: JournalRecord[], keys: string[]): VirtualState | null {
  if (keys.length !== base.fps.length) return null;
  const fps = [...base.fps];
  const index = journal.length ? new Map(keys.map((k, i) => [k, i])) : null;
  const books = new Map<string, BookEntry>();
  let digest = base.digest;
  const digests = [digest];
  for (const r of journal) {
    if (r.from !== digest) return null;
    for (const w of r.writes) {
      const i = index!.get(w.key);
      if (i === undefined) return null;
      fps[i] = w.book.fingerprint;
      books.set(w.key, w.book);
    }
    digest = r.to;
    digests.push(digest);
  }
  const journalEvents = journal.flatMap((r, record) => r.writes.flatMap((w) => w.events.map((event) => ({ event, record }))));
  return { digest, fps, book: (k) => books.get(k) ?? base.books.get(k), digests, journalEvents };
}
