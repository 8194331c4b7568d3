// Claude Code responses billed beyond their top-level tokens (issue 34), end
// to end through the real CLI: fast mode, advisor iterations and web
// searches. Tokens come from the builder's ledger; every cost below is worked
// out by hand from the bundled price data (pinned in the first test) and
// fast-mode multipliers (src/pricing/fast-mode.ts, quoted beside each case).
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { waitForUpdate } from '@pydantic/genai-prices';
import { beforeAll, describe, expect, it } from 'vitest';
import { CANARY } from '../../fixtures/claude-code/build.js';
import {
  BILLING_PROJECTS,
  buildBillingHome,
  buildFastPromoHome,
  OPUS_46_USAGE,
  PROMO_END,
  PROMO_LONG_USAGE,
  PROMO_PROJECTS,
  PROMO_USAGE,
  type BillingHome,
} from '../../fixtures/claude-code/billing.js';
import { tokenFields } from '../../fixtures/ledger.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { stampOf } from '../../src/ingest/stamp.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-05-01', '--until', '2026-10-31'];

// Hand-computed costs (USD per million tokens; web_searches_kcount per 1000 searches).
// claude-opus-4-6 from 2026-03-13: in 5, cache write 6.25, cache read 0.5, out 25.
//   standard: 1000×5 + 2000×25 + 10000×0.5 + 500×6.25 = 5000+50000+5000+3125 = 63125 → $0.063125
//   fast (6× every token rate: 30 / 150 / 3 / 37.5): 6 × 63125 = 378750 → $0.37875
const OPUS_46_STANDARD = 0.063125;
const OPUS_46_FAST = 0.37875;
// claude-opus-4-8 fast (2×: 10 / 50, cache read 1, 1h write 20): 200×10 + 1000×50 + 4000×1 + 100×20 = 2000+50000+4000+2000 = 58000 → $0.058
const OPUS_48_FAST = 0.058;
// claude-sonnet-4-5 (tiered at 200k: 3→6, cw 3.75→7.5, cr 0.3→0.6, out 15→22.5), the advisor turn per iteration:
//   iteration 0: input 2+150000+2000 = 152002 ≤ 200k: 2×3 + 150000×0.3 + 2000×3.75 + 100×15 = 6+45000+7500+1500 = 54006
//   iteration 2: input 3+152000+1000 = 153003 ≤ 200k: 3×3 + 152000×0.3 + 1000×3.75 + 400×15 = 9+45600+3750+6000 = 55359
//   → $0.109365 (on the summed input, 305005 > 200k, it would be 5×6 + 302000×0.6 + 3000×7.5 + 500×22.5 = $0.21498)
const SONNET_45_TURN = 0.109365;
//   the plain response, input 5000+190000+10000 = 205000 > 200k: 5000×6 + 190000×0.6 + 10000×7.5 + 2000×22.5 = 30000+114000+75000+45000 → $0.264
const SONNET_45_LONG = 0.264;
// claude-opus-4-7 (in 5, out 25), the advisor iteration: 151000×5 + 800×25 = 755000+20000 → $0.775
const OPUS_47_ADVICE = 0.775;
// claude-sonnet-4-6 from 2026-03-13 (in 3, out 15) + 3 web searches at $10 / 1000:
//   100×3 + 200×15 = 3300 → $0.0033; 3 × $0.01 = $0.03 → $0.0333
const SONNET_46_SEARCH = 0.0333;

let b: BillingHome;
let home: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  home = tempDir('txu-claude-billing-');
  b = buildBillingHome(home);
  env = cleanEnv(home);
});

const byModel = (j: any) => Object.fromEntries(j.rows.map((r: any) => [r.model, r]));

