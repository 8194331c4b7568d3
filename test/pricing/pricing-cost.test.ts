// Exact per-response costs from the bundled @pydantic/genai-prices data.
//
// Every expected value below is worked out by hand from the price numbers in
// the bundled data (USD per million tokens, quoted in the comment above each
// case) — never by calling the code under test. The first test pins those
// numbers, so a data upgrade that changes them fails there, loudly, instead of
// as a mysterious mismatch further down.
import { beforeAll, describe, expect, it } from 'vitest';
import { waitForUpdate } from '@pydantic/genai-prices';
import type { Provider } from '@pydantic/genai-prices';
import type { PriceableUsage, Pricer } from '../../src/pricing/index.js';
import { loadPricer } from '../../src/pricing/index.js';
import { compilePrice, costUnits, costUnitsExact, type CompiledPrice } from '../../src/pricing/engine.js';
import { tempDir } from '../helpers/temp.js';

const zero = {
  input_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cache_write_5m_tokens: null,
  cache_write_1h_tokens: null,
  output_tokens: 0,
  reasoning_tokens: 0,
};
const usage = (u: Partial<PriceableUsage> & Pick<PriceableUsage, 'harness' | 'model'>): PriceableUsage => ({
  provider: null,
  ts: Date.parse('2026-01-10T12:00:00Z'),
  ...zero,
  ...u,
});

let pricer: Pricer;
let bundled: Provider[];

beforeAll(async () => {
  bundled = (await waitForUpdate())!;
  pricer = await loadPricer({ cacheDir: tempDir('txu-pricing-') });
});

describe('bundled price data (the numbers the hand computations use)', () => {
  const prices = (provider: string, model: string) =>
    bundled.find((p) => p.id === provider)!.models.find((m) => m.id === model)!.prices;
  it('still has the prices quoted in this file', () => {
    expect(prices('anthropic', 'claude-opus-5-5')).toMatchObject({
      input_mtok: 4,
      cache_write_mtok: 5,
      cache_read_mtok: 0.2,
      output_mtok: 20,
      cache_write_1h_mtok: 8,
    });
    expect(prices('anthropic', 'claude-haiku-4-5')).toMatchObject({
      input_mtok: 1,
      cache_write_mtok: 1.25,
      cache_read_mtok: 0.1,
      output_mtok: 5,
      cache_write_1h_mtok: 2,
    });
    expect(prices('anthropic', 'claude-sonnet-4-5')).toMatchObject({
      input_mtok: { base: 3, tiers: [{ start: 200000, price: 6 }] },
      cache_write_mtok: { base: 3.75, tiers: [{ start: 200000, price: 7.5 }] },
      cache_read_mtok: { base: 0.3, tiers: [{ start: 200000, price: 0.6 }] },
      output_mtok: { base: 15, tiers: [{ start: 200000, price: 22.5 }] },
    });
    const s46 = prices('anthropic', 'claude-sonnet-4-6') as { constraint?: unknown; prices: unknown }[];
    expect(s46[0]!.prices).toMatchObject({
      input_mtok: { base: 3, tiers: [{ start: 200000, price: 6 }] },
      output_mtok: { base: 15, tiers: [{ start: 200000, price: 22.5 }] },
    });
    expect(s46[1]).toMatchObject({
      constraint: { start_date: '2026-03-13' },
      prices: { input_mtok: 3, cache_read_mtok: 0.3, output_mtok: 15 },
    });
    expect(prices('openai', 'gpt-5')).toMatchObject({ input_mtok: 1.25, cache_read_mtok: 0.125, output_mtok: 10 });
    expect(prices('openai', 'gpt-5.4')).toMatchObject({
      input_mtok: { base: 2.5, tiers: [{ start: 271999, price: 5 }] },
      cache_read_mtok: { base: 0.25, tiers: [{ start: 271999, price: 0.5 }] },
    });
    const o3 = prices('openai', 'o3') as { constraint?: unknown; prices: unknown }[];
    expect(o3[0]!.prices).toMatchObject({ input_mtok: 10, cache_read_mtok: 0.5, output_mtok: 40 });
    expect(o3[1]).toMatchObject({
      constraint: { start_date: '2025-06-10' },
      prices: { input_mtok: 2, cache_read_mtok: 0.5, output_mtok: 8 },
    });
    expect(prices('openrouter', 'anthropic/claude-sonnet-4.5')).toMatchObject({
      input_mtok: { base: 3 },
      cache_write_mtok: { base: 3.75 },
      cache_read_mtok: { base: 0.3 },
      output_mtok: { base: 15 },
    });
    expect(prices('openrouter', 'anthropic/claude-sonnet-4.5')).not.toHaveProperty('cache_write_1h_mtok');
    expect(prices('perplexity', 'sonar')).toMatchObject({ input_mtok: 1, output_mtok: 1, requests_kcount: 12 });
    expect(prices('cursor', 'composer-2.5')).toMatchObject({ input_mtok: 0.5, cache_read_mtok: 0.2, output_mtok: 2.5 });
    const ds = prices('deepseek', 'deepseek-chat') as { constraint?: unknown; prices: unknown }[];
    expect(ds[0]!.prices).toMatchObject({ input_mtok: 0.135, output_mtok: 0.55 });
    expect(ds[1]).toMatchObject({
      constraint: { start_time: '00:30:00Z', end_time: '16:30:00Z' },
      prices: { input_mtok: 0.27, output_mtok: 1.1 },
    });
  });
});

