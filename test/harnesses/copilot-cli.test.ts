// GitHub Copilot CLI end to end: the real CLI over a generated `~/.copilot`
// whose session-store.db holds every trap of src/harnesses/copilot-cli/README.md
// (rows only in the -wal) reports exactly what the builder billed; calls
// appended later are added and nothing counted before moves.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byKeys, reportRows, tokenFields } from '../../fixtures/ledger.js';
import {
  buildCopilotHome,
  CopilotStore,
  GPT,
  HAIKU_DOT,
  SONNET_DOT,
  type CopilotHome,
} from '../../fixtures/copilot-cli/store.js';
import { buildShutdownHome } from '../../fixtures/copilot-cli/shutdowns.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-08-01', '--until', '2026-08-31'];
const H = ['--harness', 'copilot-cli'];
const open: { close(): void }[] = [];
afterAll(() => {
  for (const h of open) h.close();
});

describe('copilot-cli end to end (~/.copilot/session-store.db)', () => {
  let fx: CopilotHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-copilot-');
    fx = buildCopilotHome(home);
    open.push(fx);
    env = cleanEnv(home);
  });

  it('counts every call once, cache taken out of input, the shutdown summary not added', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    expect(reportRows(j, ['session', 'model'])).toEqual(
      fx.ledger.rows(['session', 'model']).sort(byKeys(['session', 'model'])),
    );
    expect(j.warnings).toEqual([]);
  });

  it('adds up the main session worked out by hand (sub-agent, compaction, zero-token and time-less calls included)', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    const main = j.rows.find((r: any) => r.session === fx.sessions.main);
    // Fresh 2 + 2 + 300 + 5000 + 0 + 40; read 24678 + 1000 + 20000 + 25000; written 24678 + 113; out 81 + 19 + 200 + 900 + 60 (50 reasoning).
    expect(tokenFields(main)).toEqual({
      requests: 6,
      input_tokens: 5344,
      cache_read_tokens: 70678,
      cache_write_tokens: 24791,
      output_tokens: 1260,
      reasoning_tokens: 50,
      total_tokens: 102073,
    });
    // Every row is one response: nothing rests on session totals.
    expect(main.session_grain_tokens).toBe(0);
  });

  it('prices Claude versions written with a dot, keeps the recorded names, days from created_at (zoneless = UTC)', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'day,model'], env);
    expect(j.rows.map((r: any) => [r.day, r.model]).sort()).toEqual([
      ['2026-08-07', HAIKU_DOT],
      ['2026-08-07', SONNET_DOT],
      ['2026-08-08', GPT],
      ['2026-08-09', SONNET_DOT],
    ]);
    const sonnet = j.rows.find((r: any) => r.model === SONNET_DOT);
    expect(sonnet.cost_source).toBe('computed');
    expect(sonnet.cost_usd).toBeGreaterThan(0);
    // Haiku 4.5 at $1 / $5 / $0.10 read per million: 300×1 + 1000×0.1 + 200×5 = 1400 millionths.
    expect(j.rows.find((r: any) => r.model === HAIKU_DOT).cost_usd).toBeCloseTo(0.0014, 10);
  });

  it('projects from sessions.cwd, else the repository; titles from sessions.summary; prompts from turns', () => {
    const p = reportJson([...RANGE, ...H, '--by', 'project'], env);
    expect(p.rows.map((r: any) => r.project).sort()).toEqual([
      '/home/dev/cp-alpha',
      '/home/dev/cp-beta',
      'octo/cp-gamma',
    ]);
    const c = storedCounts(env, 'copilot-cli');
    expect(c[fx.sessions.main]).toMatchObject({ prompts: 2, title: 'Fix the login flow' });
    expect(c[fx.sessions.side]).toMatchObject({ prompts: 1 });
  });

  it('keeps the AI credits Copilot recorded beside the token price (request_units)', async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const inst = await DuckDBInstance.create(join(env.XDG_CACHE_HOME!, 'tx-usage', 'usage.duckdb'), {
      access_mode: 'READ_ONLY',
    });
    const conn = await inst.connect();
    const r = await conn.runAndReadAll(
      `SELECT session_id, sum(request_units_e6)::BIGINT AS e6, count(*) FILTER (WHERE billing_kind = 'ai-credits')::INTEGER AS n FROM billed_events WHERE harness = 'copilot-cli' GROUP BY ALL ORDER BY ALL`,
    );
    conn.closeSync();
    inst.closeSync();
    const rows = r.getRowObjectsJson();
    // 1.5 + 0.5 + 0.1 credits on the main session's three calls that record them; none elsewhere.
    expect(rows.find((x: any) => x.session_id === fx.sessions.main)).toEqual({
      session_id: fx.sessions.main,
      e6: String((fx.store.nanoAiu.get(fx.sessions.main)! / 1e3) | 0),
      n: 3,
    });
    expect(Number(rows.find((x: any) => x.session_id === fx.sessions.main)!.e6)).toBe(2_100_000);
  });

  it('calls appended later are added; nothing counted before moves', () => {
    const before = reportJson([...RANGE, ...H, '--by', 'session'], env);
    const s = fx.store.session('0a1b2c3d-0000-4000-8000-000000000004', '/home/dev/cp-delta', Date.UTC(2026, 7, 20, 9));
    s.turn(Date.UTC(2026, 7, 20, 9, 1), [{ model: SONNET_DOT, fresh: 7, cacheRead: 70, output: 3 }]);
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']));
    const main = (x: any) => tokenFields(x.rows.find((r: any) => r.session === fx.sessions.main));
    expect(main(j)).toEqual(main(before));
    expect(j.totals.requests).toBe(before.totals.requests + 1);
  });
});

