// The shared JSONL readers: plain files resumed at a byte offset, and
// single-frame `.jsonl.zst` files decoded as a stream. Harnesses never open
// transcript files themselves.
import { closeSync, readSync } from 'node:fs';
import { openRegular } from './regular-file.js';
import { crToLf, endsLinesWithCr, textStart } from './text-encoding.js';
import { createRequire } from 'node:module';
import { LineSplitter, type SplitResult, type UnmarkedHead, type UnmarkedPeek } from './lines.js';
import type { ExtractSink, ResumePoint } from '../harnesses/types.js';

const CHUNK = 1 << 20;
/** Decompressed bytes allowed per `.jsonl.zst` file before it is treated as a bomb. */
export const MAX_ZSTD_OUTPUT_BYTES = 4 * 1024 * 1024 * 1024;

export type RecordHandler = (rec: any, line: number) => void;

/** Bytes read from transcript files by this thread (plain and compressed): how the ingest proves an append re-reads only new bytes. */
export const readCounter = { bytes: 0 };

/** Most bytes held at once for one unfinished line by plain JSONL scans in this thread since it was last set to 0. */
export const lastSplitStats = { peakHeldBytes: 0 };

let sharedChunk: Buffer | null = null;

export interface ScanOptions {
  /**
   * A line is parsed only if it contains one of these (byte search). Empty:
   * every line. The WebAssembly scanner holds at most 16 markers of 1 to 60
   * bytes (no newline), with at most 8 distinct (first byte, last byte,
   * length) probes; a set beyond that is scanned in JavaScript, several times
   * slower. Declare a harness's sets in its Harness object (`scanMarkers`):
   * the registry checks them.
   */
  markers: readonly string[];
  resume?: ResumePoint | null;
  maxLineBytes?: number;
  /** Also hand on the first and last bytes of every line without a marker (never parsed). */
  unmarkedPeek?: UnmarkedPeek;
  /** Also a byte-level look at the first bytes of every line without a marker, which may ask for the line to be parsed (lines.ts). */
  unmarkedHead?: UnmarkedHead;
  /**
   * Called with each line that has a marker, before it is parsed; returning
   * true means the harness took what it needs from the text at byte level and
   * the line is not parsed (e.g. a prompt marker on a record without usage).
   */
  beforeParse?: (text: string, line: number) => boolean;
}

/**
 * Wraps a record handler with JSON parsing: unparsable lines are counted and
 * reported once per file (first location + count), non-object values skipped.
 */
function parsingHandler(
  file: string,
  sink: ExtractSink,
  onRecord: RecordHandler,
  beforeParse?: (text: string, line: number) => boolean,
) {
  let bad = 0;
  let firstBad = 0;
  const handle = (text: string, line: number) => {
    if (beforeParse !== undefined && beforeParse(text, line)) return;
    let rec: unknown;
    try {
      rec = JSON.parse(text);
    } catch {
      if (bad++ === 0) firstBad = line;
      sink.unparsable?.({ file, line });
      return;
    }
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) {
      sink.skip('not a JSON object', { file, line });
      return;
    }
    onRecord(rec, line);
  };
  const finish = (res: SplitResult, opts: { tailWarning?: boolean } = {}) => {
    if (bad > 0) {
      sink.warn(
        `${bad} unparsable line${bad > 1 ? 's' : ''} skipped (first at line ${firstBad})`,
        { file, line: firstBad },
        { sumsUpUnparsable: true },
      );
    }
    if (res.tornTail && opts.tailWarning !== false) {
      sink.warn(
        `incomplete final line (${res.tornTail.bytes} bytes) left for the next run`,
        { file, line: res.tornTail.line },
        { untilResumed: true },
      );
    }
    for (const o of res.oversized) {
      sink.warn(`line of ${o.bytes} bytes is over the line limit and was passed over`, { file, line: o.line });
    }
  };
  return { handle, finish };
}