describe('the price data the hand computations use', () => {
  it('still has the prices quoted in this file', async () => {
    const data = (await waitForUpdate())!;
    const prices = (model: string) =>
      data.find((p) => p.id === 'anthropic')!.models.find((m) => m.id === model)!.prices;
    const o46 = prices('claude-opus-4-6') as { constraint?: unknown; prices: unknown }[];
    expect(o46[1]).toMatchObject({
      constraint: { start_date: '2026-03-13' },
      prices: { input_mtok: 5, cache_write_mtok: 6.25, cache_read_mtok: 0.5, output_mtok: 25, cache_write_1h_mtok: 10 },
    });
    expect(prices('claude-opus-4-8')).toMatchObject({
      input_mtok: 5,
      cache_write_mtok: 6.25,
      cache_read_mtok: 0.5,
      output_mtok: 25,
      cache_write_1h_mtok: 10,
    });
    expect(prices('claude-opus-4-7')).toMatchObject({ input_mtok: 5, output_mtok: 25 });
    expect(prices('claude-sonnet-4-5')).toMatchObject({
      input_mtok: { base: 3, tiers: [{ start: 200000, price: 6 }] },
      cache_write_mtok: { base: 3.75, tiers: [{ start: 200000, price: 7.5 }] },
      cache_read_mtok: { base: 0.3, tiers: [{ start: 200000, price: 0.6 }] },
      output_mtok: { base: 15, tiers: [{ start: 200000, price: 22.5 }] },
    });
    const s46 = prices('claude-sonnet-4-6') as { constraint?: unknown; prices: unknown }[];
    expect(s46[1]).toMatchObject({
      constraint: { start_date: '2026-03-13' },
      prices: { input_mtok: 3, output_mtok: 15, web_searches_kcount: 10 },
    });
  });
});

