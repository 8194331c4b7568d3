// Temporary folders of one test file. Every test file runs with its own
// TMPDIR (test/setup/tmp-guard.ts); `tempDir()` makes a folder in it and
// owns it: the guard removes the folders made here when the file's tests
// are done, and then fails the file if anything else is left in its TMPDIR
// (a test's own mkdtemp, a CLI run's work dir or SQLite copy, a demo home).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KEY = Symbol.for('tx-usage.test.tempDirs');

/** The folders `tempDir()` made in this test file, removed by the guard after it. */
export function ownedTempDirs(): string[] {
  const g = globalThis as { [KEY]?: string[] };
  return (g[KEY] ??= []);
}

export function tempDir(prefix = 'txu-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  ownedTempDirs().push(dir);
  return dir;
}