describe('copilot-cli roots, older store, read-only', () => {
  it('COPILOT_HOME and --root (folder or file) find the store; an older store without the later columns reads', () => {
    const base = tempDir('txu-copilot-roots-');
    const a = buildCopilotHome(join(base, 'a'));
    open.push(a);
    const home = join(base, 'home');
    const viaEnv = reportJson(
      [...RANGE, ...H],
      cleanEnv(home, { COPILOT_HOME: join(base, 'a', '.copilot'), XDG_CACHE_HOME: join(base, 'c0') }),
    );
    expect(tokenFields(viaEnv.totals)).toEqual(tokenFields(a.ledger.totals()));
    for (const [i, root] of [join(base, 'a', '.copilot'), a.store.path].entries()) {
      const j = reportJson(
        [...RANGE, ...H, '--root', `copilot-cli=${root}`],
        cleanEnv(home, { XDG_CACHE_HOME: join(base, `c${i + 1}`) }),
      );
      expect(tokenFields(j.totals), root).toEqual(tokenFields(a.ledger.totals()));
    }
    const old = new CopilotStore(join(base, 'old'), undefined, { old: true });
    open.push(old);
    old
      .session('old-1', '/home/dev/cp-old', Date.UTC(2026, 7, 2))
      .turn(Date.UTC(2026, 7, 2, 1), [{ model: SONNET_DOT, fresh: 10, cacheRead: 20, cacheWrite: 5, output: 5 }]);
    const j = reportJson(
      [...RANGE, ...H, '--root', `copilot-cli=${join(base, 'old')}`],
      cleanEnv(home, { XDG_CACHE_HOME: join(base, 'c9') }),
    );
    expect(tokenFields(j.totals)).toEqual({
      requests: 1,
      input_tokens: 10,
      cache_read_tokens: 20,
      cache_write_tokens: 5,
      output_tokens: 5,
      reasoning_tokens: 0,
      total_tokens: 40,
    });
  });

  it('a folder without the usage table says so by name; nothing else is lost', () => {
    const base = tempDir('txu-copilot-bad-');
    const a = buildCopilotHome(join(base, 'a'));
    open.push(a);
    a.store.writer.exec('ALTER TABLE assistant_usage_events RENAME TO later_name');
    const r = runCli(
      ['report', ...RANGE, ...H, '--format', 'json', '--root', `copilot-cli=${join(base, 'a', '.copilot')}`],
      cleanEnv(join(base, 'home'), { XDG_CACHE_HOME: join(base, 'c') }),
    );
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.totals.requests).toBe(0);
    expect(j.warnings.join('\n')).toMatch(/session-store\.db.*no assistant_usage_events table/s);
  });

  it('reads the store with Copilot running (rows only in the -wal) and leaves the database and its -wal as they were', () => {
    const home = tempDir('txu-copilot-ro-');
    const fx = buildCopilotHome(home);
    open.push(fx);
    const files = [fx.store.path, `${fx.store.path}-wal`];
    const before = files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f).toString('base64')]);
    expect(statSync(`${fx.store.path}-wal`).size).toBeGreaterThan(0);
    const j = reportJson([...RANGE, ...H], cleanEnv(home));
    expect(tokenFields(j.totals)).toEqual(tokenFields(fx.ledger.totals()));
    // The -shm is the one file a reader may touch (its read marks).
    expect(files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f).toString('base64')])).toEqual(
      before,
    );
  });
});

describe('copilot-cli without session-store.db: events.jsonl shutdown summaries (grain session)', () => {
  it('a cumulative summary adds what it grew by, a compaction starts again, legacy legs add up, no summary adds nothing; an appended summary adds its share once', () => {
    const home = tempDir('txu-copilot-sd-');
    const fx = buildShutdownHome(home);
    const env = cleanEnv(home);
    const R = ['--since', '2026-09-01', '--until', '2026-09-30', ...H];
    const j = reportJson([...R, '--by', 'session'], env);
    // By hand (fixtures/copilot-cli/shutdowns.ts).
    expect(tokenFields(j.totals)).toEqual({
      requests: 0,
      input_tokens: 1150,
      cache_read_tokens: 1100,
      cache_write_tokens: 150,
      output_tokens: 150,
      reasoning_tokens: 0,
      total_tokens: 2550,
    });
    expect(j.totals.session_grain_tokens).toBe(2550);
    expect(j.rows.map((r: any) => [r.session, r.project, r.total_tokens]).sort()).toEqual([
      [fx.cumulative.id, '/home/dev/sd-alpha', 550 + 1000 + 150 + 90],
      ['5a1b2c3d-0000-4000-8000-000000000002', '/home/dev/sd-beta', 600 + 100 + 60],
    ]);
    // A later leg after the compaction: 1200/700/100/60 less the summary before it (200/100/0/10): fresh 300, read 600, write 100, output 50.
    fx.cumulative.line('session.resume', fx.start + 400_000, { context: { cwd: '/home/dev/sd-alpha' } });
    fx.cumulative.shutdown(
      fx.start + 500_000,
      { [SONNET_DOT]: { input: 1200, cacheRead: 700, cacheWrite: 100, output: 60 } },
      true,
    );
    const k = reportJson(R, env);
    expect(tokenFields(k.totals)).toMatchObject({
      input_tokens: 1450,
      cache_read_tokens: 1700,
      cache_write_tokens: 250,
      output_tokens: 200,
    });
    const ex = JSON.parse(runCli(['explain', fx.cumulative.path, '--format', 'json'], env).stdout);
    const rules = ex.sources.flatMap((s: any) =>
      s.records.filter((r: any) => r.counted).map((r: any) => [r.rule, r.grain]),
    );
    expect(rules).toContainEqual(['session.shutdown, less the summary before', 'session']);
  });
});
