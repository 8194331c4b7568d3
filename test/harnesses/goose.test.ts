// Goose end to end: the real CLI over a generated sessions.db (schema 17,
// rows only in the -wal) holding every trap of src/harnesses/goose/README.md
// reports exactly what the builder billed: each call once (ledger, not also
// accumulated_* or message metadata), usage from before the ledger as one
// session-grain row; calls appended and a session resumed later change
// nothing counted before.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byKeys, reportRows, tokenFields } from '../../fixtures/ledger.js';
import { buildGooseHome, GooseDb, GPT, QWEN, SONNET, type GooseHome } from '../../fixtures/goose/db.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-07-01', '--until', '2026-08-31'];
const H = ['--harness', 'goose'];
const open: { close(): void }[] = [];
afterAll(() => {
  for (const h of open) h.close();
});

describe('goose end to end (sessions.db, schema 17)', () => {
  let fx: GooseHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-goose-');
    fx = buildGooseHome(home);
    open.push(fx);
    env = cleanEnv(home);
  });

  it('counts every call once (ledger, not accumulated_* nor message usage again), cache taken out of input', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    expect(reportRows(j, ['session', 'model'])).toEqual(
      fx.ledger.rows(['session', 'model']).sort(byKeys(['session', 'model'])),
    );
    // The local ollama model has no price: unknown, said so, never $0.
    expect(j.warnings).toEqual([expect.stringMatching(/^no price for model "qwen3:0\.6b" \(goose\): 2 responses/)]);
  });

  it('adds up to the totals worked out by hand, session totals marked', () => {
    const j = reportJson([...RANGE, ...H], env);
    // Calls: 2 ollama + 3 cached (one a compaction) + 1 sub-agent + 1 after the upgrade; the carried row and the idle
    // session's totals are no calls. Uncached: 4100 + (500 + 1200 + 8000) + 300 + 4000 + 100 + 700 = 18900;
    // read 10000 + 3000 + 2000 + 6000 + 9000 + 1400; written 1500 + 200 + 300; out 533 + 2000 + 120 + 800 + 50 + 90.
    expect(tokenFields(j.totals)).toEqual({
      requests: 7,
      input_tokens: 18900,
      cache_read_tokens: 31400,
      cache_write_tokens: 2000,
      output_tokens: 3593,
      reasoning_tokens: 0,
      total_tokens: 55893,
    });
    // Resting on session totals: the carried row (4000 + 6000 + 800) and the idle session (700 + 1400 + 300 + 90).
    expect(j.totals.session_grain_tokens).toBe(13290);
    const bySession = reportJson([...RANGE, ...H, '--by', 'session'], env);
    const row = (id: string) => bySession.rows.find((r: any) => r.session === id);
    // The real goose 1.45.0 session: Σ ledger = accumulated = 4100 / 533, once.
    expect(tokenFields(row('20260805_1'))).toMatchObject({ requests: 2, input_tokens: 4100, output_tokens: 533 });
    expect(row('20260805_1').session_grain_tokens).toBe(0);
  });

  it('places the carried row at the last response before it and the idle totals at theirs; calls at their own time', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'day,session'], env);
    const days = j.rows.map((r: any) => [r.day, r.session]).sort();
    expect(days).toEqual([
      ['2026-08-01', '20260801_1'],
      ['2026-08-02', '20260802_1'],
      ['2026-08-05', '20260805_1'],
      ['2026-08-05', '20260805_2'],
      ['2026-08-05', '20260805_3'],
      ['2026-08-06', '20260801_1'],
    ]);
    expect(reportRows(j, ['day', 'session'])).toEqual(
      fx.ledger.rows(['day', 'session']).sort(byKeys(['day', 'session'])),
    );
  });

  it('keeps a provider-reported cost, prices the rest by model (the carried row by the session model)', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'model'], env);
    expect(j.rows.map((r: any) => r.model).sort()).toEqual([GPT, QWEN, SONNET].sort());
    const gpt = j.rows.find((r: any) => r.model === GPT);
    expect(gpt.cost_usd).toBeCloseTo(0.0123, 10);
    expect(j.rows.find((r: any) => r.model === SONNET).cost_usd).toBeGreaterThan(0);
  });

  it('projects from working_dir; titles and the sub-agent parent from sessions; prompts and tool calls from messages', () => {
    const p = reportJson([...RANGE, ...H, '--by', 'project'], env);
    expect(p.rows.map((r: any) => r.project).sort()).toEqual([
      '/home/dev/g-alpha',
      '/home/dev/g-beta',
      '/home/dev/g-delta',
      '/home/dev/g-gamma',
    ]);
    const c = storedCounts(env, 'goose');
    // Two prompts; the tool response and the hidden summary (userVisible false) are none.
    expect(c['20260805_1']).toMatchObject({ prompts: 2, tool_calls: 2 });
    expect(c['20260805_2']).toMatchObject({ prompts: 1, tool_calls: 1 });
    expect(c['20260805_3']).toMatchObject({ prompts: 0, tool_calls: 3, parent: '20260805_2', title: 'subagent' });
    expect(c['20260801_1']).toMatchObject({ prompts: 2 });
  });

  it('sources: the database, and the pre-SQLite transcript beside it not read', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status).toBe(0);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'goose');
    expect(h.files).toBe(1);
    expect(JSON.stringify(h)).toMatch(
      /1 goose: pre-SQLite sessions\/\*\.jsonl beside sessions\.db|"goose: pre-SQLite sessions\/\*\.jsonl beside sessions\.db \(imported into it; not read\)":1/,
    );
  });

  it('calls appended and a pre-ledger session resumed later: nothing counted before moves, nothing twice', () => {
    const before = reportJson([...RANGE, ...H, '--by', 'session'], env);
    const day = Date.UTC(2026, 7, 20, 9);
    fx.sessions.ollama.prompt(day).call(day + 60_000, { fresh: 2050, output: 99 });
    // goose writes the idle session's carried_forward row: its accumulated totals are now that row, not a residual too.
    fx.sessions.idle.prompt(day + 3_600_000).call(day + 3_660_000, { fresh: 10, cacheRead: 20, output: 5 });
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']));
    const keep = (x: any, id: string) => tokenFields(x.rows.find((r: any) => r.session === id));
    for (const id of ['20260805_2', '20260805_3', '20260801_1']) expect(keep(j, id)).toEqual(keep(before, id));
    expect(j.totals.requests).toBe(before.totals.requests + 2);
    // The idle session's totals moved from a residual to its carried row: still on its old day, counted once.
    const d = reportJson([...RANGE, ...H, '--by', 'day,session'], env);
    expect(d.rows.filter((r: any) => r.session === '20260802_1').map((r: any) => [r.day, r.input_tokens])).toEqual([
      ['2026-08-02', 700],
      ['2026-08-20', 10],
    ]);
  });
});

