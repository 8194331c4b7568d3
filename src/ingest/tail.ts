// The tail hash that proves a file was only appended to since a resume
// point. Free of the harness registry: the delta path (cli/delta.ts) uses it
// without loading discovery.
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { withOpenFile } from '../io/open-file.js';

export const TAIL_BYTES = 256;

/** Bytes tailHash reads for a resume point at `offset`. */
export function tailCheckBytes(offset: number): number {
  return Math.min(offset, TAIL_BYTES) + Math.min(Math.max(0, offset - TAIL_BYTES), TAIL_BYTES);
}

/**
 * Hash of the first and the last TAIL_BYTES bytes before `offset`: if they
 * are still the same next run, the file was only appended to and can be
 * resumed there. The head catches a file rewritten with a regular layout
 * whose bytes just before the old resume point happen to repeat.
 */
export function tailHash(path: string, offset: number): string | null {
  if (offset <= 0) return null;
  return withOpenFile(path, null, (fd) => {
    const h = createHash('sha1');
    const headLen = Math.min(offset, TAIL_BYTES);
    const tailStart = Math.max(headLen, offset - TAIL_BYTES);
    for (const [start, len] of [
      [0, headLen],
      [tailStart, offset - tailStart],
    ] as const) {
      if (len <= 0) continue;
      const buf = Buffer.alloc(len);
      if (readSync(fd, buf, 0, len, start) !== len) return null;
      h.update(buf);
    }
    return h.digest('hex');
  });
}
