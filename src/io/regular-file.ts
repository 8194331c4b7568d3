// Reading a settings file the user names (a prices overrides file, the
// config file): only a regular file of a sane size. readFileSync on
// /dev/zero reads until memory runs out; on a FIFO nobody writes to, its
// open alone waits for ever; a symlink to either does the same. So the file
// is opened without waiting (O_NONBLOCK: a FIFO's open returns at once), the
// open descriptor is asked what it is (fstat: no race with a rename), and
// only a regular file no larger than the limit is read.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

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
 * The text (UTF-8) of the regular file at `path`, at most `maxBytes` long.
 * Throws what open throws (ENOENT, EACCES…), or UnusableFileError for
 * anything else there (a device, a FIFO, a directory, a file too large).
 */
export function readRegularText(path: string, maxBytes: number): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      const kind = kindOf(st);
      throw new UnusableFileError('ENOTREG', st.isDirectory() ? 'is a directory' : kind === 'not a regular file' ? kind : `not a regular file (${kind})`);
    }
    const tooLarge = () => new UnusableFileError('EFBIG', `too large (over ${maxBytes >= MB ? `${Math.floor(maxBytes / MB)} MB` : `${maxBytes} bytes`}); not read`);
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
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