describe('claude-code', () => {
  it('prices 5-minute and 1-hour cache writes separately when the split is recorded', () => {
    // claude-opus-5-5: in 4, cache read 0.2, 5m write 5, 1h write 8, out 20
    // 1200×4 + 50000×0.2 + 1000×5 + 2000×8 + 800×20 = 4800+10000+5000+16000+16000 = 51800 → $0.0518
    const u = usage({
      harness: 'claude-code',
      model: 'claude-opus-5-5',
      input_tokens: 1200,
      cache_read_tokens: 50000,
      cache_write_tokens: 3000,
      cache_write_5m_tokens: 1000,
      cache_write_1h_tokens: 2000,
      output_tokens: 800,
      reasoning_tokens: 300,
    });
    expect(pricer.cost(u)).toBe('0.0518');
    // Without a recorded split every write is a 5-minute write: 4800+10000+3000×5+16000 = 45800
    expect(pricer.cost({ ...u, cache_write_5m_tokens: null, cache_write_1h_tokens: null })).toBe('0.0458');
  });

  it('matches dated model ids to their model', () => {
    const u = usage({
      harness: 'claude-code',
      model: 'claude-opus-5-5-20260115',
      input_tokens: 1200,
      cache_read_tokens: 50000,
      cache_write_tokens: 3000,
      cache_write_5m_tokens: 1000,
      cache_write_1h_tokens: 2000,
      output_tokens: 800,
    });
    expect(pricer.cost(u)).toBe('0.0518');
  });

  it('bills the whole request at long-context rates once its total input exceeds 200k', () => {
    // claude-sonnet-4-5, total input 5000+190000+10000 = 205000 > 200000 → in 6, cr 0.6, cw 7.5, out 22.5
    // 5000×6 + 190000×0.6 + 10000×7.5 + 2000×22.5 = 30000+114000+75000+45000 = 264000 → $0.264
    const u = usage({
      harness: 'claude-code',
      model: 'claude-sonnet-4-5-20250929',
      input_tokens: 5000,
      cache_read_tokens: 190000,
      cache_write_tokens: 10000,
      output_tokens: 2000,
    });
    expect(pricer.cost(u)).toBe('0.264');
    // Exactly 200000 is not "over": base rates. 190000×0.3 + 10000×3.75 + 2000×15 = 57000+37500+30000 = 124500
    expect(pricer.cost({ ...u, input_tokens: 0 })).toBe('0.1245');
    // 200001: 1×6 + 114000 + 75000 + 45000 = 234006
    expect(pricer.cost({ ...u, input_tokens: 1 })).toBe('0.234006');
  });

  it('prices each response at its own date (price change on 2026-03-13)', () => {
    // claude-sonnet-4-6, total input 1000+250000 = 251000
    const u = usage({
      harness: 'claude-code',
      model: 'claude-sonnet-4-6',
      input_tokens: 1000,
      cache_read_tokens: 250000,
      output_tokens: 1000,
    });
    // before: long-context tier. 1000×6 + 250000×0.6 + 1000×22.5 = 6000+150000+22500 = 178500
    expect(pricer.cost({ ...u, ts: Date.parse('2026-03-12T23:59:59.999Z') })).toBe('0.1785');
    // from that UTC midnight on: flat. 1000×3 + 250000×0.3 + 1000×15 = 3000+75000+15000 = 93000
    expect(pricer.cost({ ...u, ts: Date.parse('2026-03-13T00:00:00Z') })).toBe('0.093');
    // and back again (the per-day memo must not leak between days)
    expect(pricer.cost({ ...u, ts: Date.parse('2026-03-01T08:00:00Z') })).toBe('0.1785');
  });

  it('is exact where floats are not', () => {
    // claude-haiku-4-5 cache read 0.1/M: 3 tokens = $0.0000003 (3 × 0.1 / 1e6 is 3.0000000000000004e-7 in floats)
    expect(pricer.cost(usage({ harness: 'claude-code', model: 'claude-haiku-4-5', cache_read_tokens: 3 }))).toBe(
      '0.0000003',
    );
    expect(pricer.cost(usage({ harness: 'claude-code', model: 'claude-haiku-4-5' }))).toBe('0');
  });
});

