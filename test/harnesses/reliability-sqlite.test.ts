// Damaged, locked and unknown SQLite databases (OpenCode, Cursor), end to end
// through the CLI, in one home next to healthy data: each bad database is a
// warning naming it, the report exits 0, and every healthy source (other
// databases of the same harness, and the other harnesses) is still reported
// exactly. Lock holders are separate processes, as a running harness is.
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { buildCursorHome, md5, PROJECT_A, PROJECT_B, type CursorFixture } from '../../fixtures/cursor-agent/home.js';
import { sumExpected, type Expected, type OpenCodeDb } from '../../fixtures/opencode/builder.js';
import { buildChannelDb, buildMainDb } from '../../fixtures/opencode/scenarios.js';
import { holdLock, type HeldLock } from '../../fixtures/sqlite-lock.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2025-12-01', '--until', '2026-12-31'];
const TOKENS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
] as const;
const tokens = (r: any) => Object.fromEntries(TOKENS.map((k) => [k, r[k]]));

const home = tempDir('txu-sqlite-bad-');
const dataDir = join(home, '.local', 'share', 'opencode');
mkdirSync(dataDir, { recursive: true });
const locks: HeldLock[] = [];
const open: OpenCodeDb[] = [];
/** Expected OpenCode totals: databases that must be counted (committed content only). */
const counted: Expected[] = [];
/** What each bad database's warning must say, by path. */
const mustWarn = new Map<string, RegExp>();
/** Databases read without any warning. */
const quiet: string[] = [];
let claudeExpected: Record<string, unknown>;
let cursor: CursorFixture;
const cursorBad = new Map<string, RegExp>();
const cursorHealthy: string[] = [];

/** A closed (checkpointed, clean WAL-mode) channel database named `name`; its expected totals. */
function closedChannel(name: string): { path: string; db: OpenCodeDb; expected: Expected } {
  const db = buildChannelDb(join(dataDir, name));
  const expected = db.expected();
  db.close();
  return { path: db.path, db, expected };
}

/** One completed step + the session's running totals, as OpenCode writes them in one transaction. */
function stepSql(session: string, n: number): string {
  const t = Date.UTC(2026, 0, 7) + n;
  const data = JSON.stringify({
    agent: 'build',
    model: { id: 'gpt-5.1-codex', providerID: 'openai' },
    content: [],
    cost: 0.001,
    tokens: { input: 10, output: 2, reasoning: 0, cache: { read: 0, write: 0 } },
    time: { created: t, completed: t + 1 },
  });
  return (
    `INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES ('msg_lock${String(n).padStart(22, '0')}', '${session}', 'assistant', ${1000 + n}, ${t}, ${t}, '${data}');` +
    `UPDATE session_v2 SET tokens_input = tokens_input + 10, tokens_output = tokens_output + 2, cost = cost + 0.001 WHERE id = '${session}';`
  );
}
const STEP: Expected = {
  requests: 1,
  input_tokens: 10,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: 2,
  reasoning_tokens: 0,
  total_tokens: 12,
  cost_usd: 0.001,
};

