// Issue 25/29: a repeated report with OpenCode and Cursor databases that did
// not change takes the same fast path as without them. The OpenCode fixture's
// writer connections stay open (as while OpenCode runs), so each database has
// its -wal and -shm beside it and is read in place: every read writes its
// read marks to the -shm, which must not make the database look changed.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome } from '../../fixtures/all-harnesses.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const dir = tempDir('txu-unchanged-db-');
const home = join(dir, 'home');
const fx = buildAllHome(home);
afterAll(() => {
  fx.close();
  rmSync(dir, { recursive: true, force: true });
});

const statsFile = join(dir, 'stats.json');
const env = cleanEnv(home, { TX_USAGE_STATS: statsFile });
const stats = () => JSON.parse(readFileSync(statsFile, 'utf8'));

describe('OpenCode and Cursor databases that did not change', () => {
  it('are not read again: the repeated report is answered from its memo, and an ingest reads nothing', () => {
    const args = ['report', ...ALL_RANGE, '--by', 'harness', '--format', 'json'];
    const first = runCli(args, env);
    expect(first.status, first.stderr).toBe(0);
    const harnesses = JSON.parse(first.stdout).rows.map((r: { harness: string }) => r.harness);
    expect(harnesses).toContain('opencode');
    expect(stats().rewritten).toBeGreaterThan(0);

    const second = runCli(args, env);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(stats().kind).toBe('memo-hit');

    // The ingest itself finds every source unchanged: no bytes read, nothing extracted.
    const ing = runCli(['ingest'], env);
    expect(ing.status, ing.stderr).toBe(0);
    const s = stats();
    expect(s.kind).toBe('ingest');
    expect({ rewritten: s.rewritten, appended: s.appended, events: s.events, bytesRead: s.bytesRead }).toEqual({
      rewritten: 0,
      appended: 0,
      events: 0,
      bytesRead: 0,
    });
  });
});
