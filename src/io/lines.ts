// Splits a byte stream into lines and hands on only the lines that contain one
// of the harness's usage markers. Lines without a marker are never decoded or
// JSON-parsed, which is what keeps multi-megabyte base64 image lines cheap.

import { MarkerScan, SCAN_CAPACITY } from './marker-scan.js';

export interface LineHandler {
  /** Called for each complete line containing a marker. `line` is 1-based. */
  (text: string, line: number): void;
}

export interface SplitResult {
  /** Byte offset (relative to the start of the stream plus `baseOffset`) just past the last consumed line. */
  offset: number;
  /** Lines consumed in total, including `baseLines`. */
  lines: number;
  /** An unterminated, unparsable final fragment was left unconsumed. */
  tornTail: { line: number; bytes: number } | null;
  /** Lines passed over because they were longer than maxLineBytes. */
  oversized: { line: number; bytes: number }[];
}

export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/**
 * Optional cheap look at lines WITHOUT a marker: the first and the last
 * `bytes` bytes of each such line (decoded; a multi-byte character cut at the
 * edge may decode as U+FFFD; a short line is both head and tail). Lets a
 * harness read an envelope (ids, parent links) at either end of a line without
 * decoding or parsing the whole line.
 */
export interface UnmarkedPeek {
  bytes: number;
  onPeek: (head: string, tail: string, line: number) => void;
}

/**
 * Optional byte-level look at lines WITHOUT a marker: a view of the first
 * `bytes` bytes of each (buf[start, end), valid during the call, never
 * decoded). Lets a harness count records by a few byte comparisons at a
 * known place (e.g. a record type right after a fixed-width envelope) without
 * decoding or parsing the line. Returning true hands the whole line to the
 * line handler as if it held a marker (for a small record the harness must
 * read, e.g. a session title).
 */
export interface UnmarkedHead {
  bytes: number;
  check: (buf: Buffer, start: number, end: number, line: number) => boolean;
}

/**
 * Re-reads `length` bytes at absolute `offset` of the input. Given by readers
 * of seekable files: a long line is then not held in memory while it has no
 * marker, and read again only if a marker turns up at its end.
 */
export type Reread = (offset: number, length: number) => Buffer;

/**
 * A pending line without a marker is held up to this many bytes; past it
 * (with a Reread) only its edges are kept. Small: each held part is a copy
 * into fresh memory, and at 1 MB the copies of base64 image lines (read a
 * megabyte at a time, so one cut per chunk) cost ~9% of a cold run's
 * extraction CPU (benchmark corpus, one thread: 553 -> 505 ms), most of it
 * page faults. A line that turns out to have a marker is read again whole.
 */
const HOLD_UNMARKED_BYTES = 64 << 10;

/** A copy of the first `n` bytes of `parts` (all of them when shorter). */
function firstBytes(parts: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let have = 0;
  for (const p of parts) {
    if (have >= n) break;
    const piece = p.subarray(0, n - have);
    out.push(piece);
    have += piece.length;
  }
  return Buffer.concat(out);
}

export class LineSplitter {
  private readonly markers: Buffer[];
  private readonly scanner: MarkerScan;
  /** Bytes of context kept across chunk edges, so a marker cut in two is still found. */
  private readonly overlap: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingHasMarker = false;
  private discarding = false;
  /** The pending line's bytes were let go (see Reread); its edges are in head/edge. */
  private dropped = false;
  /** First bytes of a dropped line (for unmarkedPeek). */
  private head: Buffer | null = null;
  /** Last bytes of the pending line seen so far (marker overlap, unmarkedPeek tail). */
  private edge: Buffer = Buffer.alloc(0);
  private readonly edgeBytes: number;
  /** Bytes kept of the start of a dropped line (for unmarkedPeek and unmarkedHead). */
  private readonly headBytes: number;
  private offset: number;
  private lines: number;
  private readonly oversized: { line: number; bytes: number }[] = [];
  /** Most bytes held at once for an unfinished line (the memory a long line costs). */
  peakHeldBytes = 0;

