// Reading a few bytes of a file by descriptor, with the descriptor always
// closed and any failure (missing file, permission, a read error, not a
// regular file) one answer.
import { closeSync } from 'node:fs';
import { openRegular } from './regular-file.js';

/** `fn` with the file open for reading; `failed` when it cannot be opened or `fn` throws. */
export function withOpenFile<T>(path: string, failed: T, fn: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openRegular(path); // a FIFO or device there is a failure, never a wait
  } catch {
    return failed;
  }
  try {
    return fn(fd);
  } catch {
    return failed;
  } finally {
    closeSync(fd);
  }
}
