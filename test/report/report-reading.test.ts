// Reports people read, through the real CLI: the title line names the period
// and zone, --sort orders every report, no zero Cursor row among the usage
// rows, a near-match price named once, the monthly review of a month cut
// short, and demo output marked as demo. Expected figures come from the
// fixture builders' ledgers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome, type AllHome } from '../../fixtures/all-harnesses.js';
import type { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { buildTwoMonthHome } from '../helpers/report-fixture.js';

const RANGE = ['--since', '2026-10-01', '--until', '2026-11-30'];

function run(args: string[], env: NodeJS.ProcessEnv) {
  const r = runCli(args, env);
  expect(r.status, `${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}

describe('on a two-month Claude Code home', () => {
  let claude: ClaudeHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-read-');
    claude = buildTwoMonthHome(home);
    env = cleanEnv(home);
  });

  it('the title line of each report names its period and zone', () => {
    expect(run(['report', ...RANGE], env).stdout.split('\n')[0]).toBe('Usage summary 2026-10-01 – 2026-11-30 (UTC)');
    expect(run(['report', ...RANGE, '--tz', 'Europe/Berlin'], env).stdout.split('\n')[0]).toBe(
      'Usage summary 2026-10-01 – 2026-11-30 (Europe/Berlin)',
    );
    expect(run(['report', 'monthly', ...RANGE], env).stdout.split('\n')[0]).toBe(
      'Monthly spend review 2026-10-01 – 2026-11-30 (UTC): spend per month',
    );
    // compare leads with its answer (cheaper per prompt) when a model answered in two harnesses; titled with the period either way.
    expect(run(['report', 'compare', ...RANGE], env).stdout.split('\n')[0]).toMatch(
      /^\S.* 2026-10-01 – 2026-11-30 \(UTC\): (per harness|cheaper per prompt, same model)$/,
    );
  });

  it('--sort: by cost (default for names), tokens, name; days in order by default', () => {
    const rows = (args: string[]) => reportJson([...RANGE, ...args], env).rows;
    const ledger = claude.ledger.rows(['model']);
    const tokensOf = new Map(ledger.map((r) => [String(r.model), r.total_tokens]));
    const byCost = rows(['--by', 'model']);
    const costs = byCost.map((r: any) => r.cost_usd ?? -1);
    expect(costs).toEqual([...costs].sort((a: number, b: number) => b - a));
    expect(byCost.at(-1).cost_usd).toBeNull(); // the unpriced model last
    expect(rows(['--by', 'model', '--sort', 'cost']).map((r: any) => r.model)).toEqual(byCost.map((r: any) => r.model));
    const byTokens = rows(['--by', 'model', '--sort', 'tokens']).map((r: any) => r.model);
    expect(byTokens).toEqual([...tokensOf.keys()].sort((a, b) => tokensOf.get(b)! - tokensOf.get(a)!));
    expect(rows(['--by', 'model', '--sort', 'name']).map((r: any) => r.model)).toEqual([...tokensOf.keys()].sort());
    const days = claude.ledger
      .rows(['day'])
      .map((r) => r.day)
      .sort();
    expect(rows(['--by', 'day']).map((r: any) => r.day)).toEqual(days);
    expect(rows(['--by', 'day', '--sort', 'date']).map((r: any) => r.day)).toEqual(days);
    const dayCosts = rows(['--by', 'day', '--sort', 'cost']).map((r: any) => r.cost_usd ?? -1);
    expect(dayCosts).toEqual([...dayCosts].sort((a: number, b: number) => b - a));
    // The table follows the same order.
    const table = run(['report', ...RANGE, '--by', 'model', '--sort', 'name'], env)
      .stdout.split('\n')
      .slice(3, 6)
      .map((l) => l.split(/\s+/)[0]);
    expect(table).toEqual([...tokensOf.keys()].sort());
    // monthly: breakdown rows; compare: per harness × model.
    const nov = reportJson(['monthly', ...RANGE, '--by', 'model', '--sort', 'tokens'], env).months[1];
    const novTokens = nov.by_model.map((r: any) => r.total_tokens);
    expect(novTokens).toEqual([...novTokens].sort((a: number, b: number) => b - a));
    const cmp = reportJson(['compare', ...RANGE, '--sort', 'name'], env).breakdown.map((r: any) => r.model);
    expect(cmp).toEqual([...cmp].sort());
  });

  it('monthly CSV: the documented columns in their order, the added ones after', () => {
    const head = run(['report', 'monthly', ...RANGE, '--format', 'csv'], env)
      .stdout.split('\r\n')[0]!
      .split(',');
    expect(head).toEqual([
      'month',
      'breakdown',
      'key',
      'requests',
      'input_tokens',
      'cache_read_tokens',
      'cache_write_tokens',
      'output_tokens',
      'reasoning_tokens',
      'total_tokens',
      'total_tokens_change_ratio',
      'cost_usd',
      'previous_cost_usd',
      'cost_change_usd',
      'cost_change_ratio',
      'cost_source',
      'sessions',
      'active_days',
      'projected_cost_usd',
      'previous_cost_source',
      'projected_total_tokens',
      'unpriced_requests',
      'unpriced_tokens',
      'session_grain_requests',
      'session_grain_tokens',
      'session_grain_cost_usd',
    ]);
  });

  it('--sort takes cost, tokens, date or name', () => {
    const r = runCli(['report', ...RANGE, '--sort', 'price'], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('tx-usage: --sort "price": expected one of cost, tokens, date, name\n');
  });

  it('a model priced through a near match is named once per report, with the entry used', () => {
    for (const name of ['summary', 'monthly', 'compare']) {
      const w: string[] = reportJson(
        [name, ...RANGE, '--by', name === 'compare' ? 'model' : name === 'monthly' ? 'model' : 'day'],
        env,
      ).warnings;
      const near = w.filter((x) => x.includes('nearest entry'));
      expect(near, name).toEqual([
        'model "claude-sonnet-5-5" (claude-code) has no price entry of its own: its 15 responses are priced as "claude-sonnet-5" (anthropic, the nearest entry); check with `tx-usage prices show claude-sonnet-5-5`, or price it with --prices FILE (LiteLLM format)',
      ]);
    }
    // claude-opus-5-5 has an entry of its own: no warning; under --cost recorded nothing is computed.
    expect(
      reportJson([...RANGE, '--cost', 'recorded'], env).warnings.filter((x: string) => x.includes('nearest entry')),
    ).toEqual([]);
  });

  it('monthly: a month cut short is compared with the same days of the month before, with a projection', () => {
    const j = reportJson(['monthly', '--since', '2026-10-01', '--until', '2026-11-05', '--by', 'model,project'], env);
    expect([j.since, j.until, j.through]).toEqual(['2026-10-01', '2026-11-30', '2026-11-05']);
    const [oct, nov] = j.months;
    expect([oct.complete, oct.through, oct.days_covered, oct.compared_with]).toEqual([
      true,
      '2026-10-31',
      31,
      { first_day: '2026-09-01', last_day: '2026-09-30' },
    ]);
    expect([nov.complete, nov.through, nov.days_in_month, nov.days_covered, nov.compared_with]).toEqual([
      false,
      '2026-11-05',
      30,
      5,
      { first_day: '2026-10-01', last_day: '2026-10-05' },
    ]);
    const cur = claude.ledger.rows(['month'], { since: '2026-11-01', until: '2026-11-05' })[0]!;
    const prev = claude.ledger.rows(['month'], { since: '2026-10-01', until: '2026-10-05' })[0]!;
    expect(nov.totals.total_tokens).toBe(cur.total_tokens);
    expect(nov.totals.previous_total_tokens).toBe(prev.total_tokens); // not the whole of October
    expect(nov.totals.total_tokens_change).toBe(cur.total_tokens - prev.total_tokens);
    expect(nov.totals.projected_total_tokens).toBe(Math.round((cur.total_tokens * 30) / 5));
    expect(nov.totals.projected_cost_usd).toBeCloseTo((nov.totals.cost_usd * 30) / 5, 8);
    expect(oct.totals.projected_total_tokens).toBeNull();
    // Keys: used in Nov 1–5 or Oct 1–5. /home/dev/infra (Oct 28, Nov 20) is in neither.
    const keys = (k: 'project' | 'model', since: string, until: string) =>
      claude.ledger.rows([k], { since, until }).map((r) => String(r[k]));
    const want = [
      ...new Set([...keys('project', '2026-11-01', '2026-11-05'), ...keys('project', '2026-10-01', '2026-10-05')]),
    ].sort();
    expect(nov.by_project.map((r: any) => r.project).sort()).toEqual(want);
    expect(want).not.toContain('/home/dev/infra');
    expect(nov.by_model.map((r: any) => r.model).sort()).toEqual(
      [...new Set([...keys('model', '2026-11-01', '2026-11-05'), ...keys('model', '2026-10-01', '2026-10-05')])].sort(),
    );
    // Nothing past the requested end: the top days of November are Nov 1–5 only.
    for (const d of nov.top_days) expect(d.day <= '2026-11-05').toBe(true);
  });
});

describe('on a home with all seven harnesses', () => {
  let fx: AllHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    fx = buildAllHome(tempDir('txu-read-all-'));
    env = cleanEnv(fx.home);
  });
  afterAll(() => fx?.close());

  it('--by harness lists the harnesses with billed usage; Cursor chats stay in their context section', () => {
    const j = reportJson([...ALL_RANGE, '--by', 'harness'], env);
    expect(j.rows.map((r: any) => r.harness).sort()).toEqual(Object.keys(fx.expected).sort());
    expect(j.context.length).toBeGreaterThan(0);
    const table = run(['report', ...ALL_RANGE, '--by', 'harness,model'], env).stdout;
    const usage = table.slice(0, table.indexOf('Cursor context'));
    expect(usage).not.toMatch(/^cursor-agent/m);
    expect(usage).not.toContain('(none)');
    expect(usage).toMatch(/^Total\s+\d/m); // "Total", then the numbers: no second key printed
  });
});

describe('demo output', () => {
  it('JSON says "demo": true, CSV stays plain CSV with the notice on stderr', () => {
    const env = cleanEnv(tempDir('txu-read-demo-'));
    expect(reportJson(['--demo'], env).demo).toBe(true);
    const csv = run(['report', '--demo', '--format', 'csv'], env);
    expect(csv.stdout.split('\r\n')[0]).toMatch(/^day,requests,/);
    expect(csv.stdout).not.toMatch(/^#/m);
    expect(csv.stderr).toContain('demo mode: generated sample data, not your files');
    expect(run(['demo', '--format', 'json'], env).stdout).toContain('"demo": true');
  });

  it('a report on your own files has no demo field', () => {
    const home = tempDir('txu-read-nodemo-');
    buildTwoMonthHome(home);
    expect('demo' in reportJson(RANGE, cleanEnv(home))).toBe(false);
  });
});
