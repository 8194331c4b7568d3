// Reading a few bytes of a file by descriptor, with the descriptor always
// closed and any failure (missing file, permission, a read error) one answer.
import { closeSync, openSync } from 'node:fs';

/** `fn` with the file open for reading; `failed` when it cannot be opened or `fn` throws. */
export function withOpenFile<T>(path: string, failed: T, fn: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openSync(path, 'r');
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
