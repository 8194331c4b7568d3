// Hermes Agent end to end: the real CLI over a generated ~/.hermes (state.db
// and a named profile's, rows only in the -wal) holding every trap of
// src/harnesses/hermes/README.md reports exactly what the builder billed,
// every row of grain session; counters that grow later replace what was
// counted, never add to it.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byKeys, reportRows, tokenFields } from '../../fixtures/ledger.js';
import { buildHermesHome, HAIKU, SONNET, type HermesHome } from '../../fixtures/hermes/home.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-08-01', '--until', '2026-08-31'];
const H = ['--harness', 'hermes'];
const open: { close(): void }[] = [];
afterAll(() => {
  for (const h of open) h.close();
});

describe('hermes end to end (~/.hermes state.db and profiles)', () => {
  let fx: HermesHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-hermes-');
    fx = buildHermesHome(home);
    open.push(fx);
    env = cleanEnv(home);
  });

  it('counts each session once from its counters, auxiliary routes beside them, the main-loop routes not again', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    expect(reportRows(j, ['session', 'model'])).toEqual(
      fx.ledger.rows(['session', 'model']).sort(byKeys(['session', 'model'])),
    );
    expect(j.warnings).toEqual([]);
  });

  it('adds up to the totals worked out by hand, all of it resting on session totals', () => {
    const j = reportJson([...RANGE, ...H], env);
    // Main loop 1200 + 400 (2 calls), compression 9000, title 300, child 600, the work profile's 50; read 30000 + 40000 + 5000 + 7000;
    // written 2000; out 800 + 500 + 700 + 20 + 200 + 90 with reasoning 300 + 100 inside it.
    expect(tokenFields(j.totals)).toEqual({
      requests: 6,
      input_tokens: 11550,
      cache_read_tokens: 82000,
      cache_write_tokens: 2000,
      output_tokens: 2310,
      reasoning_tokens: 400,
      total_tokens: 97860,
    });
    expect(j.totals.session_grain_tokens).toBe(97860);
  });

  it('places a session at its last activity, an auxiliary route at its last call; profiles keep their ids apart', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'day,session,model'], env);
    expect(j.rows.map((r: any) => [r.day, r.session, r.model]).sort()).toEqual([
      ['2026-08-14', '20260814_090000_aaaa1111', HAIKU],
      ['2026-08-14', 'work/20260814_090000_aaaa1111', SONNET],
      ['2026-08-15', '20260814_090000_aaaa1111', HAIKU],
      ['2026-08-15', '20260814_090000_aaaa1111', SONNET],
      ['2026-08-15', '20260815_100000_bbbb2222', SONNET],
    ]);
  });

  it('keeps the provider-reported cost; an "included" route without a known source is priced, not $0', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    const main = j.rows.find((r: any) => r.session === '20260814_090000_aaaa1111' && r.model === SONNET);
    expect(main.cost_usd).toBeCloseTo(0.09, 10);
    expect(j.rows.find((r: any) => r.session === 'work/20260814_090000_aaaa1111').cost_usd).toBeGreaterThan(0);
  });

  it('prompts, titles, parents and the legacy transcripts folder named as found and not read', () => {
    const c = storedCounts(env, 'hermes');
    // One prompt per main-loop call (the user message before it); auxiliary calls have none.
    expect(c['20260814_090000_aaaa1111']).toMatchObject({ prompts: 2 });
    expect(c['20260815_100000_bbbb2222']).toMatchObject({ prompts: 1, parent: '20260814_090000_aaaa1111' });
    expect(c['work/20260814_090000_aaaa1111']!.title).toMatch(/^hermes /);
    const s = JSON.parse(runCli(['sources', '--format', 'json'], env).stdout).harnesses.find(
      (x: any) => x.harness === 'hermes',
    );
    expect(s.files).toBe(2);
    expect(s.roots.filter((r: any) => r.unread).map((r: any) => r.unread)).toEqual([
      expect.stringMatching(/no usage in them/),
    ]);
    expect(s.skipped.map((x: any) => `${x.count} ${x.reason}`)).toEqual(['1 session without tokens']);
  });

  it('counters that grow later replace the session row: nothing counted before moves, nothing twice', () => {
    const before = reportJson([...RANGE, ...H, '--by', 'session'], env);
    fx.sessions.child.call(Date.UTC(2026, 7, 20, 9), { input: 70, cacheRead: 700, output: 7 });
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']));
    const keep = (x: any, id: string) => tokenFields(x.rows.find((r: any) => r.session === id));
    expect(keep(j, '20260814_090000_aaaa1111')).toEqual(keep(before, '20260814_090000_aaaa1111'));
    expect(j.totals.total_tokens).toBe(before.totals.total_tokens + 777);
  });
});

describe('hermes roots and read-only', () => {
  it('HERMES_HOME and --root (home or file) find the databases', () => {
    const base = tempDir('txu-hermes-roots-');
    const a = buildHermesHome(join(base, 'a'));
    open.push(a);
    const home = join(base, 'home');
    const viaEnv = reportJson(
      [...RANGE, ...H],
      cleanEnv(home, { HERMES_HOME: a.root, XDG_CACHE_HOME: join(base, 'c0') }),
    );
    expect(tokenFields(viaEnv.totals)).toEqual(tokenFields(a.ledger.totals()));
    const viaRoot = reportJson(
      [...RANGE, ...H, '--root', `hermes=${a.root}`],
      cleanEnv(home, { XDG_CACHE_HOME: join(base, 'c1') }),
    );
    expect(tokenFields(viaRoot.totals)).toEqual(tokenFields(a.ledger.totals()));
    // One profile's file alone: only its session, still under its profile's name.
    const one = reportJson(
      [...RANGE, ...H, '--by', 'session', '--root', `hermes=${a.work.path}`],
      cleanEnv(home, { XDG_CACHE_HOME: join(base, 'c2') }),
    );
    expect(one.rows.map((r: any) => r.session)).toEqual(['work/20260814_090000_aaaa1111']);
  });

  it('reads with Hermes running (rows only in the -wal) and leaves the databases and their -wal as they were', () => {
    const home = tempDir('txu-hermes-ro-');
    const fx = buildHermesHome(home);
    open.push(fx);
    const files = [fx.main.path, `${fx.main.path}-wal`, fx.work.path, `${fx.work.path}-wal`];
    const before = files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f).toString('base64')]);
    expect(statSync(`${fx.main.path}-wal`).size).toBeGreaterThan(0);
    const j = reportJson([...RANGE, ...H], cleanEnv(home));
    expect(tokenFields(j.totals)).toEqual(tokenFields(fx.ledger.totals()));
    expect(files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f).toString('base64')])).toEqual(
      before,
    );
  });
});
