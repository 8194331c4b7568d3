// The tail hash that proves a file was only appended to since a resume
// point (ingest.ts planSource).
import { readSync } from 'node:fs';
import { withOpenFile } from '../io/open-file.js';
import { digest128 } from '../core/digest.js';

export const TAIL_BYTES = 256;

/** Bytes tailHash reads for a resume point at `offset`. */
export function tailCheckBytes(offset: number): number {
  return Math.min(offset, TAIL_BYTES) + Math.min(Math.max(0, offset - TAIL_BYTES), TAIL_BYTES);
}

/**
 * Digest (core/digest.ts) of the first and the last TAIL_BYTES bytes before
 * `offset`: if they are still the same next run, the file was only appended
 * to and can be resumed there. The head catches a file rewritten with a
 * regular layout whose bytes just before the old resume point happen to
 * repeat. (Stores written with the SHA-1 of the same bytes see every tail
 * hash change once: each file is then re-read from its start, as a rewritten
 * one is.)
 */
export function tailHash(path: string, offset: number): string | null {
  if (offset <= 0) return null;
  return withOpenFile(path, null, (fd) => {
    const headLen = Math.min(offset, TAIL_BYTES);
    const tailStart = Math.max(headLen, offset - TAIL_BYTES);
    const tailLen = offset - tailStart;
    const buf = Buffer.allocUnsafe(headLen + tailLen);
    if (readSync(fd, buf, 0, headLen, 0) !== headLen) return null;
    if (tailLen > 0 && readSync(fd, buf, headLen, tailLen, tailStart) !== tailLen) return null;
    return digest128(buf);
  });
}