  constructor(
    markers: readonly string[],
    private readonly onLine: LineHandler,
    base: { offset: number; lines: number } = { offset: 0, lines: 0 },
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
    private readonly unmarked: UnmarkedPeek | null = null,
    private readonly reread: Reread | null = null,
    private readonly unmarkedHead: UnmarkedHead | null = null,
  ) {
    this.markers = markers.map((m) => Buffer.from(m, 'utf8'));
    this.headBytes = Math.max(unmarked?.bytes ?? 0, unmarkedHead?.bytes ?? 0);
    this.scanner = new MarkerScan(this.markers);
    this.overlap = Math.max(64, ...this.markers.map((m) => m.length));
    this.edgeBytes = Math.max(this.overlap, unmarked?.bytes ?? 0);
    this.offset = base.offset;
    this.lines = base.lines;
  }

  private hasMarker(buf: Buffer): boolean {
    if (this.markers.length === 0) return true;
    for (const m of this.markers) if (buf.indexOf(m) !== -1) return true;
    return false;
  }

  /** A marker cut between the end of the held line and the start of `part` (the scan finds those inside `part`). */
  private markerAcross(part: Buffer): boolean {
    if (this.markers.length === 0) return true;
    if (!this.edge.length) return false;
    const prevTail = this.edge.subarray(-this.overlap);
    return this.hasMarker(Buffer.concat([prevTail, part.subarray(0, this.overlap)]));
  }

  private keepEdge(part: Buffer): void {
    if (part.length >= this.edgeBytes) this.edge = Buffer.from(part.subarray(part.length - this.edgeBytes));
    else this.edge = Buffer.concat([this.edge, part]).subarray(-this.edgeBytes);
  }

  push(chunk: Buffer): void {
    if (chunk.length > SCAN_CAPACITY) {
      for (let at = 0; at < chunk.length; at += SCAN_CAPACITY) this.push(chunk.subarray(at, at + SCAN_CAPACITY));
      return;
    }
    // Newlines and per-line markers in one pass (WebAssembly SIMD, see marker-scan.ts).
    const scan = this.scanner.scan(chunk);
    let start = 0;
    for (let k = 0; k < scan.count; k++) {
      const nl = scan.ends[k]!;
      const marked = scan.flags[k] === 1;
      if (this.pendingBytes > 0 || this.discarding || this.pending.length)
        this.finishLine(chunk.subarray(start, nl), nl - start + 1, marked);
      else this.finishWhole(chunk, start, nl, marked);
      start = nl + 1;
    }
    if (start < chunk.length) this.addPending(chunk.subarray(start), scan.tail);
  }

  /**
   * A buffer in the scanner's memory that a reader may fill and hand to
   * push() without a copy (null: any buffer). Overwritten by the next push.
   */
  readBuffer(): Buffer | null {
    return this.scanner.readBuffer();
  }

  /** A line entirely inside `chunk`: [start, nl). */
  private finishWhole(chunk: Buffer, start: number, nl: number, marked: boolean): void {
    const lineNo = this.lines + 1;
    this.offset += nl - start + 1;
    this.lines = lineNo;
    if (
      marked ||
      (this.unmarkedHead !== null &&
        this.unmarkedHead.check(chunk, start, Math.min(nl, start + this.unmarkedHead.bytes), lineNo))
    ) {
      let text = chunk.toString('utf8', start, nl);
      if (text.endsWith('\r')) text = text.slice(0, -1);
      if (text.length) this.onLine(text, lineNo);
    } else if (this.unmarked) {
      this.peek([chunk.subarray(start, nl)], lineNo);
    }
  }

  /** unmarkedHead's answer for a line held as parts (its first bytes copied together). */
  private headWants(parts: Buffer[], line: number): boolean {
    if (this.unmarkedHead === null) return false;
    const head = firstBytes(parts, this.unmarkedHead.bytes);
    return this.unmarkedHead.check(head, 0, head.length, line);
  }