describe('claude-code billing beyond tokens', () => {
  it('counts advisor iterations as responses of their own model, once across split lines and a /branch copy', () => {
    const j = reportJson([...RANGE, '--by', 'model', '--sort', 'name'], env);
    expect(j.rows.map((r: any) => tokenFields(r, ['model']))).toEqual(
      b.claude.ledger.rows(['model'], { since: '2026-05-01', until: '2026-10-31' }),
    );
    const m = byModel(j);
    expect(m['claude-opus-4-7']).toMatchObject({ requests: 1, input_tokens: 151000, output_tokens: 800 });
    // The executor: one request, the top level's tokens (the sum of its two iterations), plus the plain response.
    expect(m['claude-sonnet-4-5']).toMatchObject({
      requests: 2,
      input_tokens: 5 + 5000,
      cache_read_tokens: 302000 + 190000,
      cache_write_tokens: 3000 + 10000,
      output_tokens: 500 + 2000,
    });
    // 4 fast-session responses, 2 advisor-session responses + 1 advice, 1 search response.
    expect(j.totals.requests).toBe(8);
    // The advice is the advisor session's; the /branch copy adds nothing of its own.
    const s = reportJson([...RANGE, '--by', 'session,model'], env);
    expect(s.rows.find((r: any) => r.model === 'claude-opus-4-7').session).toBe(b.advisor.sessionId);
    expect(s.rows.some((r: any) => r.session === b.fork.sessionId)).toBe(false);
  });

  it('prices fast mode at the model fast rates, each main-model iteration on its own input, and web searches per search', () => {
    const m = byModel(reportJson([...RANGE, '--by', 'model'], env));
    expect(m['claude-opus-4-6'].cost_usd).toBeCloseTo(OPUS_46_FAST + OPUS_46_STANDARD, 10);
    expect(m['claude-opus-4-8'].cost_usd).toBeCloseTo(OPUS_48_FAST, 10);
    expect(m['claude-sonnet-4-5'].cost_usd).toBeCloseTo(SONNET_45_TURN + SONNET_45_LONG, 10);
    expect(m['claude-opus-4-7'].cost_usd).toBeCloseTo(OPUS_47_ADVICE, 10);
    expect(m['claude-sonnet-4-6'].cost_usd).toBeCloseTo(SONNET_46_SEARCH, 10);
    for (const k of [
      'claude-opus-4-6',
      'claude-opus-4-8',
      'claude-sonnet-4-5',
      'claude-opus-4-7',
      'claude-sonnet-4-6',
    ]) {
      expect(m[k], k).toMatchObject({ cost_source: 'computed', unpriced_requests: 0 });
    }
  });

  it('gives a fast response of a model without a known fast-mode price no cost, marked, never the standard one', () => {
    const j = reportJson([...RANGE, '--by', 'model'], env);
    expect(byModel(j)['claude-opus-5-5']).toMatchObject({
      requests: 1,
      cost_usd: null,
      cost_source: 'none',
      unpriced_requests: 1,
      unpriced_tokens: 110,
    });
    const priced =
      OPUS_46_FAST +
      OPUS_46_STANDARD +
      OPUS_48_FAST +
      SONNET_45_TURN +
      SONNET_45_LONG +
      OPUS_47_ADVICE +
      SONNET_46_SEARCH;
    expect(j.totals).toMatchObject({ cost_source: 'partial', unpriced_requests: 1, unpriced_tokens: 110 });
    expect(j.totals.cost_usd).toBeCloseTo(priced, 10);
    expect(j.warnings.filter((w: string) => /claude-opus-5-5/.test(w))).toEqual([
      'no fast-mode price for model "claude-opus-5-5" (claude-code): 1 response served at speed "fast" (110 tokens) has no computed cost (unknown, not the standard rate); price it with --prices FILE (LiteLLM format, provider_specific_entry.fast)',
    ]);
  });

  it('prices fast mode from an override file (provider_specific_entry.fast)', () => {
    // claude-opus-5-5 at 4 / 20 per MTok (input_cost_per_token 4e-6, output 2e-5), fast 2.5×:
    // 2.5 × (10×4 + 100×20) = 2.5 × 2040 = 5100 → $0.0051
    const file = join(home, 'opus55-fast.json');
    writeFileSync(
      file,
      JSON.stringify({
        'claude-opus-5-5': {
          input_cost_per_token: 4e-6,
          output_cost_per_token: 2e-5,
          provider_specific_entry: { fast: 2.5 },
        },
      }),
    );
    const j = reportJson([...RANGE, '--by', 'model', '--prices', file], env);
    expect(byModel(j)['claude-opus-5-5']).toMatchObject({ cost_source: 'computed', unpriced_requests: 0 });
    expect(byModel(j)['claude-opus-5-5'].cost_usd).toBeCloseTo(0.0051, 10);
  });

  it('keeps the speed, the searches and the iterations per row (tx-usage sql), never the advice text', () => {
    const r = runCli(
      [
        'sql',
        '--format',
        'json',
        'SELECT model, speed, web_search_requests, iteration, requests FROM usage ORDER BY ts, iteration NULLS FIRST, model',
      ],
      env,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { model: 'claude-opus-4-6', speed: 'fast', web_search_requests: null, iteration: null, requests: 1 },
      { model: 'claude-opus-4-6', speed: null, web_search_requests: null, iteration: null, requests: 1 },
      { model: 'claude-opus-4-8', speed: 'fast', web_search_requests: null, iteration: null, requests: 1 },
      { model: 'claude-opus-5-5', speed: 'fast', web_search_requests: null, iteration: null, requests: 1 },
      { model: 'claude-sonnet-4-5', speed: null, web_search_requests: null, iteration: 0, requests: 1 },
      { model: 'claude-opus-4-7', speed: null, web_search_requests: null, iteration: 1, requests: 1 },
      { model: 'claude-sonnet-4-5', speed: null, web_search_requests: null, iteration: 2, requests: 0 },
      { model: 'claude-sonnet-4-5', speed: null, web_search_requests: null, iteration: null, requests: 1 },
      { model: 'claude-sonnet-4-6', speed: null, web_search_requests: 3, iteration: null, requests: 1 },
    ]);
    const all = runCli(['sql', '--format', 'csv', 'SELECT * FROM usage'], env);
    expect(all.stdout).not.toContain(CANARY);
  });

  it('prices show names the fast-mode multiplier, or says there is none', () => {
    const known = runCli(['prices', 'show', 'claude-opus-4-6', '--at', '2026-05-04'], env);
    expect(known.stdout).toContain('fast mode (usage.speed "fast"): 6× every token rate');
    const none = runCli(['prices', 'show', 'claude-opus-5-5'], env);
    expect(none.stdout).toContain('fast mode (usage.speed "fast"): no price known');
    expect(known.stdout).toContain('web searches are billed per search');
  });
});

