// A reader that goes away early (`tx-usage report | head`) ends the output,
// not the run with an unhandled EPIPE error and its stack trace. What was
// written to the store before stays; the run exits 0, as the reader asked for
// no more.
import { writeSync } from 'node:fs';

let installed = false;

export function exitQuietlyWhenStdoutCloses(): void {
  if (installed) return;
  installed = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

/**
 * Writes all of `text` to fd 1 or 2 at once, without process.stdout or
 * process.stderr (the status line's one line, statusline.ts). False when the
 * reader has gone (EPIPE): nothing more is wanted.
 */
export function writeAllSync(fd: 1 | 2, text: string): boolean {
  const bytes = Buffer.from(text);
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return false;
      // A non-blocking pipe that is full: wait a little for the reader.
      if (code === 'EAGAIN') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      else throw e;
    }
  }
  return true;
}
