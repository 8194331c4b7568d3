// The three reports (summary, monthly, compare) through the real CLI, in all
// four formats, on fixture homes and on --demo. Expected figures come from
// the fixture builders' ledgers, never from tx-usage.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { ALL_RANGE, buildAllHome, type AllHome } from '../../fixtures/all-harnesses.js';
import { Ledger, type LedgerRow } from '../../fixtures/ledger.js';
import { CLI, cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { buildTwoMonthHome, FORMULA_MODEL, XSS, XSS_PROJECT } from '../helpers/report-fixture.js';
import { HARNESS_IDS } from '../../src/core/types.js';

const TOKEN_FIELDS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
] as const;
const tokens = (r: Record<string, unknown>) => Object.fromEntries(TOKEN_FIELDS.map((k) => [k, r[k]]));

function run(args: string[], env: NodeJS.ProcessEnv) {
  const r = runCli(args, env);
  expect(r.status, `${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}

/** Parses RFC 4180 CSV (quoted cells with "" escapes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (q) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') q = false;
      else cell += c;
    } else if (c === '"') q = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

describe('monthly and compare on a two-month Claude Code home', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let claude: ClaudeHome;
  const range = ['--since', '2026-10-10', '--until', '2026-11-30']; // widened to Oct 1 – Nov 30

  beforeAll(() => {
    home = tempDir('txu-rep-');
    claude = buildTwoMonthHome(home);
    env = cleanEnv(home);
  });

  it('monthly JSON: whole months, totals and breakdowns as the ledger says, changes against the month before', () => {
    const j = reportJson(['monthly', ...range], env);
    expect(Object.keys(j)).toEqual([
      'since',
      'until',
      'through',
      'timezone',
      'breakdowns',
      'totals',
      'months',
      'harnesses_without_billed_usage',
      'warnings',
    ]);
    expect([j.since, j.until, j.through, j.timezone]).toEqual(['2026-10-01', '2026-11-30', '2026-11-30', 'UTC']);
    expect(j.breakdowns).toEqual(['harness', 'model', 'project']);
    expect(j.months.map((m: any) => [m.month, m.first_day, m.last_day])).toEqual([
      ['2026-10', '2026-10-01', '2026-10-31'],
      ['2026-11', '2026-11-01', '2026-11-30'],
    ]);
    const byMonth = new Map(claude.ledger.rows(['month']).map((r) => [r.month, r]));
    for (const m of j.months) expect(tokens(m.totals), m.month).toEqual(tokens(byMonth.get(m.month)!));
    expect(tokens(j.totals)).toEqual(tokens(claude.ledger.totals()));

    // November against October, from the ledger.
    const oct = byMonth.get('2026-10')!;
    const nov = j.months[1];
    expect(nov.totals.previous_total_tokens).toBe(oct.total_tokens);
    expect(nov.totals.total_tokens_change).toBe(byMonth.get('2026-11')!.total_tokens - oct.total_tokens);
    expect(nov.totals.total_tokens_change_ratio).toBeCloseTo(
      (byMonth.get('2026-11')!.total_tokens - oct.total_tokens) / oct.total_tokens,
      12,
    );
    // October's previous month (September) had nothing.
    expect(j.months[0].totals.previous_total_tokens).toBe(0);
    expect(j.months[0].totals.total_tokens_change_ratio).toBeNull();

    // Per model and project, including keys only in the previous month (as zero rows).
    for (const key of ['model', 'project'] as const) {
      const ledger = claude.ledger.rows(['month', key]);
      for (const m of j.months) {
        const prev = m.month === '2026-11' ? '2026-10' : '2026-09';
        const cur = new Map(ledger.filter((r) => r.month === m.month).map((r) => [String(r[key]), r]));
        const keys = new Set([...cur.keys(), ...ledger.filter((r) => r.month === prev).map((r) => String(r[key]))]);
        const zero = Object.fromEntries(TOKEN_FIELDS.map((f) => [f, 0])) as unknown as LedgerRow;
        const want = new Map([...keys].map((k) => [k, cur.get(k) ?? zero]));
        const got = m[`by_${key}`];
        expect(got.map((r: any) => r[key]).sort(), `${m.month} ${key}`).toEqual([...keys].sort());
        for (const r of got) expect(tokens(r), `${m.month} ${r[key]}`).toEqual(tokens(want.get(r[key])!));
      }
    }
    // Cost changes add up: this month's cost minus the previous month's (where both are known).
    for (const r of nov.by_model) {
      if (r.cost_usd !== null && r.previous_cost_usd !== null)
        expect(r.cost_change_usd).toBeCloseTo(r.cost_usd - r.previous_cost_usd, 9);
    }
  });

  it('monthly JSON: top sessions and days ranked by cost, each with the ledger tokens', () => {
    const j = reportJson(['monthly', ...range], env);
    const sessions = new Map(claude.ledger.rows(['month', 'session']).map((r) => [`${r.month}|${r.session}`, r]));
    const days = new Map(claude.ledger.rows(['day']).map((r) => [r.day, r]));
    for (const m of j.months) {
      expect(m.top_sessions.length).toBe([...sessions.keys()].filter((k) => k.startsWith(m.month)).length); // fewer than 10
      expect(m.top_sessions.map((s: any) => s.rank)).toEqual(m.top_sessions.map((_: unknown, i: number) => i + 1));
      const costs = m.top_sessions.map((s: any) => s.cost_usd ?? -1);
      expect(costs).toEqual([...costs].sort((a: number, b: number) => b - a));
      for (const s of m.top_sessions) expect(tokens(s)).toEqual(tokens(sessions.get(`${m.month}|${s.session}`)!));
      expect(m.top_days.length).toBeLessThanOrEqual(5);
      for (const d of m.top_days) expect(tokens(d)).toEqual(tokens(days.get(d.day)!));
      const dayCosts = m.top_days.map((d: any) => d.cost_usd ?? -1);
      expect(dayCosts).toEqual([...dayCosts].sort((a: number, b: number) => b - a));
    }
  });

  it('monthly JSON: cost shares add up to the month priced cost and match the published prices', () => {
    const j = reportJson(['monthly', ...range], env);
    const cache = new Map<string, Record<string, number>>();
    const prices = (model: string) => {
      if (!cache.has(model)) {
        const r = run(['prices', 'show', model, '--format', 'json'], env);
        cache.set(
          model,
          Object.fromEntries(Object.entries(JSON.parse(r.stdout).prices_usd_per_mtok).map(([k, v]) => [k, Number(v)])),
        );
      }
      return cache.get(model)!;
    };
    for (const m of j.months) {
      const s = m.cost_shares;
      if (m.totals.cost_usd === null) {
        expect(s).toBeNull();
        continue;
      }
      expect(s.priced_cost_usd).toBeCloseTo(m.totals.cost_usd, 9);
      // Claude models priced linearly, with responses that pin every rate down.
      expect(s.exact, m.month).toBe(true);
      expect(s.unattributed_share).toBe(0);
      for (const k of ['input_share', 'cache_read_share', 'cache_write_share', 'output_share'])
        expect(s[k], k).toBeGreaterThan(0);
      // The split is the one the published prices give (only 5-minute cache writes here).
      const want = { input: 0, cache_read: 0, cache_write: 0, output: 0 };
      for (const r of claude.ledger.rows(['month', 'model'])) {
        if (r.month !== m.month || r.model === FORMULA_MODEL) continue;
        const p = prices(String(r.model));
        want.input += (r.input_tokens * p.input_mtok) / 1e6;
        want.cache_read += (r.cache_read_tokens * p.cache_read_mtok) / 1e6;
        want.cache_write += (r.cache_write_tokens * p.cache_write_mtok) / 1e6;
        want.output += (r.output_tokens * p.output_mtok) / 1e6;
      }
      expect(s.input_usd, 'input').toBeCloseTo(want.input, 5);
      expect(s.cache_read_usd, 'cache read').toBeCloseTo(want.cache_read, 5);
      expect(s.cache_write_usd, 'cache write').toBeCloseTo(want.cache_write, 5);
      expect(s.output_usd, 'output').toBeCloseTo(want.output, 5);
      expect(
        s.input_share + s.cache_read_share + s.cache_write_share + s.output_share + s.unattributed_share,
      ).toBeCloseTo(1, 4);
      expect(s.input_usd + s.cache_read_usd + s.cache_write_usd + s.output_usd + s.unattributed_usd).toBeCloseTo(
        s.priced_cost_usd,
        4,
      );
    }
  });

  it('compare JSON: per harness and per harness × model, ratios from the ledger', () => {
    const j = reportJson(['compare', '--since', '2026-10-01', '--until', '2026-11-30'], env);
    expect(Object.keys(j)).toEqual([
      'since',
      'until',
      'timezone',
      'breakdown_by',
      'totals',
      'harnesses',
      'breakdown',
      'cursor',
      'same_model',
      'cheaper_per_prompt',
      'warnings',
    ]);
    expect(j.cursor).toBeNull(); // no Cursor activity: no cursor section
    expect(j.breakdown_by).toEqual(['harness', 'model']);
    const t = claude.ledger.totals();
    expect(j.harnesses).toHaveLength(1);
    const h = j.harnesses[0];
    expect([h.harness, h.billed_usage, h.context]).toEqual(['claude-code', true, null]);
    expect(tokens(h)).toEqual(tokens(t));
    const input = t.input_tokens + t.cache_read_tokens + t.cache_write_tokens;
    expect(h.cache_hit_rate).toBeCloseTo(t.cache_read_tokens / input, 12);
    expect(h.cache_write_share).toBeCloseTo(t.cache_write_tokens / input, 12);
    expect(h.reasoning_share).toBeCloseTo(t.reasoning_tokens / t.output_tokens, 12);
    expect(h.tokens_per_request).toBeCloseTo(t.total_tokens / t.requests, 9);
    expect(h.output_tokens_per_request).toBeCloseTo(t.output_tokens / t.requests, 9);
    expect(h.sessions).toBe(new Set(claude.ledger.responses.map((r) => r.session)).size);
    expect(h.active_days).toBe(claude.ledger.rows(['day']).length);
    const models = claude.ledger.rows(['harness', 'model']);
    expect(j.breakdown.map((r: any) => r.model).sort()).toEqual(models.map((r) => r.model).sort());
    for (const r of j.breakdown) expect(tokens(r)).toEqual(tokens(models.find((m) => m.model === r.model)!));
    if (h.cost_source === 'computed') expect(h.cost_per_request_usd).toBeCloseTo(h.cost_usd / h.requests, 12);
  });

  it('every report in table, csv and html; CSV cells that look like formulas are neutralized', () => {
    for (const name of ['summary', 'monthly', 'compare']) {
      const table = run(['report', name, ...range], env);
      expect(table.stdout.length, name).toBeGreaterThan(100);
      const csv = run(['report', name, ...range, '--format', 'csv'], env);
      const rows = parseCsv(csv.stdout);
      expect(rows.length, name).toBeGreaterThan(1);
      expect(
        rows.every((r) => r.length === rows[0]!.length),
        name,
      ).toBe(true);
      const out = join(home, `${name}.html`);
      const html = run(['report', name, ...range, '--format', 'html', '--out', out], env);
      expect(html.stdout).toBe('');
      const text = readFileSync(out, 'utf8');
      expect(text.startsWith('<!doctype html>')).toBe(true);
      expect(text).not.toMatch(/<script[^>]*\ssrc=|<link\b|<iframe\b/i); // nothing loaded from elsewhere
      expect(text).not.toContain(XSS); // only ever escaped
    }
    const monthlyCsv = parseCsv(run(['report', 'monthly', ...range, '--format', 'csv'], env).stdout);
    expect(monthlyCsv[0]!.slice(0, 3)).toEqual(['month', 'breakdown', 'key']);
    const keys = monthlyCsv.map((r) => r[2]);
    expect(keys).toContain(`'${FORMULA_MODEL}`);
    expect(keys).not.toContain(FORMULA_MODEL);
    expect(keys).toContain(XSS_PROJECT);
    const compareCsv = parseCsv(run(['report', 'compare', ...range, '--format', 'csv'], env).stdout);
    expect(compareCsv[0]!.slice(0, 2)).toEqual(['harness', 'billed']);
  });

  it('--model: summary (any --by), monthly and compare count the responses of the models named, as the ledger does', () => {
    const only = (models: string[]) => {
      const l = new Ledger();
      for (const r of claude.ledger.responses) if (r.model !== null && models.includes(r.model)) l.add(r);
      return l;
    };
    const all = ['--since', '2026-10-01', '--until', '2026-11-30'];
    const opus = only(['claude-opus-5-5']);
    const days = reportJson(['summary', ...all, '--model', 'claude-opus-5-5'], env);
    expect(days.rows.map((r: any) => [r.day, tokens(r)])).toEqual(opus.rows(['day']).map((r) => [r.day, tokens(r)]));
    expect(tokens(days.totals)).toEqual(tokens(opus.totals()));
    expect(days.totals.total_tokens).toBeLessThan(claude.ledger.totals().total_tokens);
    // Two ids (spaces around the comma allowed); the formula-named model too, exactly as stored.
    const two = only(['claude-opus-5-5', FORMULA_MODEL]);
    const byModel = reportJson(
      ['summary', ...all, '--by', 'model', '--model', `claude-opus-5-5, ${FORMULA_MODEL}`],
      env,
    );
    expect(byModel.rows.map((r: any) => r.model).sort()).toEqual([FORMULA_MODEL, 'claude-opus-5-5'].sort());
    expect(tokens(byModel.totals)).toEqual(tokens(two.totals()));
    // --by session: each session row still has its facts (its models: the one asked for).
    const sessions = reportJson(['summary', ...all, '--by', 'session', '--model', 'claude-opus-5-5'], env);
    expect(sessions.rows.map((r: any) => r.session).sort()).toEqual(
      opus
        .rows(['session'])
        .map((r) => r.session)
        .sort(),
    );
    for (const r of sessions.rows) expect([r.models, r.first_activity === null]).toEqual(['claude-opus-5-5', false]);
    // Monthly: every month and breakdown of that model alone.
    const monthly = reportJson(['monthly', ...all, '--model', 'claude-opus-5-5'], env);
    expect(monthly.months.map((m: any) => [m.month, tokens(m.totals)])).toEqual(
      opus.rows(['month']).map((r) => [r.month, tokens(r)]),
    );
    for (const m of monthly.months) expect(m.by_model.map((r: any) => r.model)).toEqual(['claude-opus-5-5']);
    for (const m of monthly.months) for (const t of m.top_sessions) expect(t.models).toBe('claude-opus-5-5');
    // Compare: the harness's figures, its sessions and its breakdown are that model's.
    const compare = reportJson(['compare', ...all, '--model', 'claude-opus-5-5'], env);
    expect(tokens(compare.harnesses[0])).toEqual(tokens(opus.totals()));
    expect(compare.harnesses[0].sessions).toBe(new Set(opus.responses.map((r) => r.session)).size);
    expect(compare.breakdown.map((r: any) => r.model)).toEqual(['claude-opus-5-5']);
    // The table says what it shows too (exit 0, the model's rows only).
    const table = run(['report', '--by', 'model', ...all, '--model', 'claude-opus-5-5'], env).stdout;
    expect(table).toContain('claude-opus-5-5');
    expect(table).not.toContain('claude-sonnet-5-5');
  });

  it('--model: an id no stored row has is a usage error naming the nearest ids (exit 2), as is an empty one; blocks refuses it', () => {
    const typo = runCli(['report', '--model', 'claude-opus-5'], env);
    expect(typo.status).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toContain('--model "claude-opus-5": no stored usage has this model id');
    expect(typo.stderr).toMatch(/did you mean "claude-opus-5-5"/);
    const several = runCli(['report', 'monthly', '--model', 'claude-opus-5-5,sonnet'], env);
    expect(several.status).toBe(2);
    expect(several.stderr).toMatch(/--model "sonnet": .*did you mean "claude-sonnet-5-5"/);
    expect(several.stderr).not.toContain('"claude-opus-5-5": no stored');
    expect(runCli(['report', '--model', ' , '], env).status).toBe(2);
    const blocks = runCli(['report', 'blocks', '--model', 'claude-opus-5-5'], env);
    expect(blocks.status).toBe(2);
    expect(blocks.stderr).toMatch(/--model is not for report blocks/);
  });

  it('rejects breakdowns a report cannot show', () => {
    const r = runCli(['report', 'monthly', '--by', 'day'], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/monthly review breaks each month down by/);
    const c = runCli(['report', 'compare', '--by', 'model,project'], env);
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(/at most one key/);
  });
});