describe('Opus 4.6 fast mode around the end of its launch promotion (50% off until 11:59pm PT on 2026-02-16)', () => {
  // Opus 4.6's rates before 2026-03-13 (USD per MTok; over 200k total input the whole request at the tier).
  const BASE = { input: 5, cacheWrite5m: 6.25, cacheRead: 0.5, output: 25 };
  const TIER = { input: 10, cacheWrite5m: 12.5, cacheRead: 1, output: 37.5 };
  type U = { input: number; output: number; cacheRead?: number; cacheWrite5m?: number };
  /** USD of one response at `mult` × every token rate in force, from the rates above. */
  const usd = (u: U, mult: number): number => {
    const total = u.input + (u.cacheRead ?? 0) + (u.cacheWrite5m ?? 0);
    const r = total > 200000 ? TIER : BASE;
    return (
      (mult *
        (u.input * r.input +
          u.output * r.output +
          (u.cacheRead ?? 0) * r.cacheRead +
          (u.cacheWrite5m ?? 0) * r.cacheWrite5m)) /
      1e6
    );
  };
  // Before the end: a standard response, a long-context fast one and a fast one in the last millisecond at 3×
  // ($15 / $75 per MTok; $30 / $112.50 over 200k). After: the same fast ones at the regular 6×.
  const BEFORE = usd(PROMO_USAGE, 1) + usd(PROMO_LONG_USAGE, 3) + usd(PROMO_USAGE, 3);
  const AFTER = usd(PROMO_USAGE, 6) + usd(PROMO_LONG_USAGE, 6);
  const FEB = ['--since', '2026-02-01', '--until', '2026-02-28', '--by', 'project'];
  let ph: string;
  let penv: NodeJS.ProcessEnv;
  let db: string;
  beforeAll(() => {
    ph = tempDir('txu-fast-promo-');
    buildFastPromoHome(ph);
    penv = cleanEnv(ph);
    db = join(ph, 'store.duckdb');
  });
  const byProject = (j: any) => Object.fromEntries(j.rows.map((r: any) => [r.project, r]));

  it('prices fast responses up to the end at half the fast rate, from the end on at the full one', () => {
    expect(BEFORE).toBeCloseTo(0.995, 12); // 0.063125 + 3 × 0.2475 + 3 × 0.063125, worked by hand as well
    const p = byProject(reportJson([...FEB, '--db', db], penv));
    expect(p[PROMO_PROJECTS.before]).toMatchObject({ requests: 3, cost_source: 'computed', unpriced_requests: 0 });
    expect(p[PROMO_PROJECTS.after]).toMatchObject({ requests: 2, cost_source: 'computed', unpriced_requests: 0 });
    expect(p[PROMO_PROJECTS.before].cost_usd).toBeCloseTo(BEFORE, 10);
    expect(p[PROMO_PROJECTS.after].cost_usd).toBeCloseTo(AFTER, 10);
  });

  it('re-prices a store priced before the rule (fast responses of those days at 6×): the speed is kept per row', async () => {
    reportJson([...FEB, '--db', db], penv);
    const inst = await DuckDBInstance.create(db);
    const conn = await inst.connect();
    // What an earlier tx-usage left: the promotion's fast rows at twice their cost, and its own fingerprint.
    await conn.run(
      `UPDATE usage_rows SET computed_cost_e10 = computed_cost_e10 * 2 WHERE ts_ms < ${Date.parse(PROMO_END)} AND attr_id IN (SELECT attr_id FROM event_attrs WHERE speed = 'fast')`,
    );
    await conn.run("UPDATE meta SET value = 'pricing-3-era' WHERE key = 'pricing_fingerprint'");
    const stale = await conn.runAndReadAll('SELECT sum(computed_cost_e10)::DOUBLE / 1e10 AS c FROM usage_rows');
    expect((stale.getRowObjectsJson()[0] as any).c).toBeCloseTo(
      BEFORE + usd(PROMO_LONG_USAGE, 3) + usd(PROMO_USAGE, 3) + AFTER,
      10,
    );
    conn.closeSync();
    inst.closeSync();
    const p = byProject(reportJson([...FEB, '--db', db], penv));
    expect(p[PROMO_PROJECTS.before].cost_usd).toBeCloseTo(BEFORE, 10);
    expect(p[PROMO_PROJECTS.after].cost_usd).toBeCloseTo(AFTER, 10);
  });

  it('prices show names the promotion and its end', () => {
    const r = runCli(['prices', 'show', 'claude-opus-4-6', '--at', '2026-02-10'], penv);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('fast mode (usage.speed "fast"): 6× every token rate');
    expect(r.stdout).toContain('fast mode before 2026-02-17T08:00:00.000Z: 3× every token rate instead');
    expect(r.stdout).not.toContain('no price known');
    // A model with a fast price and no promotion: its multiplier alone.
    const o48 = runCli(['prices', 'show', 'claude-opus-4-8', '--at', '2026-02-10'], penv);
    expect(o48.stdout).toContain('fast mode (usage.speed "fast"): 2× every token rate');
    expect(o48.stdout).not.toContain('fast mode before');
    expect(o48.stdout).not.toContain('no price known');
  });
});

