// `--prices FILE`: LiteLLM-format overrides win over the bundled data for the
// models they name. Expected costs are computed by hand from the per-token
// numbers written into the override file below.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PriceableUsage } from '../../src/pricing/index.js';
import { loadPricer } from '../../src/pricing/index.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('txu-pricing-ovr-');
const cacheDir = join(dir, 'cache');

// Per token; ×1e6 gives the per-million numbers used in the comments.
const OVERRIDES = {
  sample_spec: {
    input_cost_per_token: 0.0,
    output_cost_per_token: 0.0,
    litellm_provider: 'one of https://docs.litellm.ai/docs/providers',
  },
  'claude-opus-5-5': {
    litellm_provider: 'anthropic',
    max_input_tokens: 1000000,
    input_cost_per_token: 6e-6, // 6
    output_cost_per_token: 3e-5, // 30
    cache_read_input_token_cost: 6e-7, // 0.6
    cache_creation_input_token_cost: 7.5e-6, // 7.5
    cache_creation_input_token_cost_above_1hr: 1.2e-5, // 12
    input_cost_per_token_above_200k_tokens: 1.2e-5, // 12
    output_cost_per_token_above_200k_tokens: 4.5e-5, // 45
    cache_read_input_token_cost_above_200k_tokens: 1.2e-6, // 1.2
    cache_creation_input_token_cost_above_200k_tokens: 1.5e-5, // 15
    cache_creation_input_token_cost_above_1hr_above_200k_tokens: 2.4e-5, // 24
  },
  'my-local-model': { input_cost_per_token: 1e-7, output_cost_per_token: 2e-7 }, // 0.1 / 0.2
  'openrouter/qwen/qwen3-coder': { input_cost_per_token: 2.2e-7, output_cost_per_token: 9.5e-7 }, // 0.22 / 0.95
  'dall-e-3': { mode: 'image_generation', input_cost_per_pixel: 1e-8 }, // no token prices: not an override
};
const file = join(dir, 'prices.json');
writeFileSync(file, JSON.stringify(OVERRIDES));

const u = (p: Partial<PriceableUsage>): PriceableUsage => ({
  harness: 'claude-code',
  model: 'claude-opus-5-5',
  provider: null,
  ts: Date.parse('2026-02-01T00:00:00Z'),
  input_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cache_write_5m_tokens: null,
  cache_write_1h_tokens: null,
  output_tokens: 0,
  reasoning_tokens: 0,
  ...p,
});

