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
import { buildLimitsHome, LIMITS_THREAD, type LimitsHome } from '../fixtures/live/codex-limits.js';
import { codex } from '../src/harnesses/codex/index.js';
import { collectSource } from '../src/ingest/collect.js';
import { cleanEnv, runCli, tempDir } from './helpers/cli.js';

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
    const c = await collectSource(codex, { harness: 'codex', key: fx.rollout, path: fx.rollout, kind: 'jsonl' }, { resume: null, tmpDir: dir, knownProjects: new Set() });
    expect(c.warnings).toEqual([]);
    const base = { harness: 'codex', session_id: LIMITS_THREAD, limit_id: 'codex', plan_type: 'plus', source_file: fx.rollout };
    expect(c.rateLimits).toEqual([
      { ...base, ts: T('2026-05-10T06:00:00Z'), last_ts: T('2026-05-10T06:30:00Z'), primary: { used_percent: 10, window_minutes: 300, resets_at: T('2026-05-10T10:00:00Z') }, secondary: weekly(30), credits: null, reached_type: null, source_line: 9 },
      { ...base, ts: T('2026-05-10T08:00:00Z'), last_ts: T('2026-05-10T08:00:00Z'), primary: { used_percent: 55, window_minutes: 300, resets_at: T('2026-05-10T10:00:01Z') }, secondary: weekly(32), credits: null, reached_type: null, source_line: 14 },
      { ...base, ts: T('2026-05-10T09:30:00Z'), last_ts: T('2026-05-10T09:30:00Z'), primary: { used_percent: 100, window_minutes: 300, resets_at: T('2026-05-10T10:00:00Z') }, secondary: weekly(35), credits: null, reached_type: 'rate_limit_reached', source_line: 15 },
      { ...base, ts: T('2026-05-10T11:00:00Z'), last_ts: T('2026-05-10T11:00:00Z'), primary: null, secondary: weekly(35), credits, reached_type: null, source_line: 16 },
      { ...base, ts: T('2026-05-10T11:30:00Z'), last_ts: T('2026-05-10T11:30:00Z'), primary: { used_percent: 5, window_minutes: 300, resets_at: T('2026-05-10T15:00:00Z') }, secondary: weekly(35), credits, reached_type: null, source_line: 20 },
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
  requests, input_tokens: input, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: output, reasoning_tokens: 0, total_tokens: input + output,
  cost_usd: cost, cost_source: 'computed', computed_cost_usd: cost, recorded_cost_usd: null, unpriced_requests: 0, unpriced_tokens: 0,
});

