// The private temporary work directory of one tx-usage run (SQLite copies,
// decoded archives). A run killed before its cleanup leaves its directory
// behind — possibly holding copies of user databases — so every run first
// sweeps the directories of runs whose process no longer exists.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'tx-usage-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function sweepDeadWorkDirs(base = tmpdir()): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = /^tx-usage-(\d+)$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || alive(pid)) continue;
    rmSync(join(base, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** Creates this run's work directory (mode 0700) after sweeping dead runs' ones. */
export function makeWorkDir(base = tmpdir()): string {
  sweepDeadWorkDirs(base);
  const dir = join(base, `${PREFIX}${process.pid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
