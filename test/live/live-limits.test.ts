// Plan rate limits: Codex's token_count.rate_limits snapshots extracted into
// the store (figures only), grouped into windows by `tx-usage limits`, with
// the spend in each. Expected figures are worked out by hand from
// fixtures/live/codex-limits.ts:
//   u1 06:00Z in 1000 out 100  $0.002     5h window A (05:00Z-10:00Z): 10% (06:00, again 06:30), 55% (08:00,
//   u2 08:00Z in 2000 out 200  $0.004       resets_at one second late), 100% and limit reached (09:30)
//   u3 11:30Z in 500  out 50   $0.001     5h window B (10:00Z-15:00Z): primary null (11:00, with credits), 5% (11:30)
//                                         weekly (05-07 00:00Z - 05-14 00:00Z): 30, 30, 32, 35, 35, 35%
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLimitsHome, LIMITS_THREAD, type LimitsHome } from '../../fixtures/live/codex-limits.js';
import { codex } from '../../src/harnesses/codex/index.js';
import { currentLimits, currentUsedPercent, limitWindows } from '../../src/live/limits.js';
import type { RateLimitSnapshot } from '../../src/core/types.js';
import { collectSource } from '../../src/ingest/collect.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const T = (iso: string) => Date.parse(iso);
const weekly = (used: number) => ({ used_percent: used, window_minutes: 10080, resets_at: T('2026-05-14T00:00:00Z') });
const credits = { has_credits: true, unlimited: false, balance: '12.50' };

