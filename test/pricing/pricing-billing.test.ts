// The price engine's rules for what a response is billed at beyond its
// tokens (issue 34): fast mode, web searches, sampling iterations. Expected
// values are worked out by hand from the bundled data (quoted beside each).
import { beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PriceableUsage, Pricer } from '../../src/pricing/index.js';
import { loadPricer } from '../../src/pricing/index.js';
import { cachedCost, parseWithBigInt, stringifyWithBigInt, type PriceCache } from '../../src/pricing/cache.js';
import { tempDir } from '../helpers/temp.js';

const usage = (u: Partial<PriceableUsage>): PriceableUsage => ({
  harness: 'claude-code',
  model: 'claude-opus-4-6',
  provider: null,
  ts: Date.parse('2026-02-20T12:00:00Z'),
  input_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cache_write_5m_tokens: null,
  cache_write_1h_tokens: null,
  output_tokens: 0,
  reasoning_tokens: 0,
  ...u,
});

let pricer: Pricer;
beforeAll(async () => {
  pricer = await loadPricer({ cacheDir: tempDir('txu-pricing-billing-') });
});

describe('fast mode', () => {
  it('is the model rates in force times its multiplier, the long-context tier included (Opus 4.6 before 2026-03-13)', () => {
    // claude-opus-4-6 before 2026-03-13: in 5 → 10 and out 25 → 37.5 over 200k input; fast 6×:
    // ≤ 200k: 1000×30 + 1000×150 = 180000 → $0.18 (Anthropic: "$30 / $150 per MTok")
    expect(pricer.cost(usage({ speed: 'fast', input_tokens: 1000, output_tokens: 1000 }))).toBe('0.18');
    // > 200k: 210000×60 + 1000×225 = 12600000+225000 → $12.825 (Anthropic: "$60 / $225 per MTok")
    expect(pricer.cost(usage({ speed: 'fast', input_tokens: 210000, output_tokens: 1000 }))).toBe('12.825');
    // standard speed, and "standard" said outright: 210000×10 + 1000×37.5 = 2137500 → $2.1375
    expect(pricer.cost(usage({ input_tokens: 210000, output_tokens: 1000 }))).toBe('2.1375');
    expect(pricer.cost(usage({ speed: 'standard', input_tokens: 210000, output_tokens: 1000 }))).toBe('2.1375');
  });

  it('has no cost for a speed it does not know, nor for a model without a fast-mode price', () => {
    expect(pricer.cost(usage({ speed: 'priority', input_tokens: 10, output_tokens: 10 }))).toBeNull();
    expect(
      pricer.cost(usage({ model: 'claude-sonnet-4-6', speed: 'fast', input_tokens: 10, output_tokens: 10 })),
    ).toBeNull();
    expect(pricer.cost(usage({ model: 'claude-sonnet-4-6', input_tokens: 10, output_tokens: 10 }))).not.toBeNull();
  });

  it('takes an override file multiplier (provider_specific_entry.fast), and warns about a bad one', async () => {
    const dir = tempDir('txu-fast-override-');
    const file = join(dir, 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({
        'claude-opus-4-6': {
          input_cost_per_token: 5e-6,
          output_cost_per_token: 2.5e-5,
          cache_read_input_token_cost: 5e-7,
          provider_specific_entry: { fast: 6 },
        },
        'claude-opus-4-8': {
          input_cost_per_token: 5e-6,
          output_cost_per_token: 2.5e-5,
          provider_specific_entry: { fast: 'quick' },
        },
      }),
    );
    const p = await loadPricer({ cacheDir: dir, pricesFile: file });
    // 6 × (100×5 + 10×25 + 1000×0.5) = 6 × 1250 = 7500 → $0.0075
    expect(p.cost(usage({ speed: 'fast', input_tokens: 100, output_tokens: 10, cache_read_tokens: 1000 }))).toBe(
      '0.0075',
    );
    // An override that states no usable fast price: fast responses are unpriced (not filled from our table).
    expect(p.cost(usage({ model: 'claude-opus-4-8', speed: 'fast', input_tokens: 100 }))).toBeNull();
    expect(p.warnings).toContain(
      `${file}: "claude-opus-4-8".provider_specific_entry.fast is not a non-negative number; ignored`,
    );
  });
});

