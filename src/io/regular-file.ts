// Opening a file tx-usage reads (a transcript, a database, a settings file
// the user names): only a regular file (of a sane size, for settings). readFileSync on
// /dev/zero reads until memory runs out; on a FIFO nobody writes to, its
// open alone waits for ever; a symlink to either does the same. So the file
// is opened without waiting (O_NONBLOCK: a FIFO's open returns at once), the
// open descriptor is asked what it is (fstat: no race with a rename), and
// only a regular file no larger than the limit is read.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { fsPath } from './raw-path.js';

/** A path that is not a regular file, or one larger than the limit: `code` says which. */
export class UnusableFileError extends Error {
  constructor(
    readonly code: 'ENOTREG' | 'EFBIG',
    message: string,
  ) {
    super(message);
  }
}

/** What `st` is, in words, for a path that is not a regular file. */
function kindOf(st: ReturnType<typeof fstatSync>): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

const MB = 1 << 20;

/**
 * The one safe open of a file tx-usage reads (a transcript, a database, a
 * settings file): opened without waiting (a FIFO's open returns at once) and
 * asked through the descriptor what it is (no race with a rename), so a FIFO,
 * a device (a link to /dev/zero or /dev/urandom is read for ever), a socket
 * or a folder is refused before a byte is read. Returns the open descriptor
 * of a regular file (the caller closes it); throws what open throws (ENOENT,
 * EACCES…) or UnusableFileError('ENOTREG') naming what is there.
 */
export function openRegular(path: string | Buffer): number {
  const fd = openSync(typeof path === 'string' ? fsPath(path) : path, constants.O_RDONLY | constants.O_NONBLOCK);
  let st;
  try {
    st = fstatSync(fd);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  if (!st.isFile()) {
    closeSync(fd);
    throw notRegular(st);
  }
  return fd;
}

/** The error for a path that is there but is not a regular file. */
function notRegular(st: ReturnType<typeof fstatSync>): UnusableFileError {
  const kind = kindOf(st);
  return new UnusableFileError(
    'ENOTREG',
    st.isDirectory()
      ? 'is a directory'
      : kind === 'not a regular file'
        ? `${kind}; never read`
        : `not a regular file (${kind}); never read`,
  );
}

/**
 * Throws UnusableFileError when `path` exists and is not a regular file (after
 * links); missing is fine. For files opened by another library (SQLite's
 * database and its -wal/-shm), which cannot be handed a descriptor.
 */
export function refuseNonRegular(path: string | Buffer): void {
  let st;
  try {
    st = statSync(typeof path === 'string' ? fsPath(path) : path);
  } catch {
    return;
  }
  if (!st.isFile()) throw notRegular(st);
}

/**
 * The bytes of the regular file at `path` (openRegular), at most `maxBytes`
 * long: larger throws UnusableFileError('EFBIG').
 */
export function readRegularBytes(path: string | Buffer, maxBytes = Number.MAX_SAFE_INTEGER): Buffer {
  const fd = openRegular(path);
  try {
    const st = fstatSync(fd);
    const tooLarge = () =>
      new UnusableFileError(
        'EFBIG',
        `too large (over ${maxBytes >= MB ? `${Math.floor(maxBytes / MB)} MB` : `${maxBytes} bytes`}); not read`,
      );
    if (st.size > maxBytes) throw tooLarge();
    // Read to the end (a file may grow while it is read), never past the
    // limit: one read of its size (and one that finds the end), as a rule.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(maxBytes + 1 - total, Math.max(st.size + 1 - total, 64 * 1024)));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooLarge();
      chunks.push(buf.subarray(0, n));
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/**
 * The text (UTF-8) of the regular file at `path`, at most `maxBytes` long.
 * Throws what open throws (ENOENT, EACCES…), or UnusableFileError for
 * anything else there (a device, a FIFO, a directory, a file too large).
 */
export function readRegularText(path: string, maxBytes: number): string {
  try {
    return readRegularBytes(path, maxBytes).toString('utf8');
  } catch (e) {
    // Settings files keep their shorter wording (hostile-settings tests).
    if (e instanceof UnusableFileError && e.code === 'ENOTREG')
      throw new UnusableFileError('ENOTREG', e.message.replace(/; never read$/, ''));
    throw e;
  }
}