  /** `inPart`: the scan found a marker entirely inside `part`. */
  private addPending(part: Buffer, inPart: boolean): void {
    if (this.discarding) {
      this.pendingBytes += part.length;
      return;
    }
    if (!this.pendingHasMarker) this.pendingHasMarker = inPart || this.markerAcross(part);
    this.keepEdge(part);
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) {
      this.discarding = true;
      this.pending = [];
      this.dropped = false;
      this.head = null;
      return;
    }
    if (this.dropped) return;
    if (
      this.reread &&
      !this.pendingHasMarker &&
      this.pendingBytes > HOLD_UNMARKED_BYTES &&
      this.edgeBytes * 2 < HOLD_UNMARKED_BYTES
    ) {
      // A long line without a marker so far (a base64 image): keep only its
      // edges; should a marker follow, the line is read again whole.
      if (this.headBytes > 0) this.head = firstBytes([...this.pending, part], this.headBytes);
      this.pending = [];
      this.dropped = true;
      return;
    }
    this.pending.push(Buffer.from(part)); // copy: the chunk buffer may be reused by the reader
    const held = this.pendingBytes;
    if (held > this.peakHeldBytes) this.peakHeldBytes = held;
  }

  /** The held line's bytes before the current part: from memory, or read again. */
  private heldBytes(): Buffer[] {
    if (!this.dropped) return this.pending;
    const whole = this.reread!(this.offset, this.pendingBytes);
    if (whole.length > this.peakHeldBytes) this.peakHeldBytes = whole.length;
    return [whole];
  }

  /** Hands the first and last `unmarked.bytes` bytes of a line held as parts to the peek callback. */
  private peek(parts: Buffer[], line: number): void {
    const want = this.unmarked!.bytes;
    const tail: Buffer[] = [];
    let have = 0;
    for (let i = parts.length - 1; i >= 0 && have < want; i--) {
      const p = parts[i]!;
      const piece = p.subarray(Math.max(0, p.length - (want - have)));
      tail.unshift(piece);
      have += piece.length;
    }
    let t = Buffer.concat(tail).toString('utf8');
    if (t.endsWith('\r')) t = t.slice(0, -1);
    const h = firstBytes(parts, want).toString('utf8');
    if (t.length) this.unmarked!.onPeek(h, t, line);
  }

  private resetPending(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingHasMarker = false;
    this.discarding = false;
    this.dropped = false;
    this.head = null;
    this.edge = Buffer.alloc(0);
  }

  /** The end of a line that began in an earlier chunk. */
  private finishLine(tail: Buffer, consumed: number, inTail: boolean): void {
    const lineNo = this.lines + 1;
    let text: string | null = null;
    let peekParts: Buffer[] | null = null;
    const bytes = tail.length + this.pendingBytes;
    if (this.discarding || bytes > this.maxLineBytes) {
      this.oversized.push({ line: lineNo, bytes });
    } else {
      const marked =
        this.pendingHasMarker ||
        inTail ||
        this.markerAcross(tail) ||
        this.headWants(this.dropped ? [this.head!] : [...this.pending, tail], lineNo);
      if (marked) text = Buffer.concat([...this.heldBytes(), tail]).toString('utf8');
      else if (this.unmarked) peekParts = this.dropped ? [this.head!, this.edge, tail] : [...this.pending, tail];
    }
    this.offset += this.pendingBytes;
    this.resetPending();
    this.offset += consumed;
    this.lines = lineNo;
    if (text !== null) {
      if (text.endsWith('\r')) text = text.slice(0, -1);
      if (text.length) this.onLine(text, lineNo);
    } else if (peekParts !== null) {
      this.peek(peekParts, lineNo);
    }
  }

  /**
   * End of input. An unterminated final fragment is consumed only when it is a
   * complete JSON value (some writers omit the last newline); otherwise it is a
   * torn write, left unconsumed so that a later, longer read picks it up whole.
   */
  end(): SplitResult {
    let tornTail: SplitResult['tornTail'] = null;
    if (this.pendingBytes > 0) {
      const lineNo = this.lines + 1;
      if (this.discarding) {
        tornTail = { line: lineNo, bytes: this.pendingBytes };
      } else {
        const parts = this.heldBytes();
        const text = Buffer.concat(parts).toString('utf8');
        let complete = false;
        try {
          JSON.parse(text);
          complete = true;
        } catch {
          complete = false;
        }
        if (complete) {
          this.offset += this.pendingBytes;
          this.lines = lineNo;
          if (this.pendingHasMarker || this.headWants(parts, lineNo)) this.onLine(text, lineNo);
          else if (this.unmarked) this.peek(parts, lineNo);
        } else {
          tornTail = { line: lineNo, bytes: this.pendingBytes };
        }
      }
      this.resetPending();
    }
    return { offset: this.offset, lines: this.lines, tornTail, oversized: this.oversized };
  }
}
