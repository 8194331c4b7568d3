// A buffered append-only file writer for the corpus: strings are collected
// and written in large chunks, so generating a gigabyte is not a syscall per line.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

const FLUSH_AT = 8 << 20;

export class LineFile {
  private parts: string[] = [];
  private pendingChars = 0;
  private fd: number;
  /** Bytes written (UTF-8), flushed or not. */
  bytes = 0;
  lines = 0;
  /** Lines containing a usage record (counted by the writer that knows). */
  usageLines = 0;
  largestLine = 0;

  constructor(
    readonly path: string,
    mode: 'w' | 'a' = 'w',
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, mode);
  }

  /** Appends one complete line (without its newline). */
  line(text: string, carriesUsage = false): void {
    this.parts.push(text, '\n');
    const n = Buffer.byteLength(text, 'utf8') + 1;
    this.bytes += n;
    this.lines++;
    if (carriesUsage) this.usageLines++;
    if (n > this.largestLine) this.largestLine = n;
    this.pendingChars += text.length + 1;
    if (this.pendingChars >= FLUSH_AT) this.flush();
  }

  flush(): void {
    if (!this.parts.length) return;
    writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.pendingChars = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}