describe('a store of schema v10', () => {
  it('reads Claude Code transcripts again on migration, so fast mode is priced; a retained OpenCode zero becomes no recorded cost', async () => {
    const h = tempDir('txu-billing-v10-');
    const { ClaudeHome } = await import('../../fixtures/claude-code/build.js');
    const c = new ClaudeHome(join(h, '.claude'));
    const s = c.session({ cwd: BILLING_PROJECTS.fast });
    s.response({ ts: '2026-05-04T10:00:00.000Z', model: 'claude-opus-4-6', speed: 'fast', usage: OPUS_46_USAGE });
    const db = join(h, 'v10.duckdb');
    const inst = await DuckDBInstance.create(db);
    const conn = await inst.connect();
    for (const ddl of MIGRATIONS.slice(0, 10)) await conn.run(ddl);
    await conn.run("INSERT INTO meta VALUES ('schema_version', '10')");
    // What a v10 tx-usage left: the transcript read up to date (its stamp as it is now), its
    // response at standard rates; and an OpenCode response recorded at $0 from a database since gone.
    const st = stampOf({ harness: 'claude-code', key: s.file, path: s.file, kind: 'jsonl' })!;
    const size = statSync(s.file).size;
    await conn.run(
      `INSERT INTO sources VALUES ('${s.file}', 'claude-code', '${s.file}', 'jsonl', '${st.fingerprint}', ${size}, '${st.ino}', ${size}, 1, '{"lastCwd":"${BILLING_PROJECTS.fast}"}', 'x', 0, NULL)`,
    );
    await conn.run(
      `INSERT INTO event_attrs VALUES (1, '${s.file}', 'claude-code', '${s.sessionId}', '${BILLING_PROJECTS.fast}', 'claude-opus-4-6', 'anthropic', '${s.file}', NULL)`,
    );
    await conn.run(
      `INSERT INTO usage_rows VALUES (1, ${Date.parse('2026-05-04T10:00:00.000Z')}, 'msg:old', 0, 1, 1000, 10000, 500, 500, 0, 2000, 0, NULL, 631250000, 1, TRUE, NULL)`,
    );
    const gone = join(h, 'gone/opencode.db');
    await conn.run(
      `INSERT INTO sources VALUES ('${gone}', 'opencode', '${gone}', 'sqlite', '1:1:1', 1, '1:1', NULL, NULL, NULL, NULL, 0, NULL)`,
    );
    await conn.run(
      `INSERT INTO event_attrs VALUES (2, '${gone}', 'opencode', 'ses_gone', '/home/user/byok', 'claude-sonnet-4-6', 'anthropic', '${gone}', NULL)`,
    );
    // 1000 input, 500 output at $0 recorded; computed (v10) at 1000×3 + 500×15 = 10500 → $0.0105.
    await conn.run(
      `INSERT INTO usage_rows VALUES (2, ${Date.parse('2026-05-04T11:00:00.000Z')}, 'msg:oc', 0, 1, 1000, 0, 0, NULL, NULL, 500, 0, 0, 105000000, NULL, TRUE, NULL)`,
    );
    conn.closeSync();
    inst.closeSync();
    const r = runCli(['report', ...RANGE, '--by', 'harness', '--format', 'json', '--db', db], cleanEnv(h));
    expect(r.status, r.stderr).toBe(0);
    const rows = Object.fromEntries(JSON.parse(r.stdout).rows.map((x: any) => [x.harness, x]));
    expect(rows['claude-code']).toMatchObject({ requests: 1, cost_source: 'computed' });
    expect(rows['claude-code'].cost_usd).toBeCloseTo(OPUS_46_FAST, 10);
    expect(rows.opencode).toMatchObject({ requests: 1, recorded_cost_usd: null, cost_source: 'computed' });
    expect(rows.opencode.cost_usd).toBeCloseTo(0.0105, 10);
  });
});