describe('codex', () => {
  it('prices gpt-5-codex as gpt-5 (input is uncached input; reasoning is inside output)', () => {
    // gpt-5: in 1.25, cache read 0.125, out 10. 10000×1.25 + 40000×0.125 + 3000×10 = 12500+5000+30000 = 47500
    const u = usage({
      harness: 'codex',
      model: 'gpt-5-codex',
      input_tokens: 10000,
      cache_read_tokens: 40000,
      output_tokens: 3000,
      reasoning_tokens: 1000,
    });
    expect(pricer.cost(u)).toBe('0.0475');
    expect(pricer.cost({ ...u, provider: 'openai' })).toBe('0.0475');
  });

  it('uses the tier threshold from the data (gpt-5.4: over 271999 total input)', () => {
    // 22000 + 250000 = 272000 > 271999 → in 5, cr 0.5, out 22.5: 110000+125000+22500 = 257500
    const u = usage({
      harness: 'codex',
      model: 'gpt-5.4',
      input_tokens: 22000,
      cache_read_tokens: 250000,
      output_tokens: 1000,
    });
    expect(pricer.cost(u)).toBe('0.2575');
    // 271999 total: base 2.5/0.25/15: 21999×2.5 + 250000×0.25 + 1000×15 = 54997.5+62500+15000 = 132497.5
    expect(pricer.cost({ ...u, input_tokens: 21999 })).toBe('0.1324975');
  });

  it('priority processing (billing_kind "priority"): the GPT-5 family at 2x; a model without a known priority price is null, never standard', () => {
    // gpt-5 standard 0.0475 (above) x 2 = 0.095
    const u = usage({
      harness: 'codex',
      model: 'gpt-5-codex',
      input_tokens: 10000,
      cache_read_tokens: 40000,
      output_tokens: 3000,
      reasoning_tokens: 1000,
    });
    expect(pricer.cost({ ...u, billing_kind: 'priority' })).toBe('0.095');
    // gpt-5.4 base (271999 total input): 0.1324975 x 2 = 0.264995
    const v = usage({
      harness: 'codex',
      model: 'gpt-5.4',
      input_tokens: 21999,
      cache_read_tokens: 250000,
      output_tokens: 1000,
    });
    expect(pricer.cost({ ...v, billing_kind: 'priority' })).toBe('0.264995');
    // Standard and other billing kinds are unchanged.
    expect(pricer.cost({ ...u, billing_kind: null })).toBe('0.0475');
    expect(pricer.cost({ ...u, billing_kind: 'Included' })).toBe('0.0475');
    // gpt-5-mini has a priority price that is not 2x and is not in the data; o3 none at all: unknown.
    expect(
      pricer.cost(usage({ harness: 'codex', model: 'gpt-5-mini', input_tokens: 1000, billing_kind: 'priority' })),
    ).toBeNull();
    expect(
      pricer.cost(usage({ harness: 'codex', model: 'o3', input_tokens: 1000, billing_kind: 'priority' })),
    ).toBeNull();
    expect(pricer.cost(usage({ harness: 'codex', model: 'o3', input_tokens: 1000 }))).not.toBeNull();
  });

  it('prices o3 before and after its 2025-06-10 price cut', () => {
    const u = usage({
      harness: 'codex',
      model: 'o3',
      input_tokens: 10000,
      cache_read_tokens: 20000,
      output_tokens: 5000,
      reasoning_tokens: 4000,
    });
    // 10000×10 + 20000×0.5 + 5000×40 = 310000
    expect(pricer.cost({ ...u, ts: Date.parse('2025-06-09T23:00:00Z') })).toBe('0.31');
    // 10000×2 + 20000×0.5 + 5000×8 = 70000
    expect(pricer.cost({ ...u, ts: Date.parse('2025-06-10T01:00:00Z') })).toBe('0.07');
  });
});