let dir: string;
let fx: LimitsHome;
beforeAll(() => {
  dir = tempDir('txu-limits-');
  fx = buildLimitsHome(join(dir, 'home'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Codex rate-limit snapshots (extractor)', () => {
  it('one snapshot per run of identical ones: null primary, credits, a reached limit, never limit_name', async () => {
    const c = await collectSource(
      codex,
      { harness: 'codex', key: fx.rollout, path: fx.rollout, kind: 'jsonl' },
      { resume: null, tmpDir: dir, knownProjects: new Set() },
    );
    expect(c.warnings).toEqual([]);
    const base = {
      harness: 'codex',
      session_id: LIMITS_THREAD,
      limit_id: 'codex',
      plan_type: 'plus',
      source_file: fx.rollout,
    };
    expect(c.rateLimits).toEqual([
      {
        ...base,
        ts: T('2026-05-10T06:00:00Z'),
        last_ts: T('2026-05-10T06:30:00Z'),
        primary: { used_percent: 10, window_minutes: 300, resets_at: T('2026-05-10T10:00:00Z') },
        secondary: weekly(30),
        credits: null,
        reached_type: null,
        source_line: 9,
      },
      {
        ...base,
        ts: T('2026-05-10T08:00:00Z'),
        last_ts: T('2026-05-10T08:00:00Z'),
        primary: { used_percent: 55, window_minutes: 300, resets_at: T('2026-05-10T10:00:01Z') },
        secondary: weekly(32),
        credits: null,
        reached_type: null,
        source_line: 14,
      },
      {
        ...base,
        ts: T('2026-05-10T09:30:00Z'),
        last_ts: T('2026-05-10T09:30:00Z'),
        primary: { used_percent: 100, window_minutes: 300, resets_at: T('2026-05-10T10:00:00Z') },
        secondary: weekly(35),
        credits: null,
        reached_type: 'rate_limit_reached',
        source_line: 15,
      },
      {
        ...base,
        ts: T('2026-05-10T11:00:00Z'),
        last_ts: T('2026-05-10T11:00:00Z'),
        primary: null,
        secondary: weekly(35),
        credits,
        reached_type: null,
        source_line: 16,
      },
      {
        ...base,
        ts: T('2026-05-10T11:30:00Z'),
        last_ts: T('2026-05-10T11:30:00Z'),
        primary: { used_percent: 5, window_minutes: 300, resets_at: T('2026-05-10T15:00:00Z') },
        secondary: weekly(35),
        credits,
        reached_type: null,
        source_line: 20,
      },
    ]);
    // The usage is unchanged by them: three responses.
    expect(c.events.map((e) => [new Date(e.ts).toISOString(), e.input_tokens, e.output_tokens])).toEqual([
      ['2026-05-10T06:00:00.000Z', 1000, 100],
      ['2026-05-10T08:00:00.000Z', 2000, 200],
      ['2026-05-10T11:30:00.000Z', 500, 50],
    ]);
  });
});

const spent = (requests: number, input: number, output: number, cost: number) => ({
  requests,
  input_tokens: input,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: output,
  reasoning_tokens: 0,
  total_tokens: input + output,
  cost_usd: cost,
  cost_source: 'computed',
  computed_cost_usd: cost,
  recorded_cost_usd: null,
  unpriced_requests: 0,
  unpriced_tokens: 0,
});

describe('tx-usage limits', () => {
  const run = (now: string, args: string[]) => {
    const r = runCli(
      ['limits', '--prices', fx.pricesFile, '--tz', 'UTC', '--since', '2026-05-10', ...args],
      cleanEnv(fx.home, { TX_USAGE_NOW: now }),
    );
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };

  it('JSON: the current 5 h and weekly limits, every window since --since with its peak and spend, a reset window marked', () => {
    const j = JSON.parse(run('2026-05-10T12:00:00Z', ['--format', 'json']));
    expect([j.timezone, j.now, j.since, j.warnings]).toEqual(['UTC', '2026-05-10T12:00:00+00:00', '2026-05-10', []]);
    expect(j.limits).toEqual([
      {
        harness: 'codex',
        window: '5h',
        window_minutes: 300,
        plan_type: 'plus',
        limit_id: 'codex',
        used_percent: 5,
        observed_at: '2026-05-10T11:30:00+00:00',
        resets_at: '2026-05-10T15:00:00+00:00',
        reset: false,
        reached_type: null,
        credits,
        window_start: '2026-05-10T10:00:00+00:00',
        peak_used_percent: 5,
        current_used_percent: 5,
        ...spent(1, 500, 50, 0.001),
        tokens_per_percent: 110,
        cost_usd_per_percent: 0.0002,
      },
      {
        harness: 'codex',
        window: 'weekly',
        window_minutes: 10080,
        plan_type: 'plus',
        limit_id: 'codex',
        used_percent: 35,
        observed_at: '2026-05-10T11:30:00+00:00',
        resets_at: '2026-05-14T00:00:00+00:00',
        reset: false,
        reached_type: null,
        credits,
        window_start: '2026-05-07T00:00:00+00:00',
        peak_used_percent: 35,
        current_used_percent: 35,
        ...spent(3, 3500, 350, 0.007),
        tokens_per_percent: 110,
        cost_usd_per_percent: 0.0002,
      },
    ]);
    expect(j.windows).toEqual([
      {
        harness: 'codex',
        window: 'weekly',
        window_minutes: 10080,
        plan_type: 'plus',
        start: '2026-05-07T00:00:00+00:00',
        resets_at: '2026-05-14T00:00:00+00:00',
        reset: false,
        peak_used_percent: 35,
        last_used_percent: 35,
        first_observed_at: '2026-05-10T06:00:00+00:00',
        observed_at: '2026-05-10T11:30:00+00:00',
        reached_type: null,
        ...spent(3, 3500, 350, 0.007),
        tokens_per_percent: 110,
        cost_usd_per_percent: 0.0002,
      },
      {
        harness: 'codex',
        window: '5h',
        window_minutes: 300,
        plan_type: 'plus',
        start: '2026-05-10T10:00:00+00:00',
        resets_at: '2026-05-10T15:00:00+00:00',
        reset: false,
        peak_used_percent: 5,
        last_used_percent: 5,
        first_observed_at: '2026-05-10T11:30:00+00:00',
        observed_at: '2026-05-10T11:30:00+00:00',
        reached_type: null,
        ...spent(1, 500, 50, 0.001),
        tokens_per_percent: 110,
        cost_usd_per_percent: 0.0002,
      },
      {
        // 10% twice, 55% with a second of jitter in resets_at, then 100% and the limit reached: one window, reset since.
        harness: 'codex',
        window: '5h',
        window_minutes: 300,
        plan_type: 'plus',
        start: '2026-05-10T05:00:00+00:00',
        resets_at: '2026-05-10T10:00:00+00:00',
        reset: true,
        peak_used_percent: 100,
        last_used_percent: 100,
        first_observed_at: '2026-05-10T06:00:00+00:00',
        observed_at: '2026-05-10T09:30:00+00:00',
        reached_type: 'rate_limit_reached',
        ...spent(2, 3000, 300, 0.006),
        tokens_per_percent: 33,
        cost_usd_per_percent: 0.00006,
      },
    ]);
  });

  it("after the 5 h window's reset: the limit shows as reset, keeps its last figures, and is used 0 % now", () => {
    const j = JSON.parse(run('2026-05-10T16:00:00Z', ['--format', 'json']));
    expect(j.limits[0]).toMatchObject({
      window: '5h',
      reset: true,
      used_percent: 5,
      current_used_percent: 0,
      resets_at: '2026-05-10T15:00:00+00:00',
      observed_at: '2026-05-10T11:30:00+00:00',
    });
    expect(j.limits[1]).toMatchObject({ window: 'weekly', reset: false });
  });

  it('table: the current limits (a reset one at 0 %), then the earlier windows: each window once', () => {
    const out = run('2026-05-10T16:00:00Z', []);
    expect(out).toBe(
      [
        'Plan limits',
        'Harness  Window   Used  Resets                     Tokens    Cost        $/1%',
        '─'.repeat(77),
        'codex    5h       0.0%  reset at 2026-05-10 15:00     550  <$0.01  $0.0002000',
        'codex    weekly  35.0%  2026-05-14 00:00            3.85k  <$0.01  $0.0002000',
        '',
        'Earlier windows',
        'Harness  Window  Ends                Peak  Tokens    Cost         $/1%',
        '─'.repeat(70),
        'codex    5h      2026-05-10 10:00  100.0%   3.30k  <$0.01  $0.00006000',
        '',
      ].join('\n'),
    );
  });

  it('the store keeps the figures only: no limit_name text', () => {
    const r = runCli(
      ['sql', 'SELECT count(*) AS n, max(primary_used_percent) AS peak FROM rate_limit_snapshots', '--format', 'json'],
      cleanEnv(fx.home),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ n: 5, peak: 100 }]);
    for (const f of ['usage.duckdb', 'usage.duckdb.wal']) {
      const p = join(fx.home, '.cache', 'tx-usage', f);
      if (existsSync(p)) expect(readFileSync(p).includes(Buffer.from('text never stored')), f).toBe(false);
    }
  });
});