describe('fast mode launch promotion (Opus 4.6, 50% off until 11:59pm PT on 2026-02-16: fast-mode.ts)', () => {
  const END = Date.parse('2026-02-17T08:00:00Z'); // 2026-02-16T23:59:59.999-08:00 is its last millisecond
  // claude-opus-4-6 before 2026-03-13 (USD per MTok), base and over 200k total input.
  const BASE = { input: 5, cache_write: 6.25, cache_read: 0.5, output: 25 };
  const TIER = { input: 10, cache_write: 12.5, cache_read: 1, output: 37.5 };
  const small = { input_tokens: 1000, output_tokens: 2000, cache_read_tokens: 10000, cache_write_tokens: 500 };
  const long = { input_tokens: 210000, output_tokens: 1000 };
  /** USD of `u` at `m` × every token rate in force, from the rates above. */
  const usd = (
    u: { input_tokens: number; output_tokens: number; cache_read_tokens?: number; cache_write_tokens?: number },
    m: number,
  ): number => {
    const cr = u.cache_read_tokens ?? 0;
    const cw = u.cache_write_tokens ?? 0;
    const r = u.input_tokens + cr + cw > 200000 ? TIER : BASE;
    return (m * (u.input_tokens * r.input + u.output_tokens * r.output + cr * r.cache_read + cw * r.cache_write)) / 1e6;
  };
  const cost = (u: Partial<PriceableUsage>): number => Number(pricer.cost(usage(u)));

  it('is half the fast price (3× every rate) up to the end, 6× from the end on', () => {
    for (const ts of [Date.parse('2026-02-07T18:00:00Z'), END - 1]) {
      expect(cost({ ts, speed: 'fast', ...small })).toBeCloseTo(usd(small, 3), 12);
      // Over 200k: $30 / $112.50 per MTok (half of $60 / $225).
      expect(cost({ ts, speed: 'fast', ...long })).toBeCloseTo(usd(long, 3), 12);
    }
    for (const ts of [END, END + 60_000, Date.parse('2026-02-20T12:00:00Z')]) {
      expect(cost({ ts, speed: 'fast', ...small })).toBeCloseTo(usd(small, 6), 12);
      expect(cost({ ts, speed: 'fast', ...long })).toBeCloseTo(usd(long, 6), 12);
    }
    // Worked by hand: 1000×15 + 2000×75 + 10000×1.5 + 500×18.75 = 189375 → $0.189375; 210000×30 + 1000×112.5 → $6.4125.
    expect(pricer.cost(usage({ ts: END - 1, speed: 'fast', ...small }))).toBe('0.189375');
    expect(pricer.cost(usage({ ts: END - 1, speed: 'fast', ...long }))).toBe('6.4125');
  });

  it('leaves standard speed, other models and an override file multiplier as they are', async () => {
    expect(cost({ ts: END - 1, ...small })).toBeCloseTo(usd(small, 1), 12);
    // Opus 4.8 fast (2×, in 5, out 25): no promotion of its own.
    const u = { model: 'claude-opus-4-8', speed: 'fast', input_tokens: 100, output_tokens: 200 };
    expect(pricer.cost(usage({ ...u, ts: END - 1 }))).toBe(pricer.cost(usage({ ...u, ts: END })));
    expect(pricer.cost(usage({ ...u, ts: END - 1 }))).toBe('0.011'); // 2 × (100×5 + 200×25) = 11000
    // An override states its own fast price: 6 × (1000×5 + 1000×25) = 180000 → $0.18, promotion or not.
    const dir = tempDir('txu-fast-promo-override-');
    const file = join(dir, 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({
        'claude-opus-4-6': {
          input_cost_per_token: 5e-6,
          output_cost_per_token: 2.5e-5,
          provider_specific_entry: { fast: 6 },
        },
      }),
    );
    const p = await loadPricer({ cacheDir: dir, pricesFile: file });
    expect(p.cost(usage({ ts: END - 1, speed: 'fast', input_tokens: 1000, output_tokens: 1000 }))).toBe('0.18');
  });
});

