// Tests clean up what they create, and this holds them to it. Each test file
// runs with a TMPDIR of its own (a fresh folder in the real temp dir): what
// the file's tests, and the CLI runs they start (`cleanEnv` passes TMPDIR
// on), put in the temp dir lands there and nowhere else, so other processes
// using /tmp at the same time cannot make this check pass or fail. After the
// file's own afterAll hooks (setup-file hooks run last), the folders made by
// `tempDir()` are removed, and whatever else is left — a raw mkdtemp, a CLI
// run's work dir or SQLite copy, a demo's home, a status line's refresh
// files — fails the file, naming what was left. The folder is removed
// either way.
//
// One entry is allowed, empty: `tx-usage-runs-<uid>`, the folder in which
// every run makes its work dir (src/cli/workdir.ts). It is made once per
// user and temp dir and kept by design; a work dir left inside it is a leak.
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll } from 'vitest';
import { ownedTempDirs } from '../helpers/temp.js';

const REAL = (process.env.TX_USAGE_TEST_REAL_TMPDIR ??= tmpdir());
const own = mkdtempSync(join(REAL, 'txu-vitest-'));
// Passable (not readable) by others, as the real temp dir is: the runs as
// uid 65534 (test/helpers/unprivileged.ts) reach their home and temp dir here.
chmodSync(own, 0o711);
process.env.TMPDIR = own;

/** Paths under `dir` (files, and folders with nothing in them), at most `max`. */
function leftovers(dir: string, max = 20): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    if (names.length === 0 && d !== own) out.push(relative(own, d) + '/');
    for (const n of names) {
      if (out.length >= max) return;
      const p = join(d, n);
      let isDir = false;
      try {
        isDir = lstatSync(p).isDirectory(); // a symbolic link is a leftover, not a folder to walk
      } catch {}
      if (isDir) walk(p);
      else out.push(relative(own, p));
    }
  };
  walk(dir);
  return out;
}

afterAll(() => {
  for (const d of ownedTempDirs().splice(0)) rmSync(d, { recursive: true, force: true });
  const runs = typeof process.getuid === 'function' ? join(own, `tx-usage-runs-${process.getuid()}`) : null;
  if (runs) {
    try {
      if (readdirSync(runs).length === 0) rmSync(runs, { recursive: true });
    } catch {}
  }
  const left = leftovers(own);
  rmSync(own, { recursive: true, force: true });
  process.env.TMPDIR = REAL;
  if (left.length)
    throw new Error(`left in the temp dir by this test file (or the processes it started):\n  ${left.join('\n  ')}`);
});
