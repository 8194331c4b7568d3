// A reader that goes away early (`tx-usage report | head`) ends the output,
// not the run with an unhandled EPIPE error and its stack trace. What was
// written to the store before stays; the run exits 0, as the reader asked for
// no more.
import { fstatSync, statSync, writeSync } from 'node:fs';

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
 * Ends the process once stdout and stderr have taken what was written. A run
 * left to end by itself also tore down its isolate, freeing the heap page by
 * page, and waited for terminated workers to wind down (cold runs over the
 * benchmark corpus: 871 -> 832 ms, 11 interleaved runs). Call it only when
 * the command has closed the store and awaited all of its own work.
 */
export function exitAfterOutput(): void {
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit();
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

/**
 * Writes all of `text` to fd 1 or 2 at once, without process.stdout or
 * process.stderr: a report answered from its memo never creates them (the
 * stream and the modules behind it: ~2 ms of a ~45 ms run). False when the
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

/**
 * process.stdout.isTTY (fd 1) or process.stderr.isTTY (fd 2) without
 * creating the stream: a pipe, a file or /dev/null is not a terminal; any
 * other character device is asked through the stream.
 */
export function isTTY(fd: 1 | 2): boolean {
  let s;
  try {
    s = fstatSync(fd);
  } catch {
    return false; // a closed fd: Node gives the process a stream that is no TTY
  }
  if (!s.isCharacterDevice() || s.rdev === devNullRdev()) return false;
  return (fd === 1 ? process.stdout : process.stderr).isTTY === true;
}

function devNullRdev(): number {
  try {
    return statSync('/dev/null').rdev;
  } catch {
    return NaN; // no /dev/null here: every character device is asked
  }
}
