// Store faults: processes started together on one store, corrupt and
// newer-version stores, and a full disk (the report's --out on /dev/full, the
// store on a size-limited tmpfs). Each ends in exact totals or a clear
// one-line error — never a stack trace — and the previous store stays usable.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_RANGE,
  buildAllHome,
  pickMetrics,
  sumMetrics,
  type AllHome,
  type Metrics,
} from '../../fixtures/all-harnesses.js';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { prng } from '../../fixtures/demo.js';
import { cleanEnv, CLI, runCli, tempDir } from '../helpers/cli.js';

const JSON_REPORT = ['report', ...ALL_RANGE, '--format', 'json'];
const STACK = /\n\s+at |Error: .*\n.*\.js:\d+/;

let fx: AllHome;
let work: string;
beforeAll(() => {
  fx = buildAllHome(tempDir('txu-store-faults-'));
  fx.close();
  work = tempDir('txu-store-faults-work-');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const envWith = (extra: Record<string, string> = {}) =>
  cleanEnv(fx.home, { XDG_CACHE_HOME: join(work, 'cache'), ...extra });

function runAsync(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (b) => (stdout += b));
    c.stderr.on('data', (b) => (stderr += b));
    c.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Report totals on `db`, asserting success and no stack trace. */
function totalsOn(db: string, env = envWith(), extra: string[] = []): { totals: Metrics; stderr: string } {
  const r = runCli([...JSON_REPORT, ...extra, '--db', db], env);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(STACK);
  return { totals: pickMetrics(JSON.parse(r.stdout).totals), stderr: r.stderr };
}

async function setSchemaVersion(db: string, v: number): Promise<void> {
  const inst = await DuckDBInstance.create(db);
  const conn = await inst.connect();
  await conn.run(`UPDATE meta SET value = '${v}' WHERE key = 'schema_version'`);
  conn.closeSync();
  inst.closeSync();
}

describe('concurrent use of one store', () => {
  it('processes started together on a fresh store all succeed with exact totals', async () => {
    const combos: string[][][] = [
      [JSON_REPORT, JSON_REPORT],
      [['ingest'], JSON_REPORT],
      [JSON_REPORT, ['ingest'], JSON_REPORT],
      [['sources', '--format', 'json'], JSON_REPORT],
      [['sql', 'SELECT count(*) AS n FROM usage_events', '--format', 'json'], JSON_REPORT, ['ingest']],
      // sql re-opens the store read-only after its refresh: another process may hold it by then.
      [
        ['sql', 'SELECT count(*) AS n FROM usage_events', '--format', 'json'],
        ['sql', 'SELECT 1 AS one'],
        ['ingest'],
        JSON_REPORT,
      ],
      [['sql', 'SELECT count(*) AS n FROM sources'], ['sources'], ['sql', 'SELECT 2 AS two'], ['ingest']],
    ];
    let processes = 0;
    for (const [i, combo] of combos.entries()) {
      const db = join(work, `concurrent-${i}.duckdb`);
      const results = await Promise.all(combo.map((args) => runAsync([...args, '--db', db], envWith())));
      processes += combo.length;
      for (const [k, r] of results.entries()) {
        expect(r.status, `${combo[k]!.join(' ')}: ${r.stderr}`).toBe(0);
        expect(r.stderr).not.toMatch(STACK);
        if (combo[k]![0] === 'report') expect(pickMetrics(JSON.parse(r.stdout).totals)).toEqual(fx.total);
      }
      // And the store they built together is exact.
      expect(totalsOn(db).totals).toEqual(fx.total);
    }
    console.log(
      `faults: ${combos.length} groups of processes started together (${processes} processes) on fresh stores: all exit 0, every report exact`,
    );
  });

  it('a reader started while new data is being ingested sees a consistent total (old or new, never half)', async () => {
    const db = join(work, 'concurrent-growth.duckdb');
    const before = totalsOn(db).totals;
    // New data: 600 more sessions (two write batches), so "half" would be visible.
    const claude = new ClaudeHome(join(fx.home, '.claude'));
    for (let i = 0; i < 600; i++)
      claude
        .session({ cwd: '/home/user/growth' })
        .response({ ts: '2026-10-15T10:00:00.000Z', usage: { input: 1, output: 1 } });
    const added = pickMetrics(claude.ledger.totals());
    const after = sumMetrics([before, added]);
    const [a, b] = await Promise.all([
      runAsync(['ingest', '--db', db], envWith()),
      runAsync([...JSON_REPORT, '--db', db], envWith()),
    ]);
    expect(a.status, a.stderr).toBe(0);
    expect(b.status, b.stderr).toBe(0);
    const seen = pickMetrics(JSON.parse(b.stdout).totals);
    expect([JSON.stringify(before), JSON.stringify(after)]).toContain(JSON.stringify(seen));
    expect(totalsOn(db).totals).toEqual(after);
    console.log(
      `faults: ingest of ${added.requests} new responses and a report started together: report saw ${seen.requests === after.requests ? 'the new' : 'the old'} total, never a mix`,
    );
    fx.total = after; // later tests see the grown home
  });
});

describe('damaged and foreign stores', () => {
  it('garbage, an empty or a text file at --db: exit 2, left as it is; a damaged store of ours (truncated, garbage WAL): moved aside and rebuilt, never a stack trace', async () => {
    const rnd = prng(77);
    const notOurs: [string, Buffer][] = [
      ['garbage', Buffer.from(Array.from({ length: 1 << 20 }, () => Math.floor(rnd() * 256)))],
      ['empty', Buffer.alloc(0)],
      ['text', Buffer.from('this is not a DuckDB file\n'.repeat(1000))],
    ];
    for (const [name, bytes] of notOurs) {
      const cur = join(work, `foreign-${name}.duckdb`);
      writeFileSync(cur, bytes);
      const r = runCli([...JSON_REPORT, '--db', cur], envWith());
      expect(r.status, name).toBe(2);
      expect(r.stderr, name).toMatch(/^tx-usage: not a tx-usage store: .* \(not a DuckDB database\)\n$/);
      expect(readFileSync(cur).equals(bytes), name).toBe(true);
    }
    const damages: [string, (cur: string) => void][] = [
      ['truncated', (cur) => truncateSync(cur, Math.floor(statSync(cur).size / 3))],
      [
        'garbage WAL',
        (cur) =>
          writeFileSync(cur + '.wal', Buffer.from(Array.from({ length: 70_000 }, () => Math.floor(rnd() * 256)))),
      ],
    ];
    const notices: string[] = [];
    for (const [name, damage] of damages) {
      const cur = join(work, `damaged-${name.replace(/ /g, '-')}.duckdb`);
      expect(totalsOn(cur).totals).toEqual(fx.total);
      // The rows into the file itself (a run may leave them in its WAL), then damaged in place.
      const inst = await DuckDBInstance.create(cur);
      const ck = await inst.connect();
      await ck.run('CHECKPOINT');
      ck.closeSync();
      inst.closeSync();
      damage(cur);
      const { totals, stderr } = totalsOn(cur, envWith(), ['--by', 'model']);
      expect(totals, name).toEqual(fx.total);
      // A garbage WAL beside a good store may be ignored by DuckDB; otherwise the store is moved aside, announced.
      if (name !== 'garbage WAL')
        expect(stderr, name).toMatch(/tx-usage: store .* was unreadable \(.*\); moved aside to .*\.broken-/);
      notices.push(
        `${name}: ${stderr.trim().split('\n')[0]?.slice(0, 200) || '(no notice: the store was readable, the WAL was ignored or replayed)'}`,
      );
      // And it is a working store again.
      expect(totalsOn(cur, envWith(), ['--by', 'day']).stderr).not.toMatch(/unreadable/);
    }
    console.log(
      `faults: ${notOurs.length} files that are not stores left alone; ${damages.length} damaged stores, each with exact totals:\n  ${notices.join('\n  ')}`,
    );
  });

  it('a store from a newer tx-usage: a clear message naming --rebuild (exit 1, no stack trace); --rebuild then works', async () => {
    const db = join(work, 'newer.duckdb');
    totalsOn(db);
    await setSchemaVersion(db, 999);
    // (Arguments not used before on this store: a repeated report may be replayed from its memo without opening the store.)
    const r = runCli([...JSON_REPORT, '--by', 'model', '--db', db], envWith());
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^tx-usage: the store .*newer\.duckdb was written by a newer tx-usage \(schema 999, this build knows \d+\); run with --rebuild/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(STACK);
    // Every command says the same, and leaves the store alone.
    const size = statSync(db).size;
    for (const args of [['ingest'], ['sources'], ['sql', 'SELECT 1']]) {
      const x = runCli([...args, '--db', db], envWith());
      expect(x.status, args.join(' ')).toBe(1);
      expect(x.stderr).toMatch(/written by a newer tx-usage .* --rebuild/);
    }
    expect(statSync(db).size).toBe(size);
    const rebuilt = runCli([...JSON_REPORT, '--by', 'harness', '--db', db, '--rebuild'], envWith());
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(pickMetrics(JSON.parse(rebuilt.stdout).totals)).toEqual(fx.total);
    console.log(`faults: newer-version store → "${r.stderr.trim()}"`);
  });
});

describe('disk full', () => {
  it('--out on a full disk (/dev/full): a clear error for every format, no stack trace; the store still works', () => {
    const db = join(work, 'devfull.duckdb');
    const before = totalsOn(db).totals;
    let tried = 0;
    for (const format of ['json', 'csv', 'table', 'html']) {
      const r = runCli(['report', ...ALL_RANGE, '--format', format, '--out', '/dev/full', '--db', db], envWith());
      if (format === 'html' && /HTML renderer is not available/.test(r.stderr)) continue;
      tried++;
      expect(r.status, format).not.toBe(0);
      expect(r.stderr, format).toMatch(/^tx-usage: .*(ENOSPC|no space left on device)/i);
      expect(r.stderr.trim().split('\n'), format).toHaveLength(1);
      expect(r.stderr).not.toMatch(STACK);
    }
    expect(tried).toBeGreaterThanOrEqual(3);
    expect(totalsOn(db).totals).toEqual(before);
    console.log(`faults: --out /dev/full for ${tried} formats: clear ENOSPC error each time, store intact`);
  });

  it('the store on a full filesystem: a clear error, and the previous store is still usable once space is back', () => {
    const mnt = join(work, 'small-fs');
    mkdirSync(mnt);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mnt], { encoding: 'utf8' });
    if (mounted.status !== 0) {
      console.log(
        `faults: mounting a size-limited tmpfs is not permitted here (${mounted.stderr.trim()}); store disk-full case not run`,
      );
      return;
    }
    try {
      const db = join(mnt, 'usage.duckdb');
      const before = totalsOn(db).totals;
      // Fill the filesystem to the last few hundred KB.
      const filler = join(mnt, 'filler');
      spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { encoding: 'utf8' });
      const free = () =>
        Number(spawnSync('df', ['-B1', '--output=avail', mnt], { encoding: 'utf8' }).stdout.trim().split('\n')[1]);
      truncateSync(filler, statSync(filler).size - 256 * 1024);
      // New data that does not fit: 3,000 more sessions.
      const extraHome = new ClaudeHome(join(fx.home, '.claude'));
      const dir = join(fx.home, '.claude', 'projects', '-home-user-diskfull');
      for (let i = 0; i < 3000; i++)
        extraHome
          .session({ cwd: '/home/user/diskfull' })
          .response({ ts: '2026-10-16T10:00:00.000Z', splits: 3, usage: { input: 5, output: 5, cacheRead: 5 } });
      const added = pickMetrics(extraHome.ledger.totals());
      const full = runCli(['ingest', '--db', db], envWith());
      const freeAtFailure = free();
      expect(full.status, full.stdout + full.stderr).not.toBe(0);
      expect(full.stderr).toMatch(/^tx-usage: .*(No space left on device|ENOSPC|disk full|out of space)/im);
      expect(full.stderr).not.toMatch(STACK);
      expect(full.stderr.trim().split('\n').length).toBeLessThanOrEqual(3);
      // Space back, the new data gone again: the previous store opens without a rebuild and says what it said.
      rmSync(filler);
      rmSync(dir, { recursive: true, force: true });
      const again = totalsOn(db);
      expect(again.stderr).not.toMatch(/unreadable|rebuilt/);
      expect(again.totals).toEqual(before);
      // And it takes the new data once it fits.
      const small = new ClaudeHome(join(fx.home, '.claude'));
      small
        .session({ cwd: '/home/user/diskfull' })
        .response({ ts: '2026-10-16T11:00:00.000Z', usage: { input: 3, output: 4 } });
      expect(totalsOn(db).totals).toEqual(sumMetrics([before, pickMetrics(small.ledger.totals())]));
      rmSync(dir, { recursive: true, force: true });
      console.log(
        `faults: store on a 48 MB tmpfs filled to ${freeAtFailure} bytes free; ingest of ${added.requests} new responses failed with "${full.stderr.trim().split('\n')[0]}"; previous store intact and usable afterwards`,
      );
    } finally {
      spawnSync('umount', [mnt]);
    }
    expect(existsSync(join(mnt, 'usage.duckdb'))).toBe(false); // unmounted
  });
});
