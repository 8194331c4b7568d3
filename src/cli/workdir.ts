// The private temporary work directory of one tx-usage run (SQLite copies,
// decoded archives). A run killed before its cleanup leaves its directory
// behind — possibly holding copies of user databases — so every run first
// sweeps the directories of runs whose process no longer exists.
//
// They live in one folder per user in the temp dir, `tx-usage-runs-<uid>`
// (created mode 0700; used only when it is a real folder owned by the user
// and closed to others), so that the sweep lists that folder rather than the
// whole temp dir: ~11 000 entries on the development machine, 8-14 ms of
// every run that reads a transcript. The run that creates the folder sweeps
// the temp dir itself once, for directories older versions left there.
import { lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'tx-usage-';

/** Whether process `pid` exists (EPERM: it exists but belongs to someone else). */
export function alive(pid: number): boolean {
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
    const m = /^tx-usage-(?:demo-)?(\d+)$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || alive(pid)) continue;
    rmSync(join(base, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/**
 * This user's folder of work dirs in `base`, and whether this call created
 * it; null when there is none to trust (no uid on this platform, or the name
 * taken by something that is not a folder of this user's, closed to others).
 */
export function runsDir(base = tmpdir()): { dir: string; created: boolean } | null {
  if (typeof process.getuid !== 'function') return null;
  const uid = process.getuid();
  const dir = join(base, `tx-usage-runs-${uid}`);
  let created = true;
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return null;
    created = false;
  }
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0 ? { dir, created } : null;
  } catch {
    return null;
  }
}

/** Creates this run's work directory (mode 0700) after sweeping dead runs' ones. */
export function makeWorkDir(base = tmpdir()): string {
  return makeRunDir(base, PREFIX);
}

/**
 * Creates the directory of `report --demo`'s generated home and store, beside
 * the work dirs and swept like them once its run is gone: a demo stopped by
 * Ctrl-C or killed leaves nothing behind for long. (Apart from the run's work
 * dir, which the demo's own ingest makes and removes.)
 */
export function makeDemoDir(base = tmpdir()): string {
  return makeRunDir(base, `${PREFIX}demo-`);
}

function makeRunDir(base: string, prefix: string): string {
  const runs = runsDir(base);
  // Without a folder to trust, work dirs go in the temp dir itself, as before;
  // a folder just made means a first run here: older versions' dirs are swept.
  if (!runs || runs.created) sweepDeadWorkDirs(base);
  if (runs) sweepDeadWorkDirs(runs.dir);
  const dir = join(runs?.dir ?? base, `${prefix}${process.pid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
