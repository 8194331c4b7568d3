// A killed run's work dir (it may hold copies of user databases) is swept by
// the next run. Work dirs live in a folder of the user's own in the temp dir,
// so that the sweep need not list the whole temp dir.
import { chmodSync, existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { makeDemoDir, makeWorkDir, runsDir, sweepDeadWorkDirs } from '../../src/cli/workdir.js';
import { tempDir } from '../helpers/cli.js';

/** A pid that surely exited: a child we ran to completion. */
const deadPid = () =>
  spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;

/** A dead run's work dir in `parent`, holding a copy of a user database. */
function deadRun(parent: string): string {
  const dir = join(parent, `tx-usage-${deadPid()}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'opencode.db'), 'copy of a user database');
  return dir;
}

const RUNS = `tx-usage-runs-${process.getuid!()}`;

it('removes work dirs of dead processes and keeps live ones', () => {
  const base = tempDir('txu-workdir-');
  const deadDir = deadRun(base);
  const liveDir = join(base, `tx-usage-${process.ppid}`);
  mkdirSync(liveDir);
  const other = join(base, 'tx-usage-notapid');
  mkdirSync(other);
  expect(sweepDeadWorkDirs(base)).toBe(1);
  expect(existsSync(deadDir)).toBe(false);
  expect(existsSync(liveDir)).toBe(true);
  expect(existsSync(other)).toBe(true);
});

it("makes the run's dir in the user's own folder (0700), where the next run sweeps dead ones", () => {
  const base = tempDir('txu-workdir-');
  const mine = makeWorkDir(base);
  expect(mine).toBe(join(base, RUNS, `tx-usage-${process.pid}`));
  expect(statSync(join(base, RUNS)).mode & 0o777).toBe(0o700);
  expect(statSync(mine).mode & 0o777).toBe(0o700);
  const dead = deadRun(join(base, RUNS));
  makeWorkDir(base);
  expect(existsSync(dead)).toBe(false);
  expect(existsSync(mine)).toBe(true);
});

it('sweeps the temp dir itself once, when it makes the folder (dirs older versions left there)', () => {
  const base = tempDir('txu-workdir-');
  const legacy = deadRun(base);
  makeWorkDir(base);
  expect(existsSync(legacy)).toBe(false);
  // From then on only the folder is listed.
  const later = deadRun(base);
  makeWorkDir(base);
  expect(existsSync(later)).toBe(true);
});

it('does not trust a folder of that name open to others, or a link: the work dir goes in the temp dir, as before', () => {
  const open = tempDir('txu-workdir-');
  mkdirSync(join(open, RUNS));
  chmodSync(join(open, RUNS), 0o777);
  expect(runsDir(open)).toBeNull();
  const legacy = deadRun(open);
  expect(makeWorkDir(open)).toBe(join(open, `tx-usage-${process.pid}`));
  expect(existsSync(legacy)).toBe(false);

  const linked = tempDir('txu-workdir-');
  const elsewhere = tempDir('txu-workdir-target-');
  chmodSync(elsewhere, 0o700);
  symlinkSync(elsewhere, join(linked, RUNS));
  expect(runsDir(linked)).toBeNull();
  expect(makeWorkDir(linked)).toBe(join(linked, `tx-usage-${process.pid}`));
});

it("a demo's generated home goes in the same folder and is swept like a work dir once its run is gone", () => {
  const base = tempDir('txu-workdir-');
  const demo = makeDemoDir(base);
  expect(demo).toBe(join(base, RUNS, `tx-usage-demo-${process.pid}`));
  expect(statSync(demo).mode & 0o777).toBe(0o700);
  const killedDemo = join(base, RUNS, `tx-usage-demo-${deadPid()}`);
  mkdirSync(join(killedDemo, 'home'), { recursive: true });
  writeFileSync(join(killedDemo, 'demo.duckdb'), 'a demo store');
  makeWorkDir(base);
  expect(existsSync(killedDemo)).toBe(false);
  expect(existsSync(demo)).toBe(true);
});