beforeAll(async () => {
  // Another harness beside them: must be reported whatever happens to the databases.
  const claude = new ClaudeHome(join(home, '.claude'));
  claude
    .session({ cwd: PROJECT_A })
    .response({ ts: '2026-10-03T10:00:00.000Z', usage: { input: 10, output: 20, cacheRead: 30 } });
  // Cursor resolves its folder md5s against the cwds other harnesses know (the fixture's known projects).
  claude.session({ cwd: PROJECT_B }).response({ ts: '2026-10-04T10:00:00.000Z', usage: { input: 1, output: 2 } });
  claudeExpected = tokens(claude.ledger.totals());

  // OpenCode running: writer open, rows in the -wal, -shm present.
  const main = buildMainDb(join(dataDir, 'opencode.db'));
  open.push(main);
  counted.push(main.expected());
  quiet.push(main.path);

  // Truncated to half its size.
  const trunc = closedChannel('opencode-truncated.db');
  truncateSync(trunc.path, Math.floor(statSync(trunc.path).size / 2));
  mustWarn.set(trunc.path, /: cannot read: database disk image is malformed$/);

  // Not a database, with the right name.
  const notDb = join(dataDir, 'opencode-notes.db');
  writeFileSync(notDb, 'OpenCode settings backup\n'.repeat(400));
  mustWarn.set(notDb, /: cannot read: file is not a database$/);

  // -wal without -shm: committed WAL rows read from a private copy; no -shm created.
  const live = buildChannelDb(join(tempDir('txu-sqlite-live-'), 'live.db'));
  open.push(live);
  const walNoShm = join(dataDir, 'opencode-walnoshm.db');
  copyFileSync(live.path, walNoShm);
  copyFileSync(live.path + '-wal', walNoShm + '-wal');
  counted.push(live.expected());
  quiet.push(walNoShm);

  // -shm without -wal (a stale wal-index left behind) and a clean WAL database with neither.
  const shmNoWal = closedChannel('opencode-shmnowal.db');
  copyFileSync(main.path + '-shm', shmNoWal.path + '-shm');
  counted.push(shmNoWal.expected);
  quiet.push(shmNoWal.path);
  const clean = closedChannel('opencode-clean.db');
  counted.push(clean.expected);
  quiet.push(clean.path);

  // Rollback-journal database under BEGIN EXCLUSIVE with an uncommitted step: readers are
  // blocked; a snapshot copy (with the hot journal) gives the last commit, with a warning.
  const rb = closedChannel('opencode-locked-rollback.db');
  const conv = new Database(rb.path);
  conv.pragma('journal_mode = DELETE');
  conv.close();
  locks.push(await holdLock(rb.path, { how: 'begin-exclusive', sql: stepSql(rb.db.sessions[0]!.id, 1) }));
  counted.push(rb.expected);
  mustWarn.set(rb.path, /: database is locked by another connection; read a private snapshot copy of it$/);

  // WAL database under BEGIN EXCLUSIVE with an uncommitted step: readers see the last commit, no wait.
  const wl = closedChannel('opencode-locked-wal.db');
  locks.push(await holdLock(wl.path, { how: 'begin-exclusive', sql: stepSql(wl.db.sessions[0]!.id, 2) }));
  counted.push(wl.expected);
  quiet.push(wl.path);

  // WAL database held in locking_mode=EXCLUSIVE after a COMMITTED step (only in its -wal).
  const lx = closedChannel('opencode-locked-exclusive.db');
  locks.push(await holdLock(lx.path, { how: 'locking-mode', sql: stepSql(lx.db.sessions[0]!.id, 3) }));
  counted.push(sumExpected([lx.expected, STEP]));

  // Schemas from unknown future versions: known tables gone, or a known table with new columns.
  const future1 = new Database(join(dataDir, 'opencode-future.db'));
  future1.exec(
    'CREATE TABLE session_v9 (id TEXT PRIMARY KEY, body BLOB); CREATE TABLE event_log_v9 (id TEXT, payload BLOB); PRAGMA user_version = 9;',
  );
  future1.close();
  mustWarn.set(
    join(dataDir, 'opencode-future.db'),
    /: no OpenCode session tables \(session_message or message\) found; nothing read$/,
  );
  const future2 = new Database(join(dataDir, 'opencode-future2.db'));
  future2.exec(
    "CREATE TABLE session_v2 (id TEXT PRIMARY KEY, doc BLOB); CREATE TABLE session_message (id TEXT PRIMARY KEY, session TEXT, payload BLOB); INSERT INTO session_message VALUES ('m', 's', x'00');",
  );
  future2.close();
  mustWarn.set(
    join(dataDir, 'opencode-future2.db'),
    /: cannot read: unrecognised database schema \(no such column: \w+\); written by a newer OpenCode\? nothing read from it$/,
  );

  // Cursor: healthy chats next to a truncated, a not-a-database, a -shm-without--wal, a locked
  // and a future-schema store.
  cursor = buildCursorHome(home);
  const byName = (n: string) => cursor.chats.find((c) => c.name === n)!;
  const truncated = byName('acp').dbPath;
  truncateSync(truncated, Math.floor(statSync(truncated).size / 2));
  cursorBad.set(truncated, /: cannot read: database disk image is malformed$/);
  const notDbChat = join(cursor.configDir, 'chats', md5(PROJECT_A), '0c0c0c0c-0000-4000-8000-0000000000ee', 'store.db');
  mkdirSync(dirname(notDbChat), { recursive: true });
  writeFileSync(notDbChat, 'not a sqlite file '.repeat(100));
  cursorBad.set(notDbChat, /: cannot read: file is not a database$/);
  const shmOnly = byName('subagent-store').dbPath;
  copyFileSync(byName('live').dbPath + '-shm', shmOnly + '-shm');
  cursorHealthy.push(shmOnly);
  const lockedChat = byName('unknown-project').dbPath; // rollback-journal store
  locks.push(
    await holdLock(lockedChat, {
      how: 'begin-exclusive',
      sql: "INSERT INTO blobs (id, data) VALUES ('" + 'f'.repeat(64) + "', x'0a0b')",
    }),
  );
  cursorBad.set(lockedChat, /: database is locked by another connection; read a private snapshot copy of it$/);
  const futureChat = byName('no-root').dbPath;
  const fc = new Database(futureChat);
  fc.exec(
    'DROP TABLE meta; DROP TABLE blobs; CREATE TABLE kv_v2 (k TEXT PRIMARY KEY, v BLOB); CREATE TABLE blob_store_v2 (id TEXT PRIMARY KEY, data BLOB); PRAGMA user_version = 2;',
  );
  fc.close();
  cursorBad.set(
    futureChat,
    /: cannot read: unrecognised database schema \(no such table: \w+\); written by a newer Cursor Agent\? nothing read from it$/,
  );
  for (const c of cursor.chats)
    if (![truncated, lockedChat, futureChat].includes(c.dbPath)) cursorHealthy.push(c.dbPath);
});