describe('limit windows: one row per window', () => {
  // Snapshots as the store gives them: weekly (secondary) readings of one harness, at an ISO time, with a reset and a percent.
  const snap = (at: string, resets: string, used: number, session = 's1'): RateLimitSnapshot => ({
    harness: 'codex',
    session_id: session,
    ts: T(at),
    last_ts: T(at),
    limit_id: 'codex',
    plan_type: 'plus',
    primary: null,
    secondary: { used_percent: used, window_minutes: 10080, resets_at: T(resets) },
    credits: null,
    reached_type: null,
    source_file: '',
    source_line: null,
  });
  const rows = (snaps: RateLimitSnapshot[]) =>
    limitWindows(snaps).map((w) => [
      new Date(w.start).toISOString().slice(0, 16),
      new Date(w.resets_at).toISOString().slice(0, 16),
      w.peak_used_percent,
      w.used_percent,
    ]);

  it('two sessions interleaving two anchors of the same week: one window, not one per alternation (openai/codex#23190)', () => {
    // Session 2 reports an anchor 2 h later than session 1 (beyond the 10-minute tolerance), their snapshots alternating.
    const snaps = [
      snap('2026-05-10T06:00:00Z', '2026-05-14T00:00:00Z', 30),
      snap('2026-05-10T06:05:00Z', '2026-05-14T02:00:00Z', 31, 's2'),
      snap('2026-05-10T06:10:00Z', '2026-05-14T00:00:00Z', 32),
      snap('2026-05-10T06:15:00Z', '2026-05-14T02:00:00Z', 33, 's2'),
      snap('2026-05-10T06:20:00Z', '2026-05-14T00:00:00Z', 34),
    ];
    // Before: a new window at every alternation (five rows). The second anchor is the first moved (percent up): one window.
    expect(rows(snaps)).toEqual([['2026-05-07T00:00', '2026-05-14T00:00', 34, 34]]);
  });

  it('a weekly reset moved while the usage went on is the same window (openai/codex#5999, #35952); a lower percent is a new one', () => {
    const moved = [
      snap('2026-05-10T06:00:00Z', '2026-05-14T00:00:00Z', 60),
      snap('2026-05-11T06:00:00Z', '2026-05-17T03:16:00Z', 65),
      snap('2026-05-12T06:00:00Z', '2026-05-17T03:16:00Z', 70),
    ];
    expect(rows(moved)).toEqual([['2026-05-07T00:00', '2026-05-17T03:16', 70, 70]]);
    // A reset before the time it said (openai/codex#19987): the percent falls, the window restarts.
    const restarted = [
      snap('2026-05-10T06:00:00Z', '2026-05-14T00:00:00Z', 60),
      snap('2026-05-11T06:00:00Z', '2026-05-18T06:00:00Z', 2),
    ];
    expect(rows(restarted)).toEqual([
      ['2026-05-07T00:00', '2026-05-14T00:00', 60, 60],
      ['2026-05-11T06:00', '2026-05-18T06:00', 2, 2],
    ]);
    // After the window's reset, the next one is a new window whatever its percent.
    const next = [
      snap('2026-05-10T06:00:00Z', '2026-05-14T00:00:00Z', 60),
      snap('2026-05-14T06:00:00Z', '2026-05-21T06:00:00Z', 70),
    ];
    expect(limitWindows(next)).toHaveLength(2);
  });

  it('the current limit: the latest window, used 0 % once it has reset', () => {
    const snaps = [snap('2026-05-10T06:00:00Z', '2026-05-14T00:00:00Z', 60)];
    const [cur] = currentLimits(snaps);
    expect(currentUsedPercent(cur!, T('2026-05-13T23:59:00Z'))).toBe(60);
    expect(currentUsedPercent(cur!, T('2026-05-14T00:00:00Z'))).toBe(0);
  });
});