describe('compare and monthly on a home with all seven harnesses', () => {
  let fx: AllHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    fx = buildAllHome(tempDir('txu-rep-all-'));
    env = cleanEnv(fx.home);
  });
  afterAll(() => fx?.close());

  it('compare: each billed harness with its ledger totals, Cursor with context occupancy and no billed usage', () => {
    const j = reportJson(['compare', ...ALL_RANGE], env);
    const byId = new Map(j.harnesses.map((h: any) => [h.harness, h]));
    expect([...byId.keys()].sort()).toEqual([...HARNESS_IDS].sort());
    // By cost, highest first; Cursor (cost unknown) last.
    const costs = j.harnesses.map((h: any) => h.cost_usd ?? -1);
    expect(costs).toEqual([...costs].sort((a: number, b: number) => b - a));
    expect(j.harnesses.at(-1).harness).toBe('cursor-agent');
    for (const [id, want] of Object.entries(fx.expected)) {
      const h: any = byId.get(id);
      expect(h.billed_usage, id).toBe(true);
      expect(tokens(h), id).toEqual(tokens(want as unknown as Record<string, unknown>));
    }
    const cursor: any = byId.get('cursor-agent');
    expect(cursor.billed_usage).toBe(false);
    for (const f of [...TOKEN_FIELDS, 'cost_usd', 'cost_per_request_usd', 'cache_hit_rate', 'sessions'])
      expect(cursor[f], f).toBeNull();
    expect(cursor.context.chats).toBeGreaterThan(0);
    expect(cursor.context.max_peak_used_tokens).toBeGreaterThan(0);
    expect(cursor.context.avg_peak_occupancy).toBeGreaterThan(0);
    expect(cursor.context.avg_peak_occupancy).toBeLessThanOrEqual(1);
    const table = run(['report', 'compare', ...ALL_RANGE], env);
    expect(table.stdout).toMatch(/Context occupancy \(not billed usage\)/);
    expect(table.stdout).toMatch(/No billed usage recorded locally/);
  });

  it('monthly: per-harness spend adds up over the months to each ledger; Cursor named as without billed usage', () => {
    const j = reportJson(['monthly', ...ALL_RANGE], env);
    expect(j.months.length).toBe(16); // Sep 2025 – Dec 2026
    for (const [id, want] of Object.entries(fx.expected)) {
      const sum: Record<string, number> = Object.fromEntries(TOKEN_FIELDS.map((f) => [f, 0]));
      for (const m of j.months)
        for (const r of m.by_harness) if (r.harness === id) for (const f of TOKEN_FIELDS) sum[f]! += r[f];
      expect(sum, id).toEqual(tokens(want as unknown as Record<string, unknown>));
    }
    expect(j.harnesses_without_billed_usage).toEqual(['cursor-agent']);
  });
});

