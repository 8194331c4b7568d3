// A store this user cannot write (shared from another machine, `chmod -w`)
// still answers a report: opened read-only, nothing ingested, a warning that
// says so (and how many sources it did not take in) on stderr and in the
// JSON's warnings, exit 0, and not one byte of the store's folder changed.
// With no store at all there is nothing to answer from: the read-only error
// as before. And a transcript that turns unreadable (chmod) without a change
// of size or mtime is not passed over as unchanged: its rows are kept and a
// warning names it. File modes bind no root: as root (CI), the CLI runs as
// uid 65534 (test/helpers/unprivileged.ts); as any other user, as itself.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome, type ClaudeSession } from '../../fixtures/claude-code/build.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { openUp, runCliAsNobody } from '../helpers/unprivileged.js';
import { unreadableMark, UNREADABLE } from '../../src/ingest/stamp.js';

const RANGE = ['--since', '2026-09-01', '--until', '2026-09-30'];
const asRoot = process.getuid?.() === 0;

type Report = { totals: { requests: number; input_tokens: number; output_tokens: number }; warnings: string[] };

describe.skipIf(process.platform === 'win32')('a store that cannot be written', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let a: ClaudeSession;
  let b: ClaudeSession;
  let storeDir: string;
  let db: string;

  beforeAll(() => {
    home = tempDir('txu-readonly-store-');
    const claude = new ClaudeHome(join(home, '.claude'));
    a = claude.session({ cwd: '/w/a' });
    a.response({ ts: '2026-09-03T10:00:00.000Z', model: 'claude-sonnet-4-5', usage: { input: 10, output: 20 } });
    b = claude.session({ cwd: '/w/b' });
    b.response({ ts: '2026-09-04T11:00:00.000Z', model: 'claude-sonnet-4-5', usage: { input: 1000, output: 2000 } });
    openUp(home);
    const cache = join(home, 'cache');
    mkdirSync(cache, { mode: 0o777 });
    chmodSync(cache, 0o777);
    storeDir = join(cache, 'tx-usage');
    db = join(storeDir, 'usage.duckdb');
    env = { ...cleanEnv(home), XDG_CACHE_HOME: cache };
  });
  afterAll(() => {
    writable(true);
    rmSync(home, { recursive: true, force: true });
  });

  const run = (args: string[]) => (asRoot ? runCliAsNobody(args, env, home) : runCli(args, env));
  const reportJson = (extra: string[] = []): Report & { stderr: string } => {
    const r = run(['report', ...RANGE, '--format', 'json', ...extra]);
    expect(r.status, r.stderr).toBe(0);
    return { ...(JSON.parse(r.stdout) as Report), stderr: r.stderr };
  };
  /** The store's folder and every file in it writable again, or not (folder 0555, files 0444). */
  function writable(yes: boolean): void {
    if (yes) chmodSync(storeDir, 0o755);
    for (const n of readdirSync(storeDir)) chmodSync(join(storeDir, n), yes ? 0o644 : 0o444);
    if (!yes) chmodSync(storeDir, 0o555);
  }
  /** Every file in the store's folder (the store, its WAL and lock, the memo, the discovery record...) by its bytes' hash. */
  const snapshot = () =>
    Object.fromEntries(
      readdirSync(storeDir)
        .sort()
        .map((n) => [
          n,
          createHash('sha256')
            .update(readFileSync(join(storeDir, n)))
            .digest('hex'),
        ]),
    );
  const readOnlyWarning = (w: string[]) => w.find((x) => x.startsWith(`the store ${db} is read-only (`));

  it('answers from what the store holds, with a warning in the table run (stderr) and the JSON, and writes nothing', () => {
    const first = reportJson();
    expect(first.totals).toMatchObject({ requests: 2, input_tokens: 1010, output_tokens: 2020 });
    expect(readOnlyWarning(first.warnings)).toBeUndefined();
    const table = run(['report', ...RANGE]);
    expect(table.status, table.stderr).toBe(0);

    writable(false);
    const before = snapshot();
    expect(Object.keys(before)).toContain('usage.duckdb');
    expect(Object.keys(before)).toContain('usage.duckdb.lock');

    // The same command lines as before: the memo entries they left are not replayed (they lack the warning).
    const ro = reportJson();
    expect(ro.totals).toEqual(first.totals);
    const w = readOnlyWarning(ro.warnings);
    expect(w).toMatch(
      /^the store .* is read-only \(.*: permission denied\): answered from what it holds, which no source has changed since it was last written \(give it write permission, or use --db for a store elsewhere\)$/,
    );
    expect(ro.stderr).toContain(w);
    const roTable = run(['report', ...RANGE]);
    expect(roTable.status, roTable.stderr).toBe(0);
    expect(roTable.stdout).toBe(table.stdout);
    expect(roTable.stderr).toContain(w);
    // `sql` queries it as it is too (its warning on stderr).
    const sql = run(['sql', 'SELECT count(*) AS n FROM usage_events', '--format', 'json']);
    expect(sql.status, sql.stderr).toBe(0);
    expect(JSON.parse(sql.stdout)).toEqual([{ n: 2 }]);
    expect(sql.stderr).toContain(w);
    expect(snapshot()).toEqual(before);

    // Other prices than the store was written with (an override): it cannot be repriced, and says so.
    const prices = join(home, 'prices.json');
    writeFileSync(
      prices,
      JSON.stringify({ 'claude-sonnet-4-5': { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 } }),
    );
    chmodSync(prices, 0o644);
    const repriced = reportJson(['--prices', prices]);
    expect(repriced.totals).toEqual(first.totals);
    expect(readOnlyWarning(repriced.warnings)).toContain(
      'which no source has changed since it was last written; its computed costs are at the prices it was last written with, not the current ones (give',
    );
    expect(snapshot()).toEqual(before);

    // A source changed since: not read (the answer is the store's), and said.
    a.response({ ts: '2026-09-05T10:00:00.000Z', model: 'claude-sonnet-4-5', usage: { input: 5, output: 6 } });
    const stale = reportJson();
    expect(stale.totals).toEqual(first.totals);
    expect(readOnlyWarning(stale.warnings)).toMatch(
      /: answered from what it holds: 1 source new or changed since it was last written was not read, so the answer may be stale \(give/,
    );
    expect(snapshot()).toEqual(before);

    // No lock file beside it, and none can be made (a store copied from elsewhere): answered all the same.
    rmSync(join(storeDir, 'usage.duckdb.lock'));
    const { 'usage.duckdb.lock': _lock, ...withoutLock } = before;
    const noLock = reportJson(['--by', 'model']);
    expect(noLock.totals).toEqual(first.totals);
    expect(readOnlyWarning(noLock.warnings)).toContain('1 source new or changed');
    const sqlNoLock = run(['sql', 'SELECT count(*) AS n FROM usage_events', '--format', 'json']);
    expect(sqlNoLock.status, sqlNoLock.stderr).toBe(0);
    expect(JSON.parse(sqlNoLock.stdout)).toEqual([{ n: 2 }]);
    expect(snapshot()).toEqual(withoutLock);

    // Writable again: the new response is read, and the warning is gone.
    writable(true);
    const after = reportJson();
    expect(after.totals).toMatchObject({ requests: 3, input_tokens: 1015, output_tokens: 2026 });
    expect(readOnlyWarning(after.warnings)).toBeUndefined();
  });

  it('with no store at all, in a folder that cannot be written: it cannot be created (not "read-only"), exit 1', () => {
    const dir = join(home, 'ro-empty');
    mkdirSync(dir, { mode: 0o555 });
    chmodSync(dir, 0o555);
    const path = join(dir, 'usage.duckdb');
    const r = run(['--db', path, 'report', ...RANGE]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    const cannot = (store: string, folder: string) =>
      `tx-usage: the store ${store} cannot be created (${folder}: permission denied): there is no store yet, and this user cannot make one there; give that folder write permission, or use --db for a store elsewhere\n`;
    expect(r.stderr).toBe(cannot(path, dir));
    expect(readdirSync(dir)).toEqual([]);
    // The default store, whose folder cannot be made: the same words, naming the folder it would be made in (not an EACCES line).
    const noCache = asRoot
      ? runCliAsNobody(['ingest'], { ...env, XDG_CACHE_HOME: join(dir, 'cache') }, home)
      : runCli(['ingest'], { ...env, XDG_CACHE_HOME: join(dir, 'cache') });
    expect([noCache.status, noCache.stdout, noCache.stderr]).toEqual([
      1,
      '',
      cannot(join(dir, 'cache', 'tx-usage', 'usage.duckdb'), dir),
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a transcript that turns unreadable without changing: its rows kept, a warning naming it, until it can be read', () => {
    const now = reportJson();
    expect(now.totals.requests).toBe(3);
    const { size, mtimeMs } = statSync(b.file);
    chmodSync(b.file, 0o000);
    try {
      expect(statSync(b.file)).toMatchObject({ size, mtimeMs });
      const denied = `${b.file}: cannot read: permission denied`;
      const during = reportJson();
      expect(during.totals).toEqual(now.totals);
      expect(during.warnings).toContain(denied);
      // Again: tried again (not memoized, not recorded as read), the same answer.
      expect(reportJson().warnings).toContain(denied);
    } finally {
      chmodSync(b.file, 0o644);
    }
    const after = reportJson();
    expect(after.totals).toEqual(now.totals);
    expect(after.warnings.join('\n')).not.toContain(b.file);
  });
});

describe('unreadableMark (the stat pass: may this process read the file?)', () => {
  // A path that does not exist: access(2) fails on it, so a '' proves no access call was needed.
  const nowhere = join('/nonexistent', 'tx-usage-read-mark');
  const me = { uid: 1000, gids: new Set([1000, 27]) };

  it('decides from the mode bits of the class the process is in (owner, else group, else other)', () => {
    expect(unreadableMark(nowhere, 0o100600, 1000, 5, me)).toBe('');
    expect(unreadableMark(nowhere, 0o100640, 0, 27, me)).toBe('');
    expect(unreadableMark(nowhere, 0o100604, 0, 0, me)).toBe('');
    // The owner's bits alone apply to the owner, even when others may read.
    expect(unreadableMark(nowhere, 0o100044, 1000, 1000, me)).toBe(UNREADABLE);
    expect(unreadableMark(nowhere, 0o100404, 0, 27, me)).toBe(UNREADABLE);
    expect(unreadableMark(nowhere, 0o100640, 0, 0, me)).toBe(UNREADABLE);
  });

  it('asks access(2) where the mode says no (an ACL may grant the read); never marks for root', () => {
    // The mode bits say no for this made-up user; access(2) for the process (which made the folder) says yes.
    expect(unreadableMark(tempDir('txu-read-mark-'), 0o40000, 4242, 4242, me)).toBe('');
    expect(unreadableMark(nowhere, 0, 0, 0, null)).toBe('');
  });
});