describe('goose roots, older schemas, read-only', () => {
  it('GOOSE_PATH_ROOT (absolute only), XDG_DATA_HOME and --root (data dir, sessions folder, file) find the database', () => {
    const base = tempDir('txu-goose-roots-');
    const a = buildGooseHome(join(base, 'a'));
    open.push(a);
    const home = join(base, 'home');
    const want = tokenFields(a.ledger.totals());
    const run = (i: number, extra: Record<string, string>, args: string[] = []) =>
      tokenFields(
        reportJson([...RANGE, ...H, ...args], cleanEnv(home, { XDG_CACHE_HOME: join(base, `c${i}`), ...extra })).totals,
      );
    // XDG_DATA_HOME/goose.
    expect(run(0, { XDG_DATA_HOME: join(base, 'a', '.local', 'share') })).toEqual(want);
    // A relative GOOSE_PATH_ROOT is ignored by goose, and so here (the XDG default is read).
    expect(run(1, { GOOSE_PATH_ROOT: 'relative/goose', XDG_DATA_HOME: join(base, 'a', '.local', 'share') })).toEqual(
      want,
    );
    for (const [i, root] of [a.dataDir, join(a.dataDir, 'sessions'), a.db.path].entries())
      expect(run(2 + i, {}, ['--root', `goose=${root}`]), root).toEqual(want);
    // GOOSE_PATH_ROOT/data/sessions/sessions.db.
    const g = new GooseDb(join(base, 'gpr', 'data', 'sessions', 'sessions.db'));
    open.push(g);
    g.session('20260810_1', { cwd: '/home/dev/g-root', model: SONNET, at: Date.UTC(2026, 7, 10) })
      .prompt(Date.UTC(2026, 7, 10))
      .call(Date.UTC(2026, 7, 10, 0, 1), { fresh: 11, cacheRead: 22, output: 33 });
    expect(run(6, { GOOSE_PATH_ROOT: join(base, 'gpr'), XDG_DATA_HOME: join(base, 'a', '.local', 'share') })).toEqual(
      tokenFields(g.ledger.totals()),
    );
  });

  it('schema 13 (no ledger, no cache split) and 14 (cache split, no ledger): one session-grain row per session', () => {
    const base = tempDir('txu-goose-old-');
    const at = Date.UTC(2026, 7, 12, 8);
    for (const [i, schema] of ([13, 14] as const).entries()) {
      const db = new GooseDb(join(base, `s${schema}`, 'sessions.db'), schema);
      open.push(db);
      const s = db.session(`2026081${i}_1`, { cwd: '/home/dev/g-old', model: SONNET, at });
      s.prompt(at)
        .call(at + 60_000, { fresh: 1000, ...(schema === 14 ? { cacheRead: 5000 } : {}), output: 100 })
        .call(at + 120_000, { fresh: 500, output: 50 });
      const j = reportJson(
        [...RANGE, ...H, '--root', `goose=${join(base, `s${schema}`)}`],
        cleanEnv(join(base, 'home'), { XDG_CACHE_HOME: join(base, `c${schema}`) }),
      );
      expect(tokenFields(j.totals), `schema ${schema}`).toEqual(tokenFields(db.ledger.totals()));
      expect(j.totals.requests).toBe(0);
      expect(j.totals.session_grain_tokens).toBe(j.totals.total_tokens);
      expect(j.totals.cache_read_tokens).toBe(schema === 14 ? 5000 : 0);
    }
  });

  it('a database without a sessions table says so by name; nothing else is lost', () => {
    const base = tempDir('txu-goose-bad-');
    const a = buildGooseHome(join(base, 'a'));
    open.push(a);
    a.db.writer.exec('ALTER TABLE sessions RENAME TO later_name');
    const r = runCli(
      ['report', ...RANGE, ...H, '--format', 'json', '--root', `goose=${a.dataDir}`],
      cleanEnv(join(base, 'home'), { XDG_CACHE_HOME: join(base, 'c') }),
    );
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.totals.requests).toBe(0);
    expect(j.warnings.join('\n')).toMatch(/sessions\.db.*no sessions table/s);
  });

  it('reads the database with goose running (rows only in the -wal) and leaves the database and its -wal as they were', () => {
    const home = tempDir('txu-goose-ro-');
    const fx = buildGooseHome(home);
    open.push(fx);
    const files = [fx.db.path, `${fx.db.path}-wal`];
    const before = files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f).toString('base64')]);
    expect(statSync(`${fx.db.path}-wal`).size).toBeGreaterThan(0);
    const j = reportJson([...RANGE, ...H], cleanEnv(home));
    expect(tokenFields(j.totals)).toEqual(tokenFields(fx.ledger.totals()));
    // The -shm is the one file a reader may touch (its read marks).
    expect(files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f).toString('base64')])).toEqual(
      before,
    );
  });
});