describe('the same current limits everywhere: limits, watch, the status line', () => {
  it("one row per harness and window with its use now (a reset window at 0 %), Claude Code's beside Codex's", () => {
    const env = cleanEnv(fx.home, { TX_USAGE_NOW: '2026-05-10T16:00:00Z' });
    const sec = (iso: string) => T(iso) / 1000;
    const status = (five: [number, string], seven: [number, string]) =>
      runCli(
        ['statusline'],
        env,
        JSON.stringify({
          session_id: 'lim',
          model: { display_name: 'Opus' },
          rate_limits: {
            five_hour: { used_percentage: five[0], resets_at: sec(five[1]) },
            seven_day: { used_percentage: seven[0], resets_at: sec(seven[1]) },
          },
        }),
      );
    expect(runCli(['statusline', '--refresh', '--prices', fx.pricesFile], env).status).toBe(0);
    // Claude Code's 5-hour window reset at 15:00: its use now is 0 %, not the 20 % last seen.
    expect(status([20, '2026-05-10T15:00:00Z'], [80, '2026-05-12T00:00:00Z']).stdout).toContain('5h 0% 7d 80%');
    expect(status([42.5, '2026-05-10T18:00:00Z'], [85, '2026-05-12T00:00:00Z']).stdout).toContain('5h 43% 7d 85%');
    const expected = [
      ['claude-code', '5h', '42.5%', '2026-05-10 18:00'],
      ['claude-code', 'weekly', '85.0%', '2026-05-12 00:00'],
      ['codex', '5h', '0.0%', 'reset at 2026-05-10 15:00'],
      ['codex', 'weekly', '35.0%', '2026-05-14 00:00'],
    ];
    const tableRows = (out: string) => {
      const t = out.slice(out.indexOf('Plan limits\n')).split('\n\n')[0]!;
      return t
        .split('\n')
        .slice(3)
        .filter((l) => /^(claude-code|codex) /.test(l))
        .map((l) => {
          const m = /^(\S+)\s+(\S+)\s+(\S+)\s+(reset at \S+ \S+|\S+ \S+)/.exec(l);
          return m ? m.slice(1, 5) : [l];
        });
    };
    const limits = runCli(['limits', '--prices', fx.pricesFile, '--tz', 'UTC', '--since', '2026-05-10'], env);
    expect(limits.status, limits.stderr).toBe(0);
    expect(tableRows(limits.stdout), limits.stdout).toEqual(expected);
    const watch = runCli(['watch', '--once', '--tz', 'UTC', '--prices', fx.pricesFile], env);
    expect(watch.status, watch.stderr).toBe(0);
    // Before: watch left Claude Code's limits out of its table and showed the reset Codex window as "reset" beside no percent.
    expect(tableRows(watch.stdout)).toEqual(expected);
    const j = JSON.parse(
      runCli(['limits', '--prices', fx.pricesFile, '--tz', 'UTC', '--since', '2026-05-10', '--format', 'json'], env)
        .stdout,
    );
    expect(j.limits.map((l: any) => [l.harness, l.window, l.current_used_percent])).toEqual([
      ['claude-code', '5h', 42.5],
      ['claude-code', 'weekly', 85],
      ['codex', '5h', 0],
      ['codex', 'weekly', 35],
    ]);
  });
});
