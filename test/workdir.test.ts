// A killed run's work dir (it may hold copies of user databases) is swept by the next run.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { makeWorkDir, sweepDeadWorkDirs } from '../src/cli/workdir.js';
import { tempDir } from './helpers/cli.js';

it('removes work dirs of dead processes and keeps live ones', () => {
  const base = tempDir('txu-workdir-');
  // A pid that surely exited: a child we ran to completion.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  const deadDir = join(base, `tx-usage-${dead}`);
  mkdirSync(deadDir);
  writeFileSync(join(deadDir, 'opencode.db'), 'copy of a user database');
  const liveDir = join(base, `tx-usage-${process.ppid}`);
  mkdirSync(liveDir);
  const other = join(base, 'tx-usage-notapid');
  mkdirSync(other);
  expect(sweepDeadWorkDirs(base)).toBe(1);
  expect(existsSync(deadDir)).toBe(false);
  expect(existsSync(liveDir)).toBe(true);
  expect(existsSync(other)).toBe(true);
  const mine = makeWorkDir(base);
  expect(mine).toBe(join(base, `tx-usage-${process.pid}`));
  expect(existsSync(mine)).toBe(true);
});
