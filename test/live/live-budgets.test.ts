// Budgets from the config file: `check` (exit 1 and why), the statusline's
// budget segment, and the summary report's budgets, on the hand-computed
// blocks fixture (fixtures/live/blocks.ts) at 2026-03-29T10:50Z, UTC:
//   today (03-29): r3-r9 priced $0.0559 (r8 unpriced); projected over the day: 0.0559 / 10h50m x 24h = $0.1238
//   March: r0-r9 $0.0672; projected: 0.0672 / 28.4514 days x 31 days = $0.0732
//   active block (09:00-14:00Z): $0.027, projected $0.084 (test/live-blocks.test.ts)
// A summary whose window includes now shows the same figures as check; any other shows none.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCKS_NOW, buildBlocksHome, type BlocksHome } from '../../fixtures/live/blocks.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const BUDGETS = {
  day: 0.05,
  month: 1,
  block: 0.03,
  harness: { codex: { day: 0.01 } },
  project: { '/work/blocks-app': { month: 0.06 } },
};

describe('budgets', () => {
  let dir: string;
  let fx: BlocksHome;
  let env: NodeJS.ProcessEnv;
  const config = (o: unknown) => {
    const d = join(fx.home, '.config', 'tx-usage');
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'config.json'), JSON.stringify(o));
  };

  beforeAll(() => {
    dir = tempDir('txu-budgets-');
    fx = buildBlocksHome(join(dir, 'home'));
    env = cleanEnv(fx.home, { TX_USAGE_NOW: BLOCKS_NOW });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("check --format json: every budget's spend, projection and status; exit 1 with the reasons", () => {
    config({ budgets: BUDGETS });
    const r = runCli(['check', '--tz', 'UTC', '--format', 'json', '--prices', fx.pricesFile], env);
    expect(r.status, r.stderr).toBe(1);
    const j = JSON.parse(r.stdout);
    const day = { period_start: '2026-03-29T00:00:00+00:00', period_end: '2026-03-30T00:00:00+00:00' };
    const month = { period_start: '2026-03-01T00:00:00+00:00', period_end: '2026-04-01T00:00:00+00:00' };
    expect(j).toEqual({
      ok: false,
      timezone: 'UTC',
      now: '2026-03-29T10:50:00+00:00',
      budgets: [
        {
          scope: 'all',
          period: 'day',
          limit_usd: 0.05,
          spent_usd: 0.0559,
          projected_usd: 0.1238,
          share: 1.118,
          status: 'over',
          unpriced_requests: 1,
          ...day,
        },
        {
          scope: 'all',
          period: 'month',
          limit_usd: 1,
          spent_usd: 0.0672,
          projected_usd: 0.0732,
          share: 0.0672,
          status: 'ok',
          unpriced_requests: 1,
          ...month,
        },
        {
          scope: 'all',
          period: 'block',
          limit_usd: 0.03,
          spent_usd: 0.027,
          projected_usd: 0.084,
          share: 0.9,
          status: 'projected_over',
          unpriced_requests: 1,
          period_start: '2026-03-29T09:00:00+00:00',
          period_end: '2026-03-29T14:00:00+00:00',
        },
        {
          scope: 'harness codex',
          period: 'day',
          limit_usd: 0.01,
          spent_usd: 0,
          projected_usd: 0,
          share: 0,
          status: 'ok',
          unpriced_requests: 0,
          ...day,
        },
        {
          scope: 'project /work/blocks-app',
          period: 'month',
          limit_usd: 0.06,
          spent_usd: 0.0672,
          projected_usd: 0.0732,
          share: 1.12,
          status: 'over',
          unpriced_requests: 1,
          ...month,
        },
      ],
      reasons: [
        'day budget exceeded: $0.06 spent of $0.05 (112%)',
        'block budget projected to be exceeded: $0.03 spent, $0.08 by 2026-03-29T14:00:00+00:00 at this pace, of $0.03',
        'month budget (project /work/blocks-app) exceeded: $0.07 spent of $0.06 (112%)',
      ],
    });
  });

  it('check: exit 0 within budgets; text output; a projection alone fails too', () => {
    config({ budgets: { day: 1, month: 10 } });
    const ok = runCli(['check', '--tz', 'UTC', '--prices', fx.pricesFile], env);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout.split('\n').slice(-2)).toEqual(['All budgets within limits.', '']);
    // --format table, as every other command calls it, is the same output; so is text (its old name); csv is not offered.
    for (const format of ['table', 'text']) {
      const t = runCli(['check', '--tz', 'UTC', '--prices', fx.pricesFile, '--format', format], env);
      expect(t.status, t.stderr).toBe(0);
      expect(t.stdout).toBe(ok.stdout);
    }
    const csv = runCli(['check', '--tz', 'UTC', '--format', 'csv'], env);
    expect(csv.status).toBe(2);
    expect(csv.stderr).toBe('tx-usage: --format "csv": expected table or json\n');
    // $0.0559 by 10:50 is $0.1238 by midnight at this pace.
    config({ budgets: { day: 0.1 } });
    const proj = runCli(['check', '--tz', 'UTC', '--prices', fx.pricesFile], env);
    expect(proj.status).toBe(1);
    expect(proj.stdout).toContain(
      'day budget projected to be exceeded: $0.06 spent, $0.12 by 2026-03-30T00:00:00+00:00 at this pace, of $0.10',
    );
  });

  it('check: a bad budget is a usage error naming the setting; no budgets is not a failure', () => {
    config({ budgets: { week: 3, day: -1 } });
    const bad = runCli(['check', '--tz', 'UTC'], env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('"budgets.week" is not one of day, month, block, harness, project');
    expect(bad.stderr).toContain('"budgets.day" must be a positive amount in USD');
    config({});
    const none = runCli(['check', '--tz', 'UTC'], env);
    expect(none.status).toBe(0);
    expect(none.stdout).toMatch(/^no budgets in .*config\.json/);
  });

  it('statusline: spend against each budget, in the warning colour at 80 % and the alarm colour at 100 %', () => {
    config({ budgets: { day: 0.05, block: 0.03 }, statusline: { segments: ['budget'] } });
    const r0 = runCli(['statusline', '--refresh', '--prices', fx.pricesFile], env);
    expect(r0.status, r0.stderr).toBe(0);
    const e = { ...env };
    delete e.NO_COLOR;
    const r = runCli(['statusline'], e, JSON.stringify({ session_id: 'x' }));
    expect(r.stdout).toBe('\x1b[31mday 112% of $0.05\x1b[0m \x1b[33mblock 90% of $0.03\x1b[0m\n');
  });

  it("report: a window that includes now carries check's budgets, figure for figure (projection and status too); the table shows them", () => {
    config({ budgets: BUDGETS });
    const check = JSON.parse(
      runCli(['check', '--tz', 'UTC', '--format', 'json', '--prices', fx.pricesFile], env).stdout,
    );
    for (const window of [
      ['--since', '2026-03-29', '--until', '2026-03-29'],
      ['--since', '2026-03-01', '--until', '2026-03-31'],
    ]) {
      const r = runCli(['report', ...window, '--tz', 'UTC', '--format', 'json', '--prices', fx.pricesFile], env);
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).budgets, window.join(' ')).toEqual(check.budgets);
    }
    const t = runCli(
      ['report', '--since', '2026-03-29', '--until', '2026-03-29', '--tz', 'UTC', '--prices', fx.pricesFile],
      env,
    );
    expect(t.stdout).toContain('Budgets\n');
    // Projected as check has it ($0.12 by midnight), not "—".
    expect(t.stdout).toMatch(/day +all +\$0\.05 +\$0\.06 +111\.8% +\$0\.12 +OVER/);
    expect(t.stdout).toMatch(/block +all +\$0\.03 +\$0\.03 +90\.0% +\$0\.08 +projected over/);
  });

  it('report: a window that ends before today (or starts after it) shows no budgets, in JSON or the table', () => {
    config({ budgets: BUDGETS });
    for (const window of [
      ['--since', '2026-03-01', '--until', '2026-03-28'],
      ['--since', '2026-03-30', '--until', '2026-04-02'],
    ]) {
      const j = runCli(['report', ...window, '--tz', 'UTC', '--format', 'json', '--prices', fx.pricesFile], env);
      expect(j.status, j.stderr).toBe(0);
      expect(JSON.parse(j.stdout).budgets, window.join(' ')).toBeUndefined();
      const t = runCli(['report', ...window, '--tz', 'UTC', '--prices', fx.pricesFile], env);
      expect(t.stdout).not.toContain('Budgets');
    }
  });
});