afterAll(async () => {
  for (const l of locks) await l.release();
  for (const d of open) d.close();
});

describe('damaged, locked and future-version SQLite databases', () => {
  it('the lock holders really block (or do not block) readers as intended', () => {
    const probe = (p: string) => {
      const db = new Database(p, { readonly: true, fileMustExist: true, timeout: 0 });
      try {
        db.prepare('SELECT count(*) FROM sqlite_master').get();
        return 'readable';
      } catch (e) {
        return (e as { code?: string }).code ?? 'error';
      } finally {
        db.close();
      }
    };
    expect(probe(join(dataDir, 'opencode-locked-rollback.db'))).toMatch(/^SQLITE_BUSY/);
    expect(probe(join(dataDir, 'opencode-locked-wal.db'))).toBe('readable');
    expect(existsSync(join(dataDir, 'opencode-locked-rollback.db-journal'))).toBe(true);
    expect(locks.every((l) => l.child.exitCode === null)).toBe(true);
    console.log(
      `sqlite locks: ${locks.length} lock-holding processes alive; rollback db blocks readers, WAL db does not`,
    );
  });

  it('report: each bad database is a warning naming it; OpenCode, Claude Code and healthy Cursor chats are exact; exit 0', () => {
    const env = cleanEnv(home);
    const r = runCli(['report', ...RANGE, '--by', 'harness', '--format', 'json'], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const j = JSON.parse(r.stdout);
    const by = new Map(j.rows.map((x: any) => [x.harness, x]));
    const oc = sumExpected(counted);
    expect(tokens(by.get('opencode'))).toEqual(tokens(oc));
    expect((by.get('opencode') as any).cost_usd).toBeCloseTo(oc.cost_usd, 8);
    expect(tokens(by.get('claude-code'))).toEqual(claudeExpected);
    const warnings: string[] = j.warnings;
    for (const [path, re] of [...mustWarn, ...cursorBad]) {
      const mine = warnings.filter((w) => w.startsWith(path + ':') || w.startsWith(path + ' ('));
      expect(
        mine.some((w) => re.test(w)),
        `${path}: ${re}\n${mine.join('\n')}`,
      ).toBe(true);
    }
    for (const p of [...quiet, ...cursorHealthy])
      expect(
        warnings.filter((w) => w.startsWith(p)),
        p,
      ).toEqual([]);
    // locking_mode=EXCLUSIVE: either read in place or from a snapshot copy; if a warning, only that one.
    const lx = join(dataDir, 'opencode-locked-exclusive.db');
    for (const w of warnings.filter((x) => x.startsWith(lx)))
      expect(w).toBe(`${lx}: database is locked by another connection; read a private snapshot copy of it`);
    // No -shm or -wal was created beside any database by reading it.
    expect(existsSync(join(dataDir, 'opencode-walnoshm.db-shm'))).toBe(false);
    expect(existsSync(join(dataDir, 'opencode-shmnowal.db-wal'))).toBe(false);
    expect(
      existsSync(join(dataDir, 'opencode-clean.db-wal')) || existsSync(join(dataDir, 'opencode-clean.db-shm')),
    ).toBe(false);
    expect(existsSync(cursorHealthy[0] + '-wal')).toBe(false);
    console.log(
      `sqlite bad-input cases: opencode ${mustWarn.size} warned (truncated, not-a-db, locked rollback db, 2 future schemas) + ${quiet.length} read quietly (running, -wal w/o -shm, -shm w/o -wal, clean WAL, BEGIN EXCLUSIVE in WAL) + 1 locking_mode=EXCLUSIVE; cursor ${cursorBad.size} warned (truncated, not-a-db, locked, future schema) + ${cursorHealthy.length} healthy; ${locks.length} lock-holding processes`,
    );
  });

  it('sources: healthy Cursor chats keep their exact context rows; damaged ones are listed with their warning', () => {
    const r = runCli(['sources', '--format', 'json'], cleanEnv(home));
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    const cur = j.harnesses.find((h: any) => h.harness === 'cursor-agent');
    const bySource = new Map<string, any>(cur.sources.map((s: any) => [s.path, s]));
    for (const c of cursor.chats) {
      if (!cursorHealthy.includes(c.dbPath) && !cursorBad.has(c.dbPath)) continue;
      const s = bySource.get(c.dbPath);
      expect(s, c.dbPath).toBeDefined();
      if (cursorBad.has(c.dbPath) && !/locked/.test(String(cursorBad.get(c.dbPath))))
        expect(s.context_rows, c.name).toBe(0);
      else expect(s.context_rows, c.name).toBe(c.rows.length);
    }
    for (const p of cursorBad.keys()) expect(bySource.get(p)?.warnings.length, p).toBeGreaterThan(0);
    // Exact rows for the healthy chats and the locked one.
    const q = runCli(
      [
        'sql',
        "SELECT session, project, model, turns, latest_used_tokens, max_tokens, peak_used_tokens, first_ts_ms, last_ts_ms FROM context_rows WHERE harness = 'cursor-agent' ORDER BY session",
        '--format',
        'json',
      ],
      cleanEnv(home),
    );
    expect(q.status, q.stderr).toBe(0);
    const got = new Map<string, any>((JSON.parse(q.stdout) as any[]).map((x) => [x.session, x]));
    let checked = 0;
    for (const c of cursor.chats) {
      if (!cursorHealthy.includes(c.dbPath) && !/locked/.test(String(cursorBad.get(c.dbPath) ?? ''))) continue;
      for (const row of c.rows) {
        const g = got.get(row.session);
        expect(g, row.session).toBeDefined();
        const ms = (v: unknown) => (v === null ? null : Number(v));
        expect({
          ...g,
          ...Object.fromEntries(
            ['turns', 'latest_used_tokens', 'max_tokens', 'peak_used_tokens', 'first_ts_ms', 'last_ts_ms'].map((k) => [
              k,
              ms(g[k]),
            ]),
          ),
        }).toEqual({
          session: row.session,
          project: row.project,
          model: row.model,
          turns: row.turns,
          latest_used_tokens: row.latest_used_tokens,
          max_tokens: row.max_tokens,
          peak_used_tokens: row.peak_used_tokens,
          first_ts_ms: row.first_ts,
          last_ts_ms: row.last_ts,
        });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
    console.log(
      `sqlite sources: ${cursorBad.size} damaged Cursor stores listed with warnings, ${checked} context rows exact`,
    );
  });

  it('after the lock holders finish, what they committed is counted and nothing else', async () => {
    // The rollback-journal holder commits its step; the WAL holder rolls back; the exclusive-mode one closes.
    const [rb, wl, lx] = locks;
    await rb!.release({ commit: true });
    await wl!.release();
    await lx!.release();
    for (const l of locks) await l.release();
    const r = runCli(['report', ...RANGE, '--by', 'harness', '--format', 'json'], cleanEnv(home));
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    const oc = j.rows.find((x: any) => x.harness === 'opencode');
    expect(tokens(oc)).toEqual(tokens(sumExpected([...counted, STEP])));
    expect(j.warnings.filter((w: string) => w.startsWith(join(dataDir, 'opencode-locked-rollback.db')))).toEqual([]);
    expect(existsSync(join(dataDir, 'opencode-locked-rollback.db-journal'))).toBe(false);
    console.log('sqlite after release: 1 committed step counted, 2 rolled-back/closed holders changed nothing');
  });
});