/** Reads a plain JSONL file from `resume.offset` (or the start) and returns where it stopped. */
export async function scanJsonlFile(
  file: string,
  opts: ScanOptions,
  sink: ExtractSink,
  onRecord: RecordHandler,
): Promise<ResumePoint> {
  const { handle, finish } = parsingHandler(file, sink, onRecord, opts.beforeParse);
  const base = opts.resume ? { offset: opts.resume.offset, lines: opts.resume.lines } : { offset: 0, lines: 0 };
  // Synchronous reads into one buffer per thread: extraction runs in worker
  // threads (or on small inputs), where awaiting each read only adds
  // thread-pool round trips, and nothing can interleave with this loop.
  const fd = openRegular(file); // regular files only: a FIFO or /dev/zero is refused, never read
  let res: SplitResult;
  try {
    // How the text is written (text-encoding.ts): a byte order mark is
    // skipped, UTF-16 is named and not read, lone-CR line ends are read.
    if (base.offset === 0) {
      const head = Buffer.alloc(4);
      const start = textStart(head.subarray(0, readSync(fd, head, 0, 4, 0)));
      if ('unreadable' in start) {
        sink.warn(start.unreadable, { file });
        return { offset: 0, lines: 0 };
      }
      base.offset = start.skip;
    }
    let crOnly: boolean | null = null;
    const reread = (offset: number, length: number) => {
      const b = Buffer.allocUnsafe(length);
      const n = readSync(fd, b, 0, length, offset);
      readCounter.bytes += n;
      return b.subarray(0, n);
    };
    const splitter = new LineSplitter(
      opts.markers,
      handle,
      base,
      opts.maxLineBytes,
      opts.unmarkedPeek,
      reread,
      opts.unmarkedHead,
    );
    // Read straight into the scanner's memory when it has some (no copy).
    const buf = splitter.readBuffer() ?? (sharedChunk ??= Buffer.allocUnsafe(CHUNK));
    let pos = base.offset;
    for (;;) {
      const bytesRead = readSync(fd, buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      readCounter.bytes += bytesRead;
      const got = buf.subarray(0, bytesRead);
      if ((crOnly ??= endsLinesWithCr(got))) crToLf(got);
      splitter.push(got);
    }
    res = splitter.end();
    lastSplitStats.peakHeldBytes = Math.max(lastSplitStats.peakHeldBytes, splitter.peakHeldBytes);
  } finally {
    closeSync(fd);
  }
  finish(res);
  return { offset: res.offset, lines: res.lines };
}

/**
 * Decodes a `.jsonl.zst` file as a stream (bounded memory) and scans its lines.
 * A corrupt or truncated frame is reported as a warning naming the file; the
 * lines decoded before the fault still count.
 */
export async function scanJsonlZstFile(
  file: string,
  opts: ScanOptions,
  sink: ExtractSink,
  onRecord: RecordHandler,
  maxOutputBytes = MAX_ZSTD_OUTPUT_BYTES,
): Promise<void> {
  const { handle, finish } = parsingHandler(file, sink, onRecord, opts.beforeParse);
  const splitter = new LineSplitter(
    opts.markers,
    handle,
    { offset: 0, lines: 0 },
    opts.maxLineBytes,
    opts.unmarkedPeek,
    null,
    opts.unmarkedHead,
  );
  let produced = 0;
  let bomb = false;
  let ended = false;
  // fzstd is loaded when a compressed transcript is read, not with this
  // module: ~3.5 ms of every extraction thread's start otherwise.
  const { Decompress } = createRequire(import.meta.url)('fzstd') as typeof import('fzstd');
  const dec = new Decompress((chunk, final) => {
    if (bomb) return;
    produced += chunk.length;
    if (produced > maxOutputBytes) {
      bomb = true;
      return;
    }
    splitter.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
    if (final) ended = true;
  });
  // Read synchronously, like plain files (the decoding is the work): no
  // node:fs/promises to load for it.
  const fd = openRegular(file); // regular files only: a FIFO or /dev/zero is refused, never read
  let fault: string | null = null;
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let pos = 0;
    for (;;) {
      const bytesRead = readSync(fd, buf, 0, CHUNK, pos);
      pos += bytesRead;
      readCounter.bytes += bytesRead;
      const last = bytesRead < CHUNK;
      try {
        // fzstd keeps references to pushed data: hand it a copy.
        dec.push(Uint8Array.prototype.slice.call(buf, 0, bytesRead), last);
      } catch (e) {
        fault = (e as Error).message || String(e);
        break;
      }
      if (bomb || last) break;
    }
  } finally {
    closeSync(fd);
  }
  if (bomb) {
    sink.warn(`decompressed size exceeds ${maxOutputBytes} bytes; rest of the file skipped`, { file });
  } else if (fault) {
    sink.warn(`corrupt zstd data (${fault}); rest of the file skipped`, { file });
  } else if (!ended) {
    sink.warn('truncated zstd frame; rest of the file skipped', { file });
  }
  // After a fault the decoded text simply stops: the fault warning says it all.
  finish(splitter.end(), { tailWarning: !(bomb || fault || !ended) });
}