describe('web searches', () => {
  it('are a fee per search (web_searches_kcount: $10 per 1000), on top of the tokens', () => {
    // claude-sonnet-4-6 from 2026-03-13: 100×3 + 200×15 = 3300 → $0.0033; + 3 × $0.01
    const u = usage({
      model: 'claude-sonnet-4-6',
      ts: Date.parse('2026-10-07T10:00:00Z'),
      input_tokens: 100,
      output_tokens: 200,
    });
    expect(pricer.cost({ ...u, web_search_requests: 3 })).toBe('0.0333');
    expect(pricer.cost({ ...u, web_search_requests: null })).toBe('0.0033');
    // Not multiplied in fast mode: Opus 4.8 fast (2×): 2 × (100×5 + 200×25) = 11000 → $0.011, + 2 × $0.01
    expect(pricer.cost({ ...u, model: 'claude-opus-4-8', speed: 'fast', web_search_requests: 2 })).toBe('0.031');
  });
});

describe('sampling iterations and residual aggregates', () => {
  // claude-sonnet-4-5, always tiered at 200k: in 3 → 6, cache read 0.3 → 0.6, out 15 → 22.5.
  const big = usage({ model: 'claude-sonnet-4-5', input_tokens: 1000, cache_read_tokens: 250000, output_tokens: 100 });
  it('prices a later iteration of a response (requests 0) as a request of its own input: tier, no residual base rate', () => {
    // 1000×6 + 250000×0.6 + 100×22.5 = 6000+150000+2250 = 158250 → $0.15825
    expect(pricer.cost({ ...big, requests: 0, iteration: 2 })).toBe('0.15825');
    expect(pricer.cost({ ...big, requests: 1, iteration: 0 })).toBe('0.15825');
  });
  it('still prices a residual aggregate (requests 0, no iteration) at base rates', () => {
    // 1000×3 + 250000×0.3 + 100×15 = 3000+75000+1500 = 79500 → $0.0795
    expect(pricer.cost({ ...big, requests: 0 })).toBe('0.0795');
  });
});

it('prices from the exported cache (the status line) exactly as the pricer does', () => {
  const cases = [
    usage({ speed: 'fast', input_tokens: 210000, output_tokens: 1000 }),
    usage({
      model: 'claude-sonnet-4-6',
      ts: Date.parse('2026-10-07T10:00:00Z'),
      input_tokens: 100,
      output_tokens: 200,
      web_search_requests: 3,
    }),
    usage({ model: 'claude-sonnet-4-5', input_tokens: 1000, cache_read_tokens: 250000, requests: 0, iteration: 2 }),
    usage({ model: 'claude-sonnet-4-6', speed: 'fast', input_tokens: 10 }),
    // Either side of the fast-mode promotion's end, in one UTC-day bucket of the memo and the cache,
    // the later one priced first: the bucket's prices must not be the first response's fast price.
    usage({ ts: Date.parse('2026-02-17T08:00:00Z'), speed: 'fast', input_tokens: 1000, output_tokens: 1000 }),
    usage({ ts: Date.parse('2026-02-17T07:59:59.999Z'), speed: 'fast', input_tokens: 1000, output_tokens: 1000 }),
  ];
  for (const c of cases) pricer.costE10(c);
  const cache = parseWithBigInt(stringifyWithBigInt(pricer.exportCache())) as PriceCache;
  for (const c of cases) expect(cachedCost(cache, c)).toBe(pricer.costE10(c));
  // 6× and 3× of 1000×5 + 1000×25 = 30000 → $0.18 and $0.09, in 1e-10 USD.
  expect(cachedCost(cache, cases[4]!)).toBe(1_800_000_000n);
  expect(cachedCost(cache, cases[5]!)).toBe(900_000_000n);
});