describe('opencode', () => {
  it('uses the recorded provider: openrouter ids keep OpenRouter prices (no 1h write price there)', () => {
    // openrouter anthropic/claude-sonnet-4.5: in 3, cr 0.3, cw 3.75, out 15; the 1h split cannot be priced separately
    // 2000×3 + 10000×0.3 + 4000×3.75 + 500×15 = 6000+3000+15000+7500 = 31500
    const u = usage({
      harness: 'opencode',
      provider: 'openrouter',
      model: 'anthropic/claude-sonnet-4.5',
      input_tokens: 2000,
      cache_read_tokens: 10000,
      cache_write_tokens: 4000,
      cache_write_1h_tokens: 1000,
      output_tokens: 500,
    });
    expect(pricer.cost(u)).toBe('0.0315');
  });

  it('falls back to the model name when the provider id is unknown to the price data', () => {
    // provider "opencode" (Zen) is not in the data; claude-opus-5-5 by name: 100×4 + 1000×20 = 20400
    const u = usage({
      harness: 'opencode',
      provider: 'opencode',
      model: 'claude-opus-5-5',
      input_tokens: 100,
      output_tokens: 1000,
    });
    expect(pricer.cost(u)).toBe('0.0204');
  });

  it('peels provider prefixes: anthropic/claude-haiku-4-5 and openrouter/anthropic/claude-sonnet-4.5', () => {
    // haiku: 300×1 + 2000×1.25 + 100×5 = 300+2500+500 = 3300
    expect(
      pricer.cost(
        usage({
          harness: 'opencode',
          provider: null,
          model: 'anthropic/claude-haiku-4-5',
          input_tokens: 300,
          cache_write_tokens: 2000,
          output_tokens: 100,
        }),
      ),
    ).toBe('0.0033');
    // as the openrouter case above: 31500 (no 1h split recorded here)
    expect(
      pricer.cost(
        usage({
          harness: 'opencode',
          provider: null,
          model: 'openrouter/anthropic/claude-sonnet-4.5',
          input_tokens: 2000,
          cache_read_tokens: 10000,
          cache_write_tokens: 4000,
          output_tokens: 500,
        }),
      ),
    ).toBe('0.0315');
  });

  it('prices a residual aggregate (requests 0) at base rates: tiers are per request', () => {
    // claude-sonnet-4-5, 150000 + 100000 = 250000 total input across unknown requests:
    // 150000×3 + 100000×0.3 + 1000×15 = 450000+30000+15000 = 495000 → 0.495
    const u = usage({
      harness: 'opencode',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      input_tokens: 150000,
      cache_read_tokens: 100000,
      output_tokens: 1000,
      requests: 0,
    });
    expect(pricer.cost(u)).toBe('0.495');
    // the same tokens as ONE request cross 200k: 150000×6 + 100000×0.6 + 1000×22.5 = 900000+60000+22500 = 982500
    expect(pricer.cost({ ...u, requests: 1 })).toBe('0.9825');
  });
});

