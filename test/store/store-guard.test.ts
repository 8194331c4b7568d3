// Never destroy or hide (issue 25): `--db PATH` naming something that is not
// a tx-usage store is left exactly as it is (bytes and mtime) with exit 2; a
// store another tx-usage holds is waited for (told by the lock's error code);
// a store another program holds is reported, not touched; a damaged store of
// ours is moved aside, never deleted; --rebuild takes the lock before it
// removes anything.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { lockStore } from '../../src/store/lock.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { cleanEnv, CLI, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-01-01', '--until', '2026-12-31'];
const STACK = /\n\s+at /;
let home: string;
let work: string;
let totals: { requests: number; total_tokens: number };
const env = () => cleanEnv(home);

beforeAll(() => {
  home = tempDir('txu-guard-home-');
  work = tempDir('txu-guard-');
  const claude = new ClaudeHome(join(home, '.claude'));
  for (let i = 0; i < 4; i++)
    claude
      .session({ cwd: `/home/user/p${i % 2}` })
      .response({ ts: `2026-10-0${i + 1}T10:00:00.000Z`, usage: { input: 10 + i, output: 5, cacheRead: 100 } });
  const t = claude.ledger.totals();
  totals = {
    requests: t.requests,
    total_tokens: t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens,
  };
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** A JSON report; `by` differs between calls that must open the store (a repeated report may be answered from its memo). */
function report(db: string, by = 'harness') {
  const r = runCli(['report', ...RANGE, '--by', by, '--format', 'json', '--db', db], env());
  return { ...r, json: r.status === 0 ? JSON.parse(r.stdout) : null };
}

function snapshot(path: string): string {
  const st = statSync(path);
  if (st.isDirectory()) return `dir ${st.mtimeMs} ${readdirSync(path).sort().join(',')}`;
  return `${st.mtimeMs} ${st.size} ${readFileSync(path).toString('base64')}`;
}

/** Files in `dir` other than `keep`, to prove nothing was added beside a refused path. */
const listing = (dir: string) => readdirSync(dir).sort();

function runAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (b) => (stdout += b));
    c.stderr.on('data', (b) => (stderr += b));
    c.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

async function foreignDuckDb(path: string, withWal: boolean): Promise<void> {
  const inst = await DuckDBInstance.create(path);
  const conn = await inst.connect();
  await conn.run('CREATE TABLE meta (key VARCHAR, value VARCHAR)');
  await conn.run("INSERT INTO meta VALUES ('schema_version', '3')");
  await conn.run('CREATE TABLE orders AS SELECT range AS id FROM range(100)');
  await conn.run('CHECKPOINT');
  if (withWal) {
    await conn.run('PRAGMA disable_checkpoint_on_shutdown');
    await conn.run('INSERT INTO orders VALUES (1000)');
  }
  conn.closeSync();
  inst.closeSync();
}

describe('--db naming something that is not a tx-usage store', () => {
  it('is left untouched (bytes, mtime, nothing beside it) with exit 2 and one line, for every command and with --rebuild', async () => {
    const dir = join(work, 'foreign');
    mkdirSync(dir);
    const cases: Record<string, string> = {
      text: join(dir, 'notes.txt'),
      empty: join(dir, 'empty.duckdb'),
      directory: join(dir, 'a-directory'),
      sqlite: join(dir, 'app.sqlite'),
      'other DuckDB file': join(dir, 'other.duckdb'),
      'other DuckDB file with a WAL': join(dir, 'other-wal.duckdb'),
    };
    writeFileSync(cases.text!, 'my notes\n'.repeat(50));
    writeFileSync(cases.empty!, '');
    mkdirSync(cases.directory!);
    writeFileSync(join(cases.directory!, 'keep.txt'), 'x');
    writeFileSync(cases.sqlite!, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4080)]));
    await foreignDuckDb(cases['other DuckDB file']!, false);
    await foreignDuckDb(cases['other DuckDB file with a WAL']!, true);
    expect(existsSync(cases['other DuckDB file with a WAL']! + '.wal')).toBe(true);
    // mtimes in the past, so that any write would show
    for (const p of Object.values(cases))
      utimesSync(p, new Date('2025-01-01T00:00:00Z'), new Date('2025-01-01T00:00:00Z'));
    const before = new Map(Object.values(cases).map((p) => [p, snapshot(p)]));
    const wal = cases['other DuckDB file with a WAL']! + '.wal';
    const walBefore = snapshot(wal);
    const files = listing(dir);
    const commands = [
      ['report', ...RANGE],
      ['ingest'],
      ['sources'],
      ['sql', 'SELECT 1 AS one'],
      ['report', ...RANGE, '--rebuild'],
      ['ingest', '--rebuild'],
    ];
    for (const [name, path] of Object.entries(cases)) {
      for (const args of commands) {
        const r = runCli([...args, '--db', path], env());
        expect(r.status, `${name}: ${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(
          new RegExp(`^tx-usage: not a tx-usage store: ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`),
        );
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).not.toMatch(STACK);
        expect(r.stdout).toBe('');
        expect(snapshot(path), `${name} after ${args.join(' ')}`).toBe(before.get(path));
      }
    }
    expect(snapshot(wal)).toBe(walBefore);
    expect(listing(dir)).toEqual(files); // no lock file, WAL or store left beside any of them
  });
});

describe('PATH.lock', () => {
  it("a SQLite file of someone else's at the lock file's name is not written to (exit 2)", async () => {
    const db = join(work, 'locked-by-name.duckdb');
    const Database = (await import('better-sqlite3')).default;
    const other = new Database(`${db}.lock`);
    other.exec('CREATE TABLE notes (x TEXT)');
    other.close();
    const before = snapshot(`${db}.lock`);
    const r = report(db);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is not tx-usage's lock file \(it holds other tables\): left as it is/);
    expect(snapshot(`${db}.lock`)).toBe(before);
    expect(existsSync(db)).toBe(false);
  });
});

describe('the store in use', () => {
  it('another tx-usage holding the store is waited for (its lock), then the command succeeds', async () => {
    const db = join(work, 'waited.duckdb');
    expect(report(db).status).toBe(0);
    const held = await lockStore(db, 'exclusive');
    const started = Date.now();
    const run = runAsync(['report', ...RANGE, '--by', 'model', '--format', 'json', '--db', db]);
    await new Promise((r) => setTimeout(r, 1500));
    held.release();
    const r = await run;
    expect(r.status, r.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(JSON.parse(r.stdout).totals.requests).toBe(totals.requests);
    expect(r.stderr).not.toMatch(/unreadable|moved aside|rebuilt/);
  });

  it("another program holding the store (DuckDB's own lock, no tx-usage lock) is reported; the store is not moved or changed", async () => {
    const db = join(work, 'held-elsewhere.duckdb');
    expect(report(db).status).toBe(0);
    const before = snapshot(db);
    // A plain DuckDB process (not tx-usage) opens the store for writing and keeps it open.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const {DuckDBInstance}=require('@duckdb/node-api');DuckDBInstance.create(${JSON.stringify(db)}).then(i=>i.connect()).then(()=>{console.log('open');setTimeout(()=>{},30000)})`,
      ],
      { cwd: join(__dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
      const r = report(db, 'day');
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        /^tx-usage: the store .*held-elsewhere\.duckdb is open in another program \(not tx-usage\): close it and try again/,
      );
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(snapshot(db)).toBe(before);
      expect(readdirSync(work).filter((f) => f.includes('held-elsewhere') && f.includes('broken'))).toEqual([]);
    } finally {
      holder.kill();
    }
    expect(report(db, 'day').json.totals.requests).toBe(totals.requests);
  });
});