describe('tx-usage limits', () => {
  const run = (now: string, args: string[]) => {
    const r = runCli(['limits', '--prices', fx.pricesFile, '--tz', 'UTC', '--since', '2026-05-10', ...args], cleanEnv(fx.home, { TX_USAGE_NOW: now }));
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };

  it('JSON: the current 5 h and weekly limits, every window since --since with its peak and spend, a reset window marked', () => {
    const j = JSON.parse(run('2026-05-10T12:00:00Z', ['--format', 'json']));
    expect([j.timezone, j.now, j.since, j.warnings]).toEqual(['UTC', '2026-05-10T12:00:00+00:00', '2026-05-10', []]);
    expect(j.limits).toEqual([
      {
        harness: 'codex', window: '5h', window_minutes: 300, plan_type: 'plus', limit_id: 'codex',
        used_percent: 5, observed_at: '2026-05-10T11:30:00+00:00', resets_at: '2026-05-10T15:00:00+00:00', reset: false,
        reached_type: null, credits, window_start: '2026-05-10T10:00:00+00:00', peak_used_percent: 5,
        ...spent(1, 500, 50, 0.001), tokens_per_percent: 110, cost_usd_per_percent: 0.0002,
      },
      {
        harness: 'codex', window: 'weekly', window_minutes: 10080, plan_type: 'plus', limit_id: 'codex',
        used_percent: 35, observed_at: '2026-05-10T11:30:00+00:00', resets_at: '2026-05-14T00:00:00+00:00', reset: false,
        reached_type: null, credits, window_start: '2026-05-07T00:00:00+00:00', peak_used_percent: 35,
        ...spent(3, 3500, 350, 0.007), tokens_per_percent: 110, cost_usd_per_percent: 0.0002,
      },
    ]);
    expect(j.windows).toEqual([
      {
        harness: 'codex', window: 'weekly', window_minutes: 10080, plan_type: 'plus', start: '2026-05-07T00:00:00+00:00', resets_at: '2026-05-14T00:00:00+00:00',
        reset: false, peak_used_percent: 35, last_used_percent: 35, first_observed_at: '2026-05-10T06:00:00+00:00', observed_at: '2026-05-10T11:30:00+00:00',
        reached_type: null, ...spent(3, 3500, 350, 0.007), tokens_per_percent: 110, cost_usd_per_percent: 0.0002,
      },
      {
        harness: 'codex', window: '5h', window_minutes: 300, plan_type: 'plus', start: '2026-05-10T10:00:00+00:00', resets_at: '2026-05-10T15:00:00+00:00',
        reset: false, peak_used_percent: 5, last_used_percent: 5, first_observed_at: '2026-05-10T11:30:00+00:00', observed_at: '2026-05-10T11:30:00+00:00',
        reached_type: null, ...spent(1, 500, 50, 0.001), tokens_per_percent: 110, cost_usd_per_percent: 0.0002,
      },
      {
        // 10% twice, 55% with a second of jitter in resets_at, then 100% and the limit reached: one window, reset since.
        harness: 'codex', window: '5h', window_minutes: 300, plan_type: 'plus', start: '2026-05-10T05:00:00+00:00', resets_at: '2026-05-10T10:00:00+00:00',
        reset: true, peak_used_percent: 100, last_used_percent: 100, first_observed_at: '2026-05-10T06:00:00+00:00', observed_at: '2026-05-10T09:30:00+00:00',
        reached_type: 'rate_limit_reached', ...spent(2, 3000, 300, 0.006), tokens_per_percent: 33, cost_usd_per_percent: 0.00006,
      },
    ]);
  });

  it('after the 5 h window\'s reset: the limit shows as reset and keeps its last figures', () => {
    const j = JSON.parse(run('2026-05-10T16:00:00Z', ['--format', 'json']));
    expect(j.limits[0]).toMatchObject({ window: '5h', reset: true, used_percent: 5, resets_at: '2026-05-10T15:00:00+00:00', observed_at: '2026-05-10T11:30:00+00:00' });
    expect(j.limits[1]).toMatchObject({ window: 'weekly', reset: false });
  });

  it('table: plan limits, then the windows; the reset window in the past', () => {
    const out = run('2026-05-10T16:00:00Z', []);
    expect(out).toBe(
      [
        'Plan limits',
        'Harness  Window   Used  Resets                        Plan  Tokens    Cost',
        '──────────────────────────────────────────────────────────────────────────',
        'codex    5h       5.0%  reset (was 2026-05-10 15:00)  plus     550  <$0.01',
        'codex    weekly  35.0%  2026-05-14 00:00              plus   3.85k  <$0.01',
        '',
        'Windows',
        'Harness  Window  Ends                Peak  Tokens    Cost         $/1%',
        '──────────────────────────────────────────────────────────────────────',
        'codex    weekly  2026-05-14 00:00   35.0%   3.85k  <$0.01   $0.0002000',
        'codex    5h      2026-05-10 15:00    5.0%     550  <$0.01   $0.0002000',
        'codex    5h      2026-05-10 10:00  100.0%   3.30k  <$0.01  $0.00006000',
        '',
      ].join('\n'),
    );
  });

  it('the store keeps the figures only: no limit_name text', () => {
    const r = runCli(['sql', 'SELECT count(*) AS n, max(primary_used_percent) AS peak FROM rate_limit_snapshots', '--format', 'json'], cleanEnv(fx.home));
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ n: 5, peak: 100 }]);
    for (const f of ['usage.duckdb', 'usage.duckdb.wal']) {
      const p = join(fx.home, '.cache', 'tx-usage', f);
      if (existsSync(p)) expect(readFileSync(p).includes(Buffer.from('text never stored')), f).toBe(false);
    }
  });
});