describe('--demo', () => {
  it('all three reports in all four formats', () => {
    const dir = tempDir('txu-demo-');
    const env = cleanEnv(dir);
    for (const name of ['summary', 'monthly', 'compare']) {
      const j = reportJson([name, '--demo'], env);
      expect(j.since, name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(Array.isArray(j.warnings), name).toBe(true);
      expect(run(['report', name, '--demo'], env).stdout, name).toMatch(/\S/);
      expect(parseCsv(run(['report', name, '--demo', '--format', 'csv'], env).stdout).length, name).toBeGreaterThan(1);
      const out = join(dir, `${name}.html`);
      run(['report', name, '--demo', '--format', 'html', '--out', out], env);
      expect(existsSync(out) && readFileSync(out, 'utf8').includes('id="tx-usage-data"'), name).toBe(true);
    }
    const monthly = reportJson(['monthly', '--demo'], env);
    expect(monthly.months.length).toBeGreaterThanOrEqual(2);
    expect(monthly.totals.requests).toBeGreaterThan(0);
  });

  it('every harness with billed usage is in the demo (the issue-43 ones too), each without a warning of its own', () => {
    const env = cleanEnv(tempDir('txu-demo-'));
    const j = reportJson(['--demo', '--by', 'harness'], env);
    expect(j.rows.map((r: any) => r.harness).sort()).toEqual(HARNESS_IDS.filter((h) => h !== 'cursor-agent').sort());
    // Droid's rows are session totals: marked as such.
    expect(j.rows.find((r: any) => r.harness === 'droid').session_grain_tokens).toBeGreaterThan(0);
    expect(j.warnings.filter((w: string) => !w.includes('claude-sonnet-5-5'))).toEqual([]);
  });

  it('--demo with --from is refused (exit 2), not one of them silently ignored', () => {
    const dir = tempDir('txu-demo-');
    const r = runCli(['report', '--demo', '--from', dir], cleanEnv(dir));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--demo and --from: choose one/);
  });

  it('--color forces colour when piped and over NO_COLOR; by default a pipe gets none', () => {
    const env = cleanEnv(tempDir('txu-demo-')); // NO_COLOR=1
    expect(runCli(['report', '--demo', '--color'], env).stdout).toContain('\x1b[1m');
    const { NO_COLOR: _n, ...withoutNoColor } = env;
    expect(runCli(['report', '--demo'], withoutNoColor).stdout).not.toContain('\x1b[');
    expect(runCli(['report', '--demo', '--no-color'], withoutNoColor).stdout).not.toContain('\x1b[');
  });

  it("--out: a file a demo wrote is replaced by the next demo (recorded in the user's cache dir, not the generated home's)", () => {
    const dir = tempDir('txu-demo-');
    const env = cleanEnv(dir);
    const out = join(dir, 'demo.json');
    for (let i = 0; i < 2; i++) {
      const r = runCli(['report', '--demo', '--format', 'json', '--out', out], env);
      expect(r.status, r.stderr).toBe(0);
    }
    expect(JSON.parse(readFileSync(out, 'utf8')).demo).toBe(true);
  });

  it('Ctrl-C while the demo runs: exit 130, its generated home and store removed (at the latest by the next run)', async () => {
    const dir = tempDir('txu-demo-');
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const child = spawn(process.execPath, [CLI, 'report', '--demo'], {
      env: cleanEnv(dir, { TMPDIR: tmp }),
      stdio: 'ignore',
    });
    const demoDir = join(tmp, `tx-usage-runs-${process.getuid!()}`, `tx-usage-demo-${child.pid}`);
    const t0 = Date.now();
    while (!existsSync(join(demoDir, 'home')) && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 5));
    expect(existsSync(demoDir)).toBe(true);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(130);
    // Removed on the way out; should DuckDB's own threads have written into it meanwhile, the next run sweeps it.
    if (existsSync(demoDir)) runCli(['sources'], cleanEnv(dir, { TMPDIR: tmp }));
    expect(existsSync(demoDir)).toBe(false);
  });
});