describe('a damaged store of ours', () => {
  it('is moved aside as PATH.broken-<time> with its bytes, and a new store is built', async () => {
    for (const damage of ['truncated', 'overwritten'] as const) {
      const db = join(work, `damaged-${damage}.duckdb`);
      expect(report(db).status).toBe(0);
      // Everything into the file itself (a small run leaves its rows in the WAL).
      const inst = await DuckDBInstance.create(db);
      const ck = await inst.connect();
      await ck.run('CHECKPOINT');
      ck.closeSync();
      inst.closeSync();
      const size = statSync(db).size;
      // Damaged in place: the same file tx-usage made, its header intact.
      if (damage === 'truncated') truncateSync(db, Math.max(4096 * 3, Math.floor(size / 3)));
      else {
        const bytes = readFileSync(db);
        bytes.fill(0xa5, 4096, bytes.length);
        writeFileSync(db, bytes);
      }
      rmSync(db + '.wal', { force: true });
      const damagedBytes = readFileSync(db);
      const r = report(db, 'project');
      expect(r.status, r.stderr).toBe(0);
      expect(r.json.totals.requests).toBe(totals.requests);
      expect(r.stderr).toMatch(
        /tx-usage: store .* was unreadable \(.*\); moved aside to .*\.broken-\d{8}T\d{6}Z, and a new one is built from the sources/,
      );
      const aside = readdirSync(work).filter((f) => f.startsWith(`damaged-${damage}.duckdb.broken-`));
      expect(aside).toHaveLength(1);
      expect(readFileSync(join(work, aside[0]!)).equals(damagedBytes)).toBe(true);
      expect(report(db, 'model').stderr).not.toMatch(/unreadable/);
    }
  });
});

describe('--rebuild', () => {
  it('takes the lock before it removes anything', async () => {
    const db = join(work, 'rebuild.duckdb');
    expect(report(db).status).toBe(0);
    const held = await lockStore(db, 'exclusive');
    const before = snapshot(db);
    const run = runAsync(['ingest', '--rebuild', '--db', db]);
    await new Promise((r) => setTimeout(r, 1500));
    // Still waiting for the lock: nothing removed yet.
    expect(snapshot(db)).toBe(before);
    held.release();
    const r = await run;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/rebuilt from the sources \(--rebuild\)/);
    expect(report(db, 'day').json.totals.requests).toBe(totals.requests);
  });
});

describe('a store made before the marker (schema v3)', () => {
  it('is recognised by its tables and migrated in place: its rows stay, nothing is re-read', async () => {
    const db = join(work, 'v3.duckdb');
    const inst = await DuckDBInstance.create(db);
    const conn = await inst.connect();
    for (const ddl of MIGRATIONS.slice(0, 3)) await conn.run(ddl);
    await conn.run("INSERT INTO meta VALUES ('schema_version', '3')");
    conn.closeSync();
    inst.closeSync();
    const r = runCli(['ingest', '--db', db], env());
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/moved aside|rebuilt/);
    const meta = runCli(['sql', "SELECT value FROM meta WHERE key = 'app'", '--format', 'json', '--db', db], env());
    expect(JSON.parse(meta.stdout)).toEqual([{ value: 'tx-usage' }]);
    expect(report(db).json.totals.requests).toBe(totals.requests);
  });
});