describe('LiteLLM override file', () => {
  it('wins over the bundled price for the model it names, with 1h writes priced separately', async () => {
    const p = await loadPricer({ cacheDir, pricesFile: file });
    // 1200×6 + 50000×0.6 + 1000×7.5 + 2000×12 + 800×30 = 7200+30000+7500+24000+24000 = 92700
    // (bundled claude-opus-5-5 would give 0.0518 for the same response)
    const resp = u({
      input_tokens: 1200,
      cache_read_tokens: 50000,
      cache_write_tokens: 3000,
      cache_write_5m_tokens: 1000,
      cache_write_1h_tokens: 2000,
      output_tokens: 800,
    });
    expect(p.cost(resp)).toBe('0.0927');
    // dated snapshot of the same model → the undated override entry
    expect(p.cost({ ...resp, model: 'claude-opus-5-5-20260301' })).toBe('0.0927');
    // provider-prefixed (Pi/OpenCode)
    expect(p.cost({ ...resp, harness: 'pi', provider: 'anthropic', model: 'claude-opus-5-5' })).toBe('0.0927');
  });

  it('applies its _above_200k_tokens variants to the whole request over 200k total input', async () => {
    const p = await loadPricer({ cacheDir, pricesFile: file });
    // total 10000+200000+2000 = 212000 > 200000: 10000×12 + 200000×1.2 + 2000×24 (all 1h) + 1000×45
    // = 120000+240000+48000+45000 = 453000
    expect(
      p.cost(
        u({
          input_tokens: 10000,
          cache_read_tokens: 200000,
          cache_write_tokens: 2000,
          cache_write_1h_tokens: 2000,
          output_tokens: 1000,
        }),
      ),
    ).toBe('0.453');
    // total exactly 200000: base rates. 0 + 198000×0.6 + 2000×12 + 1000×30 = 118800+24000+30000 = 172800
    expect(
      p.cost(
        u({
          input_tokens: 0,
          cache_read_tokens: 198000,
          cache_write_tokens: 2000,
          cache_write_1h_tokens: 2000,
          output_tokens: 1000,
        }),
      ),
    ).toBe('0.1728');
  });

  it('prices models the bundled data does not know, and provider-keyed entries', async () => {
    const p = await loadPricer({ cacheDir, pricesFile: file });
    // 1e6×0.1 + 5e5×0.2 = 100000+100000 = 200000
    expect(
      p.cost(
        u({
          harness: 'pi',
          provider: 'ollama',
          model: 'my-local-model',
          input_tokens: 1_000_000,
          output_tokens: 500_000,
        }),
      ),
    ).toBe('0.2');
    // OpenCode via openrouter: key "openrouter/qwen/qwen3-coder". 100000×0.22 + 20000×0.95 = 22000+19000 = 41000
    expect(
      p.cost(
        u({
          harness: 'opencode',
          provider: 'openrouter',
          model: 'qwen/qwen3-coder',
          input_tokens: 100000,
          output_tokens: 20000,
        }),
      ),
    ).toBe('0.041');
  });

  it('leaves models it does not name on the bundled data', async () => {
    const p = await loadPricer({ cacheDir, pricesFile: file });
    // bundled claude-haiku-4-5: 300×1 + 100×5 = 800
    expect(p.cost(u({ model: 'claude-haiku-4-5', input_tokens: 300, output_tokens: 100 }))).toBe('0.0008');
    // an entry without token prices (image model) is no override; sample_spec is not a model
    expect(p.cost(u({ model: 'sample_spec', input_tokens: 300 }))).toBeNull();
  });

  it('refuses a price that is not a number from 0 to $1 per token, naming the file, the entry and the field', async () => {
    const cases: [unknown, RegExp][] = [
      ['cheap', /is a string, not a number/],
      ['3e-6', /is a string, not a number/],
      [{}, /is an object, not a number/],
      [null, /is null, not a number/],
      [-1e-6, /is negative/],
      [15, /is 15 USD per token, more than 1 \(a price per million tokens in a per-token field\?\)/],
      [1e308, /more than 1/],
    ];
    for (const [value, why] of cases) {
      const bad = join(dir, 'bad-field.json');
      writeFileSync(
        bad,
        JSON.stringify({
          'my-local-model': { input_cost_per_token: 1e-7 },
          'bad-model': { output_cost_per_token: 1e-6, input_cost_per_token: value },
        }),
      );
      await expect(loadPricer({ cacheDir, pricesFile: bad }), JSON.stringify(value)).rejects.toThrow(
        /bad-field\.json: entry "bad-model": input_cost_per_token /,
      );
      await expect(loadPricer({ cacheDir, pricesFile: bad }), JSON.stringify(value)).rejects.toThrow(why);
    }
    const notObject = join(dir, 'not-object.json');
    writeFileSync(notObject, JSON.stringify({ 'bad-model': 3e-6 }));
    await expect(loadPricer({ cacheDir, pricesFile: notObject })).rejects.toThrow(
      /not-object\.json: entry "bad-model" is a number, not an object of prices/,
    );
  });

  it('shows which entry matched', async () => {
    const p = await loadPricer({ cacheDir, pricesFile: file });
    const d = p.describe('claude-opus-5-5-20260301') as any;
    expect(d.source).toBe('override');
    expect(d.matched).toEqual({ file, entry: 'claude-opus-5-5', as: 'claude-opus-5-5', near_match: false });
    expect(d.prices_usd_per_mtok.input_mtok).toEqual({ base: '6', tiers: [{ start: 200000, price: '12' }] });
    expect(d.prices_usd_per_mtok.cache_write_1h_mtok).toEqual({ base: '12', tiers: [{ start: 200000, price: '24' }] });
  });

  it('changes the fingerprint when the overrides change, not otherwise', async () => {
    const none = await loadPricer({ cacheDir });
    const a = await loadPricer({ cacheDir, pricesFile: file });
    const a2 = await loadPricer({ cacheDir, pricesFile: file });
    const other = join(dir, 'other.json');
    writeFileSync(
      other,
      JSON.stringify({ ...OVERRIDES, 'my-local-model': { input_cost_per_token: 2e-7, output_cost_per_token: 2e-7 } }),
    );
    const b = await loadPricer({ cacheDir, pricesFile: other });
    expect(a.fingerprint).toBe(a2.fingerprint);
    expect(new Set([none.fingerprint, a.fingerprint, b.fingerprint]).size).toBe(3);
    // 1e6×0.2 = 200000 + 0
    expect(b.cost(u({ model: 'my-local-model', input_tokens: 1_000_000 }))).toBe('0.2');
  });

  it('refuses a file it cannot use, with the file name in the message', async () => {
    await expect(loadPricer({ cacheDir, pricesFile: join(dir, 'missing.json') })).rejects.toThrow(
      /missing\.json: no such file or directory/,
    );
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"claude-opus-5-5": {');
    await expect(loadPricer({ cacheDir, pricesFile: bad })).rejects.toThrow(/bad\.json: not valid JSON/);
    const arr = join(dir, 'arr.json');
    writeFileSync(arr, '[]');
    await expect(loadPricer({ cacheDir, pricesFile: arr })).rejects.toThrow(/arr\.json: expected an object/);
  });
});
