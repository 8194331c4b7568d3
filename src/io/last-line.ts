// The last complete line of a file, read from its end: what a harness needs
// to tell when a transcript was last written to without reading all of it
// (see src/ingest/horizon.ts).
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
/** The reads grow from this by GROWTH until the line's start is in: most last lines are a few KB. */
const FIRST_READ = 8 * 1024;
const GROWTH = 8;

/** One buffer for every read (a fresh one per file was a third of the cost over a thousand files). */
let scratch: Buffer | null = null;

/**
 * The file's last line (without its newline), when the file ends with a
 * newline and that line fits in `max` bytes; null otherwise (a torn final
 * line, a longer line, an empty or unreadable file). `size`, when the caller
 * has just stat'ed the file, is taken as its length (no fstat).
 */
export function readLastLine(path: string, max = LAST_LINE_MAX, size?: number): string | null {
  return withOpenFile(path, null, (fd) => {
    const total = size ?? fstatSync(fd).size;
    if (total < 2) return null;
    // Small reads first, larger ones only while the line's start is not in.
    for (let want = Math.min(FIRST_READ, max); ; want = Math.min(want * GROWTH, max)) {
      const len = Math.min(total, want + 1);
      // One buffer, grown as needed (most calls never need more than the first read).
      if (!scratch || scratch.length < len) scratch = Buffer.allocUnsafe(Math.max(len, FIRST_READ + 1));
      const buf = scratch;
      const n = readSync(fd, buf, 0, len, total - len);
      if (n !== len || buf[len - 1] !== 0x0a) return null;
      const start = buf.lastIndexOf(0x0a, len - 2);
      if (start >= 0 || len === total) return buf.toString('utf8', start + 1, len - 1);
      // No newline before it, and the file goes on: the line is longer than this read.
      if (want === max) return null;
    }
  });
}

/**
 * The latest ISO-8601 value of `"<field>":"…"` in a JSON line (ms since the
 * epoch), null when there is none. Nested objects may repeat the field: the
 * latest wins, which can only make a file look newer than it is.
 */
export function latestIsoField(line: string, field: string): number | null {
  const needle = `"${field}":"`;
  let best: number | null = null;
  for (let i = line.indexOf(needle); i >= 0; i = line.indexOf(needle, i + needle.length)) {
    const from = i + needle.length;
    const end = line.indexOf('"', from);
    if (end < 0 || end - from > 40) continue;
    const t = Date.parse(line.slice(from, end));
    if (Number.isFinite(t) && (best === null || t > best)) best = t;
  }
  return best;
}
