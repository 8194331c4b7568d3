// Temporary folders of one test file. Every test file runs with its own
// TMPDIR (test/setup/tmp-guard.ts); `tempDir()` makes a folder in it and
// owns it: the guard removes the folders made here when the file's tests
// are done, and then fails the file if anything else is left in its TMPDIR
// (a test's own mkdtemp, a CLI run's work dir or SQLite copy, a demo home).
//
// So, in a test: make temporary folders with tempDir() (a raw mkdtemp only
// if the test removes it itself); give a child process an environment with
// the file's TMPDIR (cleanEnv() does; spawning with process.env does too);
// and have every process a test starts finished, or killed and waited for,
// before the file ends. What tx-usage itself leaves in the temp dir is a
// product bug to fix in src/, not something to allow here.
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