describe('per-request prices', () => {
  it('charge one request per response, none for a residual', () => {
    // perplexity sonar: 1000×1 + 100×1 + 12 per 1000 requests (12000 per M) = 1000+100+12000 = 13100
    const u = usage({ harness: 'pi', provider: 'perplexity', model: 'sonar', input_tokens: 1000, output_tokens: 100 });
    expect(pricer.cost(u)).toBe('0.0131');
    expect(pricer.cost({ ...u, requests: 0 })).toBe('0.0011');
  });
});

describe('pi', () => {
  it('prices cacheWrite1h (recorded without a 5m count) at the 1-hour rate, the rest at the 5-minute rate', () => {
    // claude-haiku-4-5: 300×1 + (2000−1500)×1.25 + 1500×2 + 100×5 = 300+625+3000+500 = 4425
    const u = usage({
      harness: 'pi',
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      input_tokens: 300,
      cache_write_tokens: 2000,
      cache_write_1h_tokens: 1500,
      output_tokens: 100,
    });
    expect(pricer.cost(u)).toBe('0.004425');
  });

  it('matches provider ids case-insensitively', () => {
    const u = usage({
      harness: 'pi',
      provider: 'Anthropic',
      model: 'claude-haiku-4-5',
      input_tokens: 300,
      cache_write_tokens: 2000,
      cache_write_1h_tokens: 1500,
      output_tokens: 100,
    });
    expect(pricer.cost(u)).toBe('0.004425');
  });

  it('prices DeepSeek by time of day (peak 00:30–16:30 UTC)', () => {
    const u = usage({
      harness: 'pi',
      provider: 'deepseek',
      model: 'deepseek-chat',
      input_tokens: 10000,
      output_tokens: 1000,
    });
    // peak: 10000×0.27 + 1000×1.1 = 2700+1100 = 3800
    expect(pricer.cost({ ...u, ts: Date.parse('2026-01-10T10:00:00Z') })).toBe('0.0038');
    // off-peak, same day: 10000×0.135 + 1000×0.55 = 1350+550 = 1900
    expect(pricer.cost({ ...u, ts: Date.parse('2026-01-10T17:00:00Z') })).toBe('0.0019');
    expect(pricer.cost({ ...u, ts: Date.parse('2026-01-10T00:29:59Z') })).toBe('0.0019');
    expect(pricer.cost({ ...u, ts: Date.parse('2026-01-10T00:30:00Z') })).toBe('0.0038');
  });
});

describe('cursor-agent', () => {
  it('prices Cursor models under the cursor provider', () => {
    // composer-2.5: 1000×0.5 + 4000×0.2 + 200×2.5 = 500+800+500 = 1800
    expect(
      pricer.cost(
        usage({
          harness: 'cursor-agent',
          model: 'composer-2.5',
          input_tokens: 1000,
          cache_read_tokens: 4000,
          output_tokens: 200,
        }),
      ),
    ).toBe('0.0018');
  });
});

describe('unknown models', () => {
  it('cost null, never 0', () => {
    for (const h of ['claude-code', 'codex', 'cursor-agent', 'opencode', 'pi', 'gemini-cli', 'qwen-code'] as const) {
      expect(
        pricer.cost(usage({ harness: h, model: 'totally-unknown-model-x', input_tokens: 1000, output_tokens: 10 })),
      ).toBeNull();
    }
    expect(
      pricer.cost(usage({ harness: 'pi', provider: 'ollama', model: 'llama3.1:8b', input_tokens: 1000 })),
    ).toBeNull();
    expect(pricer.cost(usage({ harness: 'claude-code', model: null, input_tokens: 1000 }))).toBeNull();
    // Qwen OAuth's alias names no model: unknown under Qwen Code too (not priced as some qwen/ entry).
    expect(pricer.cost(usage({ harness: 'qwen-code', model: 'coder-model', input_tokens: 1000 }))).toBeNull();
    expect(pricer.describe('totally-unknown-model-x')).toBeNull();
  });
});

