// Read-only proof for OpenCode databases: the database and its -wal keep their
// bytes and mtimes and no file is created beside them (only an existing -shm,
// the wal-index every reader updates, may change), including a database that
// another connection or process is writing to; a corrupt or locked database
// yields a warning naming it while every other source is still reported.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { opencode } from '../../src/harnesses/opencode/index.js';
import { collectSource, type Collected } from '../../src/ingest/collect.js';
import type { SourceRef } from '../../src/harnesses/types.js';
import { OpenCodeDb, sumExpected, type Expected } from '../../fixtures/opencode/builder.js';
import { buildChannelDb, buildMainDb, SONNET } from '../../fixtures/opencode/scenarios.js';
import { tempDir } from '../helpers/cli.js';

const root = tempDir('txu-opencode-ro-');
const tmpDir = join(root, 'tmp');
mkdirSync(tmpDir);
const open: OpenCodeDb[] = [];
const BETTER_SQLITE = resolve(__dirname, '../../node_modules/better-sqlite3');
afterAll(() => {
  open.forEach((d) => d.close());
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
function freshDir(): string {
  const d = join(root, `case-${++n}`);
  mkdirSync(d);
  return d;
}

interface Snap {
  listing: string[];
  files: Record<string, { sha: string; mtimeMs: number; size: number }>;
}

/** Everything in the database's directory: names, and bytes+mtime of all but the -shm. */
function snap(dbPath: string): Snap {
  const dir = dirname(dbPath);
  const files: Snap['files'] = {};
  const listing = readdirSync(dir).sort();
  for (const name of listing) {
    if (name.endsWith('-shm')) continue;
    const p = join(dir, name);
    const st = statSync(p);
    files[name] = {
      sha: createHash('sha256').update(readFileSync(p)).digest('hex'),
      mtimeMs: st.mtimeMs,
      size: st.size,
    };
  }
  return { listing, files };
}

async function sourcesIn(path: string): Promise<SourceRef[]> {
  return opencode.discover([{ path, origin: 'test', exists: true }], () => {});
}

async function collectDb(path: string): Promise<Collected> {
  const [src] = await sourcesIn(path);
  return collectSource(opencode, src!, { resume: null, tmpDir, knownProjects: new Set() });
}

function totals(c: Collected): Expected {
  return sumExpected(
    c.events.map((e) => ({
      requests: e.requests,
      input_tokens: e.input_tokens,
      cache_read_tokens: e.cache_read_tokens,
      cache_write_tokens: e.cache_write_tokens,
      output_tokens: e.output_tokens,
      reasoning_tokens: e.reasoning_tokens,
      total_tokens: e.input_tokens + e.cache_read_tokens + e.cache_write_tokens + e.output_tokens,
      cost_usd: e.recorded_cost_usd ?? 0,
    })),
  );
}

function expectTotals(actual: Expected, expected: Expected) {
  const { cost_usd: a, ...restA } = actual;
  const { cost_usd: b, ...restB } = expected;
  expect(restA).toEqual(restB);
  expect(a).toBeCloseTo(b, 10);
}

/** Reads the database and checks nothing but an existing -shm changed and no private copy is left. */
async function readAndProve(dbPath: string): Promise<Collected> {
  const before = snap(dbPath);
  const c = await collectDb(dbPath);
  // Read twice: a second reader must not find (or leave) anything new either.
  await collectDb(dbPath);
  expect(snap(dbPath)).toEqual(before);
  expect(readdirSync(tmpDir)).toEqual([]);
  return c;
}

describe('opencode is read-only on user data', () => {
  it('a database OpenCode is writing to (writer connection open, rows in the -wal, -shm present)', async () => {
    const db = buildMainDb(join(freshDir(), 'opencode.db'));
    open.push(db);
    expect([existsSync(db.path + '-wal'), existsSync(db.path + '-shm')]).toEqual([true, true]);
    expect(statSync(db.path + '-wal').size).toBeGreaterThan(0);
    const c = await readAndProve(db.path);
    expect(c.warnings).toEqual([]);
    expectTotals(totals(c), db.expected());
    // The writer still works and sees no interference.
    db.sessions[0]!.step({ input: 1, output: 1, cost: 0.0001 });
    expectTotals(totals(await readAndProve(db.path)), db.expected());
  });

  it('a cleanly closed WAL database (no -wal, no -shm): nothing is created beside it', async () => {
    const db = buildChannelDb(join(freshDir(), 'opencode.db'));
    const expected = db.expected();
    db.close();
    expect([existsSync(db.path + '-wal'), existsSync(db.path + '-shm')]).toEqual([false, false]);
    const c = await readAndProve(db.path);
    expect(existsSync(db.path + '-wal') || existsSync(db.path + '-shm')).toBe(false);
    expectTotals(totals(c), expected);
  });

  it('a -wal without its -shm: committed WAL rows are read, no -shm is created', async () => {
    const db = buildChannelDb(join(freshDir(), 'live.db'));
    open.push(db);
    const dir = freshDir();
    const copy = join(dir, 'opencode.db');
    copyFileSync(db.path, copy);
    copyFileSync(db.path + '-wal', copy + '-wal');
    const c = await readAndProve(copy);
    expect(existsSync(copy + '-shm')).toBe(false);
    expectTotals(totals(c), db.expected());
  });

  it('a database left by a killed OpenCode process (-wal and -shm, no writer)', async () => {
    const dir = freshDir();
    const path = join(dir, 'opencode.db');
    // The child builds the database with the compiled fixture builder, prints
    // its expected totals, and dies without closing (no checkpoint).
    const script = `
      const { buildChannelDb } = await import(${JSON.stringify(resolve(__dirname, '../../dist/fixtures/opencode/scenarios.js'))});
      const db = buildChannelDb(${JSON.stringify(path)});
      process.stdout.write(JSON.stringify(db.expected()), () => process.kill(process.pid, 'SIGKILL'));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.signal).toBe('SIGKILL');
    expect([existsSync(path + '-wal'), existsSync(path + '-shm')]).toEqual([true, true]);
    const c = await readAndProve(path);
    expectTotals(totals(c), JSON.parse(r.stdout));
  });

  it('stays readable while another process keeps writing to it', async () => {
    const db = buildChannelDb(join(freshDir(), 'opencode.db'));
    const base = db.expected();
    const session = db.sessions[0]!.id;
    db.close();
    // Another process appends one completed step per transaction (row + running totals).
    const writer = `
      const Database = require(${JSON.stringify(BETTER_SQLITE)});
      const db = new Database(${JSON.stringify(db.path)});
      db.pragma('journal_mode = WAL');
      const ins = db.prepare("INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, 'assistant', ?, ?, ?, ?)");
      const upd = db.prepare('UPDATE session_v2 SET tokens_input = tokens_input + 10, tokens_output = tokens_output + 2, cost = cost + 0.001 WHERE id = ?');
      const step = db.transaction((i) => {
        const t = ${Date.UTC(2026, 0, 7)} + i;
        ins.run('msg_w' + String(i).padStart(25, '0'), ${JSON.stringify(session)}, 1000 + i, t, t,
          JSON.stringify({ agent: 'build', model: { id: 'gpt-5.1-codex', providerID: 'openai' }, content: [], cost: 0.001,
            tokens: { input: 10, output: 2, reasoning: 0, cache: { read: 0, write: 0 } }, time: { created: t, completed: t + 1 } }));
        upd.run(${JSON.stringify(session)});
      });
      // It runs until its stdin ends, printing the number of steps committed after each commit.
      let i = 0;
      let stop = false;
      process.stdin.on('end', () => (stop = true)).resume();
      const tick = () => { if (stop) { db.close(); console.log('done ' + i); return; } step(i++); console.log(String(i)); setTimeout(tick, 3); };
      tick();`;
    const child = spawn(process.execPath, ['-e', writer], { stdio: ['pipe', 'pipe', 'inherit'] });
    const seen = { committed: 0, written: -1 };
    let buf = '';
    child.stdout.on('data', (b) => {
      const lines = (buf += b).split('\n');
      buf = lines.pop()!;
      for (const l of lines) {
        if (l.startsWith('done ')) seen.written = Number(l.slice(5));
        else seen.committed = Number(l);
      }
    });
    const done = new Promise<number | null>((res) => child.on('exit', res));
    // Each read starts after the writer has committed another step, however
    // slowly either side runs: reads and writes interleave by construction.
    const committedPast = async (n: number) => {
      while (seen.committed <= n) {
        if (child.exitCode !== null)
          throw new Error(`the writer exited (${child.exitCode}) after ${seen.committed} steps`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    let last = 0;
    try {
      for (let reads = 0; reads < 5; reads++) {
        await committedPast(last);
        const before = seen.committed;
        const c = await collectDb(db.path);
        expect(c.failed).toBe(false);
        expect(c.warnings).toEqual([]);
        const t = totals(c);
        // A consistent snapshot: rows and running totals from the same transaction set.
        expect(t.requests - base.requests).toBe((t.input_tokens - base.input_tokens) / 10);
        expect(c.events.filter((e) => e.requests === 0).map((e) => e.input_tokens)).toEqual([base.input_tokens - 5000]);
        // Every step committed before the read began is in it.
        expect(t.requests - base.requests).toBeGreaterThanOrEqual(before);
        expect(t.requests - base.requests).toBeGreaterThan(last);
        last = t.requests - base.requests;
      }
    } finally {
      child.stdin!.end();
    }
    expect(await done).toBe(0);
    expect(seen.written).toBeGreaterThanOrEqual(last);
    const final = totals(await collectDb(db.path));
    expect(final.requests).toBe(base.requests + seen.written);
    expect(final.input_tokens).toBe(base.input_tokens + 10 * seen.written);
  });
});

describe('opencode damaged and locked databases', () => {
  it('a corrupt, a not-a-database and a locked database each yield a warning naming them; every other source is still reported', async () => {
    const dir = freshDir();
    const good = buildMainDb(join(dir, 'opencode.db'));
    open.push(good);
    const channel = buildChannelDb(join(dir, 'opencode-dev.db'));
    open.push(channel);

    // Garbage: not a database at all.
    writeFileSync(join(dir, 'opencode-broken.db'), Buffer.alloc(8192, 0x5a));
    // A real database whose first page (the schema b-tree) is overwritten.
    const corruptPath = join(dir, 'opencode-corrupt.db');
    const c0 = buildChannelDb(corruptPath);
    c0.close();
    const fd = openSync(corruptPath, 'r+');
    writeSync(fd, Buffer.alloc(4096 - 100, 0xff), 0, 4096 - 100, 100);
    closeSync(fd);
    // Locked: another connection holds an exclusive lock (locking_mode=EXCLUSIVE writer).
    const lockedPath = join(dir, 'opencode-locked.db');
    const locked = buildChannelDb(lockedPath);
    open.push(locked);
    locked.writer.pragma('locking_mode = EXCLUSIVE');
    locked.sessions[0]!.step({ input: 77, output: 7, cost: 0.0077 });
    const probe = new Database(lockedPath, { readonly: true, timeout: 50 });
    expect(() => probe.prepare('SELECT count(*) FROM session_message').get()).toThrow(/locked/);
    probe.close();

    const sources = await sourcesIn(dir);
    expect(sources.map((s) => s.meta?.db)).toEqual([
      'opencode-broken.db',
      'opencode-corrupt.db',
      'opencode-dev.db',
      'opencode-locked.db',
      'opencode.db',
    ]);
    const results = new Map<string, Collected>();
    for (const s of sources)
      results.set(s.meta!.db!, await collectSource(opencode, s, { resume: null, tmpDir, knownProjects: new Set() }));

    const broken = results.get('opencode-broken.db')!;
    expect(broken.failed).toBe(true);
    expect(broken.events).toEqual([]);
    expect(broken.warnings).toEqual([`${join(dir, 'opencode-broken.db')}: cannot read: file is not a database`]);

    const corrupt = results.get('opencode-corrupt.db')!;
    expect(corrupt.failed).toBe(true);
    expect(corrupt.events).toEqual([]);
    expect(corrupt.warnings).toHaveLength(1);
    expect(corrupt.warnings[0]).toMatch(
      new RegExp(`^${corruptPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot read: .*malformed`),
    );

    const lockedResult = results.get('opencode-locked.db')!;
    expect(lockedResult.warnings).toEqual([
      `${lockedPath}: database is locked by another connection; read a private snapshot copy of it`,
    ]);
    expectTotals(totals(lockedResult), locked.expected());

    expectTotals(totals(results.get('opencode.db')!), good.expected());
    expectTotals(totals(results.get('opencode-dev.db')!), channel.expected());
    expect(readdirSync(tmpDir)).toEqual([]);
    locked.close();
  });

  it('a database removed between discovery and reading is a warning, not a crash', async () => {
    const dir = freshDir();
    const db = new OpenCodeDb(join(dir, 'opencode.db'), 'v2');
    db.session({ directory: '/x', model: SONNET }).step({ input: 1 });
    db.close();
    const [src] = await sourcesIn(dir);
    rmSync(db.path);
    const c = await collectSource(opencode, src!, { resume: null, tmpDir, knownProjects: new Set() });
    expect(c.failed).toBe(true);
    expect(c.warnings).toHaveLength(1);
    expect(c.warnings[0]!.startsWith(`${db.path}: cannot read:`)).toBe(true);
  });
});
