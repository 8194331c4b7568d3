// Splits a byte stream into lines and hands on only the lines that contain one
// of the harness's usage markers. Lines without a marker are never decoded or
// JSON-parsed, which is what keeps multi-megabyte base64 image lines cheap.

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

export class LineSplitter {
  private readonly markers: Buffer[];
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingHasMarker = false;
  private discarding = false;
  private offset: number;
  private lines: number;
  private readonly oversized: { line: number; bytes: number }[] = [];

  constructor(
    markers: readonly string[],
    private readonly onLine: LineHandler,
    base: { offset: number; lines: number } = { offset: 0, lines: 0 },
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
    private readonly unmarked: UnmarkedPeek | null = null,
  ) {
    this.markers = markers.map((m) => Buffer.from(m, 'utf8'));
    this.offset = base.offset;
    this.lines = base.lines;
  }

  private hasMarker(buf: Buffer): boolean {
    if (this.markers.length === 0) return true;
    for (const m of this.markers) if (buf.indexOf(m) !== -1) return true;
    return false;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) break;
      this.finishLine(chunk.subarray(start, nl), nl - start + 1);
      start = nl + 1;
    }
    if (start < chunk.length) this.addPending(chunk.subarray(start));
  }

  private addPending(part: Buffer): void {
    if (this.discarding) {
      this.pendingBytes += part.length;
      return;
    }
    // A marker may straddle two chunks; check the joint region too.
    if (!this.pendingHasMarker && this.markers.length > 0) {
      const prevTail = this.pending.length ? this.pending[this.pending.length - 1]!.subarray(-64) : Buffer.alloc(0);
      this.pendingHasMarker = this.hasMarker(prevTail.length ? Buffer.concat([prevTail, part]) : part);
    }
    this.pending.push(Buffer.from(part)); // copy: the chunk buffer may be reused by the reader
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) {
      this.discarding = true;
      this.pending = [];
    }
  }

  /** Hands the first and last `unmarked.bytes` bytes of a line held as parts to the peek callback. */
  private peek(parts: Buffer[], line: number): void {
    const want = this.unmarked!.bytes;
    const head: Buffer[] = [];
    let have = 0;
    for (const p of parts) {
      if (have >= want) break;
      const piece = p.subarray(0, want - have);
      head.push(piece);
      have += piece.length;
    }
    const tail: Buffer[] = [];
    have = 0;
    for (let i = parts.length - 1; i >= 0 && have < want; i--) {
      const p = parts[i]!;
      const piece = p.subarray(Math.max(0, p.length - (want - have)));
      tail.unshift(piece);
      have += piece.length;
    }
    let t = Buffer.concat(tail).toString('utf8');
    if (t.endsWith('\r')) t = t.slice(0, -1);
    const h = Buffer.concat(head).toString('utf8');
    if (t.length) this.unmarked!.onPeek(h, t, line);
  }

  private finishLine(tail: Buffer, consumed: number): void {
    const lineNo = this.lines + 1;
    let text: string | null = null;
    let peekParts: Buffer[] | null = null;
    let bytes = tail.length;
    if (this.pending.length || this.discarding) {
      bytes += this.pendingBytes;
      if (this.discarding || bytes > this.maxLineBytes) {
        this.oversized.push({ line: lineNo, bytes });
      } else {
        const prevTail = this.pending[this.pending.length - 1]!.subarray(-64);
        const marked = this.pendingHasMarker || this.hasMarker(Buffer.concat([prevTail, tail]));
        if (marked) text = Buffer.concat([...this.pending, tail]).toString('utf8');
        else if (this.unmarked) peekParts = [...this.pending, tail];
      }
      this.offset += this.pendingBytes;
      this.pending = [];
      this.pendingBytes = 0;
      this.pendingHasMarker = false;
      this.discarding = false;
    } else if (this.hasMarker(tail)) {
      text = tail.toString('utf8');
    } else if (this.unmarked) {
      peekParts = [tail];
    }
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
        const text = Buffer.concat(this.pending).toString('utf8');
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
          if (this.pendingHasMarker) this.onLine(text, lineNo);
          else if (this.unmarked) this.peek(this.pending, lineNo);
        } else {
          tornTail = { line: lineNo, bytes: this.pendingBytes };
        }
      }
      this.pending = [];
      this.pendingBytes = 0;
    }
    return { offset: this.offset, lines: this.lines, tornTail, oversized: this.oversized };
  }
}