describe('describe', () => {
  it('names the matched provider/model and the prices in force at the given time', () => {
    const d = pricer.describe('claude-sonnet-4-6', null, Date.parse('2026-04-01T00:00:00Z')) as any;
    expect(d.source).toBe('genai-prices');
    expect(d.data).toMatch(/^bundled @pydantic\/genai-prices /);
    expect(d.matched).toMatchObject({ provider_id: 'anthropic', model_id: 'claude-sonnet-4-6' });
    expect(d.prices_usd_per_mtok).toMatchObject({
      input_mtok: '3',
      cache_read_mtok: '0.3',
      output_mtok: '15',
      cache_write_1h_mtok: '6',
    });
    expect(d.price_periods).toHaveLength(2);
    const before = pricer.describe('claude-sonnet-4-6', null, Date.parse('2026-03-01T00:00:00Z')) as any;
    expect(before.prices_usd_per_mtok.input_mtok).toEqual({ base: '3', tiers: [{ start: 200000, price: '6' }] });
    const pref = pricer.describe('anthropic/claude-haiku-4-5', 'opencode') as any;
    expect(pref.matched.looked_up_as).toMatchObject({ model: 'claude-haiku-4-5', provider: 'anthropic' });
  });
});

describe('fingerprint', () => {
  it('is stable for the same data', async () => {
    const again = await loadPricer({ cacheDir: tempDir('txu-pricing-') });
    expect(again.fingerprint).toBe(pricer.fingerprint);
    expect(pricer.fingerprint).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('the double-precision fast path', () => {
  // costUnits computes in doubles when every product and the sum are safe
  // integers, else by the leaves in BigInt (costUnitsExact). Both must give
  // the same units for every price set in the catalogue, whatever the usage:
  // tier edges, 5m/1h splits, residuals, and counts large enough to leave
  // the safe-integer range.
  it('equals the BigInt path for every bundled price set', () => {
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const counts = [
      0, 1, 7, 999, 128_000, 199_999, 200_000, 200_001, 271_999, 272_000, 1_000_003, 3_000_000_017, 9_007_199_254,
    ];
    const pick = () => (rnd(3) === 0 ? counts[rnd(counts.length)]! : rnd(400_000));
    let compared = 0;
    let fast = 0;
    const mismatches: string[] = [];
    for (const p of bundled) {
      for (const m of p.models) {
        const sets = Array.isArray(m.prices) ? m.prices.map((c) => c.prices) : [m.prices];
        for (const prices of sets) {
          let c: CompiledPrice;
          try {
            c = compilePrice(prices as Record<string, unknown>);
          } catch {
            continue; // not token-priced in a way the engine compiles
          }
          for (let i = 0; i < 40; i++) {
            const cw = pick();
            const split = rnd(4);
            const u = {
              input_tokens: pick(),
              cache_read_tokens: pick(),
              cache_write_tokens: cw,
              cache_write_5m_tokens: split === 1 || split === 3 ? rnd(cw + 2) : null,
              cache_write_1h_tokens: split === 2 || split === 3 ? rnd(cw + 2) : null,
              output_tokens: pick(),
              reasoning_tokens: pick(),
              requests: rnd(5) === 0 ? 0 : 1,
            };
            const got = costUnits(c, u);
            const want = costUnitsExact(c, u);
            compared++;
            if (c.smallCoefs && got === want) fast++;
            if (got !== want) mismatches.push(`${p.id}/${m.id} ${JSON.stringify(u)}: ${got} vs ${want}`);
          }
        }
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
    expect(fast).toBeGreaterThan(compared / 2);
  });
});
