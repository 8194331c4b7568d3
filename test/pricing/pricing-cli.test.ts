// Pricing through the real CLI: computed costs in the report, an unknown model
// named in warnings (cost null, totals "partial": the priced part), and stored rows re-priced when
// `--prices` changes — without re-reading the transcripts.
// Expected costs are hand-computed from the bundled data (see
// test/pricing-cost.test.ts for the price numbers, pinned there).
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitForUpdate } from '@pydantic/genai-prices';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { CLI, cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

let home = '';
let env: NodeJS.ProcessEnv;
const RANGE = ['--since', '2026-03-01', '--until', '2026-10-31', '--by', 'model', '--tz', 'UTC'];
let overrides = '';

beforeAll(() => {
  home = tempDir('txu-pricing-cli-');
  const claude = new ClaudeHome(join(home, '.claude'));
  const s = claude.session({ cwd: '/home/u/p' });
  // claude-opus-5-5: 1200×4 + 50000×0.2 + 1000×5 + 2000×8 + 800×20 = 51800 → 0.0518
  s.response({
    ts: '2026-10-20T10:00:00.000Z',
    model: 'claude-opus-5-5',
    usage: { input: 1200, output: 800, cacheRead: 50000, cacheWrite5m: 1000, cacheWrite1h: 2000, thinking: 100 },
  });
  // claude-sonnet-4-6 with 251000 total input, the day before its long-context surcharge ended:
  // 1000×6 + 250000×0.6 + 1000×22.5 = 178500 → 0.1785
  s.response({
    ts: '2026-03-12T12:00:00.000Z',
    model: 'claude-sonnet-4-6',
    usage: { input: 1000, output: 1000, cacheRead: 250000 },
  });
  // … and the day after: 1000×3 + 250000×0.3 + 1000×15 = 93000 → 0.093
  s.response({
    ts: '2026-03-14T12:00:00.000Z',
    model: 'claude-sonnet-4-6',
    usage: { input: 1000, output: 1000, cacheRead: 250000 },
  });
  // Not in the price data.
  s.response({ ts: '2026-10-21T10:00:00.000Z', model: 'claude-mystery-9', usage: { input: 100, output: 50 } });
  env = cleanEnv(home);
  overrides = join(home, 'prices.json');
  // mystery: 100×1 + 50×2 = 200 → 0.0002; opus-5-5 at double input price: 1200×8 + 10000+5000+16000+16000 = 56600 → 0.0566
  writeFileSync(
    overrides,
    JSON.stringify({
      'claude-mystery-9': { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 },
      'claude-opus-5-5': {
        input_cost_per_token: 8e-6,
        output_cost_per_token: 2e-5,
        cache_read_input_token_cost: 2e-7,
        cache_creation_input_token_cost: 5e-6,
        cache_creation_input_token_cost_above_1hr: 8e-6,
      },
    }),
  );
});

const byModel = (r: any) => Object.fromEntries(r.rows.map((x: any) => [x.model, x]));

describe('report with computed costs', () => {
  it('prices each response at its own date, nulls and names the unknown model, and says "partial"', () => {
    const r = reportJson(RANGE, env);
    const m = byModel(r);
    expect(m['claude-opus-5-5']).toMatchObject({
      computed_cost_usd: 0.0518,
      cost_usd: 0.0518,
      recorded_cost_usd: null,
      cost_source: 'computed',
    });
    expect(m['claude-sonnet-4-6']).toMatchObject({
      computed_cost_usd: 0.2715,
      cost_usd: 0.2715,
      cost_source: 'computed',
    });
    expect(m['claude-mystery-9']).toMatchObject({
      computed_cost_usd: null,
      cost_usd: null,
      cost_source: 'none',
      unpriced_requests: 1,
      unpriced_tokens: 150,
    });
    expect(m['claude-opus-5-5']).toMatchObject({ unpriced_requests: 0, unpriced_tokens: 0 });
    // 0.0518 + 0.2715 = 0.3233, summed exactly in the store: the priced part, 1 response of 150 tokens left out
    expect(r.totals).toMatchObject({
      cost_usd: 0.3233,
      computed_cost_usd: 0.3233,
      cost_source: 'partial',
      unpriced_requests: 1,
      unpriced_tokens: 150,
    });
    expect(r.warnings).toContain(
      'no price for model "claude-mystery-9" (claude-code): 1 response, 150 tokens have no computed cost (unknown, not $0); price it with --prices FILE (LiteLLM format)',
    );
  });

  it('re-prices stored rows when --prices changes, and back when it is dropped', () => {
    const withOverrides = reportJson([...RANGE, '--prices', overrides], env);
    const m = byModel(withOverrides);
    expect(m['claude-mystery-9']).toMatchObject({ computed_cost_usd: 0.0002, cost_source: 'computed' });
    expect(m['claude-opus-5-5']).toMatchObject({ computed_cost_usd: 0.0566 });
    expect(m['claude-sonnet-4-6']).toMatchObject({ computed_cost_usd: 0.2715 });
    // 0.0566 + 0.2715 + 0.0002
    expect(withOverrides.totals).toMatchObject({ cost_usd: 0.3283, cost_source: 'computed' });
    expect(withOverrides.warnings.filter((w: string) => w.includes('no price'))).toEqual([]);

    const back = reportJson(RANGE, env);
    expect(back.totals).toMatchObject({ cost_usd: 0.3233, cost_source: 'partial' });
    expect(byModel(back)['claude-mystery-9'].computed_cost_usd).toBeNull();
  });

  it('--cost recorded uses no computed prices and warns about none', () => {
    const r = reportJson([...RANGE, '--cost', 'recorded'], env);
    expect(r.totals).toMatchObject({ cost_usd: null, cost_source: 'none', computed_cost_usd: 0.3233 });
    expect(r.warnings.filter((w: string) => w.includes('no price'))).toEqual([]);
  });

  it('takes the prices file from the config file when --prices is not given (relative to the config)', () => {
    const cfgHome = join(home, 'cfg');
    mkdirSync(join(cfgHome, 'tx-usage'), { recursive: true });
    writeFileSync(join(cfgHome, 'tx-usage', 'config.json'), JSON.stringify({ prices: '../../prices.json' }));
    const r = reportJson(RANGE, { ...env, XDG_CONFIG_HOME: cfgHome });
    expect(byModel(r)['claude-mystery-9']).toMatchObject({ computed_cost_usd: 0.0002 });
    expect(r.totals).toMatchObject({ cost_usd: 0.3283, cost_source: 'computed' });
    // and without the config again: bundled prices
    expect(reportJson(RANGE, env).totals).toMatchObject({ cost_usd: 0.3233, cost_source: 'partial' });
  });

  it('refuses an unreadable --prices file with a clear message', () => {
    const res = runCli(['report', ...RANGE, '--format', 'json', '--prices', join(home, 'nope.json')], env);
    expect(res.status).toBe(2);
    expect(res.stderr).toBe(`tx-usage: --prices ${join(home, 'nope.json')}: no such file or directory\n`);
  });
});

describe('prices commands', () => {
  it('prices show: matched entry and prices in force at --at, text and JSON', () => {
    const text = runCli(['prices', 'show', 'claude-sonnet-4-6', '--at', '2026-03-01'], env);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain('matched: anthropic / claude-sonnet-4-6');
    expect(text.stdout).toMatch(/input_mtok +3; over 200000 input tokens: 6/);
    expect(text.stdout).toContain('from 2026-03-13:');
    const json = JSON.parse(
      runCli(
        ['prices', 'show', 'qwen/qwen3-coder', '--provider', 'openrouter', '--prices', overrides, '--format', 'json'],
        env,
      ).stdout || 'null',
    );
    // not named by the overrides file → the bundled OpenRouter entry
    expect(json).toMatchObject({
      source: 'genai-prices',
      overrides_file: overrides,
      matched: { provider_id: 'openrouter', model_id: 'qwen/qwen3-coder' },
    });
    const ovr = JSON.parse(
      runCli(['prices', 'show', 'claude-mystery-9', '--prices', overrides, '--format', 'json'], env).stdout,
    );
    expect(ovr).toMatchObject({
      source: 'override',
      matched: { file: overrides, entry: 'claude-mystery-9' },
      prices_usd_per_mtok: { input_mtok: '1', output_mtok: '2' },
    });
  });

  it("prices show: a near match says so, in the words of the report's warning, in text and JSON (matched.near_match)", () => {
    const text = runCli(['prices', 'show', 'claude-sonnet-5-5'], env);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain('  matched: anthropic / claude-sonnet-5 ');
    expect(text.stdout).toContain(
      '  near match: "claude-sonnet-5-5" has no price entry of its own: it is priced as "claude-sonnet-5" (anthropic, the nearest entry);',
    );
    const near = JSON.parse(runCli(['prices', 'show', 'claude-sonnet-5-5', '--format', 'json'], env).stdout);
    expect(near.matched).toMatchObject({ model_id: 'claude-sonnet-5', near_match: true });
    // A name that is the entry's own (dated, here) is no near match: nothing said.
    const own = runCli(['prices', 'show', 'claude-sonnet-4-5-20250929'], env);
    expect(own.stdout).toContain('matched: anthropic / claude-sonnet-4-5');
    expect(own.stdout).not.toContain('near match');
    expect(
      JSON.parse(runCli(['prices', 'show', 'claude-sonnet-4-5-20250929', '--format', 'json'], env).stdout).matched
        .near_match,
    ).toBe(false);
    const ovr = JSON.parse(
      runCli(['prices', 'show', 'claude-mystery-9', '--prices', overrides, '--format', 'json'], env).stdout,
    );
    expect(ovr.matched.near_match).toBe(false);
  });

  it("prices show: an unknown model is the user's input: one line on stderr, exit 2, in text and JSON", () => {
    for (const format of ['text', 'json']) {
      const r = runCli(['prices', 'show', 'claude-mystery-9', '--format', format], env);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^tx-usage: prices show "claude-mystery-9": no price found .*\n$/);
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    }
  });

  it('prices update: offline keeps the bundled data; a stored update re-prices the store', async () => {
    const offline = runCli(['prices', 'update'], { ...env, TX_USAGE_PRICES_URL: 'http://127.0.0.1:9/data.json' });
    expect(offline.status).toBe(1);
    expect(offline.stderr).toMatch(/could not download price data .*keeping the bundled price data/);

    // Newer data: claude-opus-5-5 input 4 → 40 per M. opus response: 1200×40 + 10000+5000+16000+16000 = 95000 → 0.095
    const data = JSON.parse(JSON.stringify(await waitForUpdate()));
    data.find((p: any) => p.id === 'anthropic').models.find((m: any) => m.id === 'claude-opus-5-5').prices.input_mtok =
      40;
    const body = JSON.stringify(data);
    const server = createServer((_req, res) => res.end(body));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/data.json`;
      // spawnSync would block the server in this process: run the CLI asynchronously.
      const out = await new Promise<{ status: number | null; stdout: string }>((ok) => {
        const c = spawn(process.execPath, [CLI, 'prices', 'update'], { env: { ...env, TX_USAGE_PRICES_URL: url } });
        let stdout = '';
        c.stdout.on('data', (b) => (stdout += b));
        c.on('close', (status) => ok({ status, stdout }));
      });
      expect(out.status).toBe(0);
      expect(out.stdout).toMatch(/price data updated from/);
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
    }
    const r = reportJson(RANGE, env);
    expect(byModel(r)['claude-opus-5-5']).toMatchObject({ computed_cost_usd: 0.095 });
    // 0.095 + 0.2715
    expect(r.totals).toMatchObject({ cost_usd: 0.3665, cost_source: 'partial' });
    expect(runCli(['prices', 'show', 'claude-opus-5-5'], env).stdout).toMatch(
      /data: .*genai-prices-data\.json \(downloaded /,
    );
  });
});
