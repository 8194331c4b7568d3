// Do no work when nothing changed (issue 29): once an ingest has read
// everything it found, the next one whose sources have the same stamps reads,
// plans and writes nothing — no transaction, no commit: the store's files keep
// their bytes and mtimes. Any change (a touched file, a new or deleted one, a
// source left unread under the horizon) takes the full path again.
import { existsSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let home: string;
let claude: ClaudeHome;
beforeAll(() => {
  home = tempDir('txu-nochange-');
  claude = new ClaudeHome(join(home, '.claude'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const statsFile = () => join(home, 'stats.json');
function ingest(db: string): any {
  rmSync(statsFile(), { force: true });
  const r = runCli(['ingest', '--db', db], cleanEnv(home, { TX_USAGE_STATS: statsFile() }));
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(readFileSync(statsFile(), 'utf8'));
}

/** Every file of the store (the database, its WAL), by size, mtime and bytes. */
function storeState(db: string): string {
  return ['', '.wal']
    .map((s) => db + s)
    .filter((p) => existsSync(p))
    .map((p) => `${p} ${statSync(p).size} ${statSync(p).mtimeMs} ${readFileSync(p).toString('base64')}`)
    .join('\n');
}

function storedDigest(db: string): string | null {
  const r = runCli(
    ['sql', "SELECT value FROM meta WHERE key = 'sources_digest'", '--format', 'json', '--db', db],
    cleanEnv(home),
  );
  return JSON.parse(r.stdout)[0]?.value ?? null;
}

describe('an ingest with nothing changed', () => {
  it('writes nothing (store files unchanged), reads nothing; any change is read', () => {
    const db = join(home, 'store.duckdb');
    const s = claude.session({ cwd: '/home/u/a' });
    s.response({ ts: '2026-10-01T10:00:00.000Z', usage: { input: 10, output: 5 } });
    const t = claude.session({ cwd: '/home/u/b' });
    t.response({ ts: '2026-10-02T10:00:00.000Z', usage: { input: 20, output: 5 } });
    expect(ingest(db)).toMatchObject({ rewritten: 2 });
    expect(storedDigest(db)).toMatch(/\S/);

    const before = storeState(db);
    const again = ingest(db);
    expect(again).toMatchObject({ rewritten: 0, appended: 0, unchanged: 2, bytesRead: 0, upToDate: true });
    expect(storeState(db)).toBe(before); // no transaction, no commit
    // A report too.
    const rep = runCli(
      ['report', '--since', '2026-01-01', '--until', '2026-12-31', '--format', 'json', '--db', db],
      cleanEnv(home),
    );
    expect(JSON.parse(rep.stdout).totals.requests).toBe(2);
    expect(storeState(db)).toBe(before);

    // A touched file (same bytes, new mtime) is looked at again.
    utimesSync(t.file, new Date(), new Date('2026-10-03T00:00:00Z'));
    expect(ingest(db)).toMatchObject({ rewritten: 1, unchanged: 1, upToDate: false });
    // Appended lines are read.
    s.response({ ts: '2026-10-04T10:00:00.000Z', usage: { input: 30, output: 5 } });
    expect(ingest(db)).toMatchObject({ appended: 1, unchanged: 1 });
    // A file gone: marked retained, then quiet again.
    rmSync(t.file);
    expect(ingest(db)).toMatchObject({ removed: 1, retained: 1 });
    const quiet = storeState(db);
    expect(ingest(db)).toMatchObject({ removed: 0, retained: 1, unchanged: 1, bytesRead: 0, upToDate: true });
    expect(storeState(db)).toBe(quiet);
  });

  it('a run that left sources unread (horizon): a wider report still reads them', () => {
    const h = tempDir('txu-nochange-horizon-');
    try {
      const c = new ClaudeHome(join(h, '.claude'));
      const old = c.session({ cwd: '/home/u/old' });
      old.response({ ts: '2025-01-05T10:00:00.000Z', usage: { input: 7, output: 7 } });
      utimesSync(old.file, new Date('2025-01-05T10:00:00Z'), new Date('2025-01-05T10:00:00Z'));
      const recent = c.session({ cwd: '/home/u/new' });
      recent.response({ ts: '2026-11-20T10:00:00.000Z', usage: { input: 1, output: 1 } });
      const db = join(h, 'store.duckdb');
      const env = cleanEnv(h);
      const narrow = runCli(
        ['report', '--since', '2026-11-01', '--until', '2026-11-30', '--format', 'json', '--db', db],
        env,
      );
      expect(JSON.parse(narrow.stdout).totals.requests).toBe(1);
      const digest = runCli(
        ['sql', "SELECT count(*) AS n FROM meta WHERE key = 'sources_digest'", '--format', 'json', '--db', db],
        env,
      );
      // (sql itself ingests everything first: the old file is read by it, and the digest recorded then.)
      expect(JSON.parse(digest.stdout)[0].n).toBe(1);
      const wide = runCli(
        ['report', '--since', '2025-01-01', '--until', '2026-12-31', '--format', 'json', '--db', db],
        env,
      );
      expect(JSON.parse(wide.stdout).totals.requests).toBe(2);
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });

  it('a deferring run records the digest with its horizon: a report no further back is up to date, one further back reads what was left', () => {
    const h = tempDir('txu-nochange-defer-');
    try {
      const c = new ClaudeHome(join(h, '.claude'));
      const old = c.session({ cwd: '/home/u/old' });
      old.response({ ts: '2025-01-05T10:00:00.000Z', usage: { input: 7, output: 7 } });
      utimesSync(old.file, new Date('2025-01-05T10:00:00Z'), new Date('2025-01-05T10:00:00Z'));
      c.session({ cwd: '/home/u/new' }).response({ ts: '2026-11-20T10:00:00.000Z', usage: { input: 1, output: 1 } });
      const db = join(h, 'store.duckdb');
      const stats = join(h, 'stats.json');
      const env = cleanEnv(h, { TX_USAGE_STATS: stats });
      runCli(['report', '--since', '2026-11-01', '--until', '2026-11-30', '--format', 'json', '--db', db], env);
      expect(JSON.parse(readFileSync(stats, 'utf8'))).toMatchObject({ deferred: 1 });
      const r = runCli(
        ['report', '--since', '2026-11-02', '--until', '2026-11-30', '--format', 'json', '--db', db],
        env,
      );
      expect(r.status).toBe(0);
      // The second narrow report needs nothing the first left unread: the store is up to date for it.
      expect(JSON.parse(readFileSync(stats, 'utf8'))).toMatchObject({ upToDate: true, rewritten: 0 });
      const wide = runCli(
        ['report', '--since', '2025-01-01', '--until', '2026-11-30', '--format', 'json', '--db', db],
        env,
      );
      expect(JSON.parse(wide.stdout).totals.requests).toBe(2);
      expect(JSON.parse(readFileSync(stats, 'utf8'))).toMatchObject({ upToDate: false, rewritten: 1, deferred: 0 });
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });
});

describe('the sources digest', () => {
  it('is dropped by every write transaction: an ingest stopped after writing leaves none', async () => {
    const { openStore } = await import('../../src/store/store.js');
    const { BatchWriter, markRetained } = await import('../../src/store/write.js');
    const { recordSourcesDigest, storedSourcesDigest } = await import('../../src/store/sources-digest.js');
    const { sourceWrite } = await import('../helpers/source-write.js');
    const store = await openStore(join(home, 'digest.duckdb'));
    try {
      await recordSourcesDigest(store.conn, 'd1', null);
      expect(await storedSourcesDigest(store.conn)).toBe('d1');
      const w = new BatchWriter(store.conn, () => 1n);
      await w.write([sourceWrite('a', 2)]);
      await w.commit();
      expect(await storedSourcesDigest(store.conn)).toBeNull();
      await recordSourcesDigest(store.conn, 'd2', null);
      await markRetained(store.conn, ['/h/a.jsonl'], []);
      expect(await storedSourcesDigest(store.conn)).toBeNull();
    } finally {
      await store.close();
    }
  });
});
