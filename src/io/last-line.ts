// The last complete line of a file, read from its end: what a harness needs
// to tell when a transcript was last written to without reading all of it
// (see src/ingest/horizon.ts). The line stays bytes: the callers only look
// for one field in it, and a last line is often a 100 KB image line that
// would otherwise be decoded whole just to be searched.
import { fstatSync, readSync } from 'node:fs';
import { withOpenFile } from './open-file.js';

/**
 * How far back the last line is looked for; a longer last line gives null
 * (and its file is read whole). Claude Code transcripts often end with a
 * tool result carrying an image: on the benchmark corpus, 146 old
 * transcripts ended with lines of 64–120 KB, and with a 64 KB limit those
 * 52 MB were read and extracted in full for a 30-day report instead of
 * their last 14 MB only being looked at.
 */
export const LAST_LINE_MAX = 4 * 1024 * 1024;
/** The first read; each further one reads as much again, just before what is in (most last lines are a few KB). */
const FIRST_READ = 8 * 1024;

/**
 * One buffer for every read (a fresh one per file was a third of the cost
 * over a thousand files), filled from its end: after reading the file's
 * last n bytes, they are the buffer's last n bytes.
 */
let scratch: Buffer | null = null;

/**
 * The file's last line (without its newline) as a view of a buffer that the
 * next call overwrites, when the file ends with a newline and that line fits
 * in `max` bytes; null otherwise (a torn final line, a longer line, an empty
 * or unreadable file). `size`, when the caller has just stat'ed the file, is
 * taken as its length (no fstat).
 */
export function readLastLine(path: string, max = LAST_LINE_MAX, size?: number): Buffer | null {
  return withOpenFile(path, null, (fd) => {
    const total = size ?? fstatSync(fd).size;
    if (total < 2) return null;
    // The last byte (the newline) and up to `max` bytes before it.
    const limit = Math.min(total, max + 1);
    scratch ??= Buffer.allocUnsafe(FIRST_READ + 1);
    // Each read takes only the bytes just before those already in, as many
    // again (a 100 KB line costs ~128 KB of reads; reads of 8 KB, 64 KB and
    // 512 KB, each from the end, took 584 KB).
    let have = 0;
    for (let want = Math.min(FIRST_READ + 1, limit); ; want = Math.min(want * 2, limit)) {
      if (scratch.length < want) {
        const grown = Buffer.allocUnsafe(Math.min(limit, want * 4));
        scratch.copy(grown, grown.length - have, scratch.length - have);
        scratch = grown;
      }
      const buf = scratch;
      const end = buf.length;
      const n = readSync(fd, buf, end - want, want - have, total - want);
      if (n !== want - have) return null;
      if (have === 0 && buf[end - 1] !== 0x0a) return null;
      // A newline among the new bytes (the older ones have none but the last).
      const nl = buf.subarray(end - want, have === 0 ? end - 1 : end - have).lastIndexOf(0x0a);
      if (nl >= 0) return buf.subarray(end - want + nl + 1, end - 1);
      if (want === total) return buf.subarray(end - want, end - 1);
      // No newline before it, and the file goes on: the line is longer than this read.
      if (want === limit) return null;
      have = want;
    }
  });
}

/**
 * The latest ISO-8601 value of `"<field>":"…"` in a JSON line (ms since the
 * epoch), null when there is none. Nested objects may repeat the field: the
 * latest wins, which can only make a file look newer than it is.
 */
export function latestIsoField(line: Buffer, field: string): number | null {
  let needle = needles.get(field);
  if (!needle) needles.set(field, (needle = Buffer.from(`"${field}":"`)));
  let best: number | null = null;
  for (let i = line.indexOf(needle); i >= 0; i = line.indexOf(needle, i + needle.length)) {
    const from = i + needle.length;
    const end = line.indexOf(0x22, from);
    if (end < 0 || end - from > 40) continue;
    // A timestamp is ASCII: bytes that are not do not parse either way.
    const t = Date.parse(line.toString('latin1', from, end));
    if (Number.isFinite(t) && (best === null || t > best)) best = t;
  }
  return best;
}

const needles = new Map<string, Buffer>();
