// Share of cost by token kind, recovered from per-response costs only
// (queries/monthly_costfit.sql + src/report/costshares.ts). Responses are
// priced here at known per-token rates; the expected shares are computed
// from those rates and the token counts, never from the fit.
import { afterEach, describe, expect, it } from 'vitest';
import { costSharesByMonth, fitRates, momentsOf, type CostShares } from '../../src/report/costshares.js';
import { loadTemplate, runTemplate } from '../../src/report/template.js';
import type { Store } from '../../src/store/store.js';
import { ALL_HARNESSES, memoryStore, type TestEvent } from '../helpers/report-store.js';

/** Rates in 1e-10 USD per token. */
interface Rates {
  input: number;
  cache_read: number;
  cache_write: number;
  cache_write_1h: number;
  output: number;
}
const OPUS: Rates = { input: 50000, cache_read: 5000, cache_write: 62500, cache_write_1h: 100000, output: 250000 };
const GPT: Rates = { input: 12500, cache_read: 1250, cache_write: 0, cache_write_1h: 0, output: 100000 };

function rng(seed: number) {
  let a = seed >>> 0;
  return (n: number) => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return Math.floor((a / 2 ** 32) * n);
  };
}

interface Priced extends TestEvent {
  parts: { input: number; cache_read: number; cache_write: number; output: number };
}

/** A response priced exactly at `r` (and its cost split, for the expectation). */
function priced(r: Rates, e: TestEvent, mult = 1): Priced {
  const w1h = e.cache_write_1h ?? 0;
  const parts = {
    input: (e.input ?? 0) * r.input * mult,
    cache_read: (e.cache_read ?? 0) * r.cache_read * mult,
    cache_write: ((e.cache_write ?? 0) - w1h) * r.cache_write * mult + w1h * r.cache_write_1h * mult,
    output: (e.output ?? 0) * r.output * mult,
  };
  const cost = parts.input + parts.cache_read + parts.cache_write + parts.output;
  return { ...e, computed_e10: cost, parts };
}

let n = 0;
function claudeResponse(rand: (n: number) => number, ts: string, model = 'opus', rates = OPUS): Priced {
  const cw = rand(5000);
  return priced(rates, {
    harness: 'claude-code',
    session: `s${rand(4)}`,
    project: '/p',
    model,
    ts,
    key: `c${n++}`,
    input: 1 + rand(300),
    cache_read: rand(90000),
    cache_write: cw,
    cache_write_1h: rand(2) ? rand(cw + 1) : 0,
    output: 1 + rand(3000),
  });
}
function gptResponse(rand: (n: number) => number, ts: string): Priced {
  const e = priced(GPT, {
    harness: 'opencode',
    session: `o${rand(3)}`,
    project: '/p',
    model: 'gpt-5',
    provider: 'openai',
    ts,
    key: `o${n++}`,
    input: 1 + rand(4000),
    cache_read: rand(50000),
    output: 1 + rand(2000),
  });
  // OpenCode records its own cost: the recorded column is the one used.
  return { ...e, recorded_e10: e.computed_e10, computed_e10: null };
}

function expectedShares(list: Priced[]): Omit<CostShares, 'exact' | 'priced_cost_usd'> & { total: number } {
  const sum = (k: keyof Priced['parts']) => list.reduce((s, e) => s + e.parts[k], 0);
  const total = list.reduce((s, e) => s + (e.recorded_e10 ?? e.computed_e10 ?? 0), 0);
  const p = {
    input: sum('input'),
    cache_read: sum('cache_read'),
    cache_write: sum('cache_write'),
    output: sum('output'),
  };
  return {
    total,
    input_usd: p.input / 1e10,
    cache_read_usd: p.cache_read / 1e10,
    cache_write_usd: p.cache_write / 1e10,
    output_usd: p.output / 1e10,
    unattributed_usd: 0,
    input_share: p.input / total,
    cache_read_share: p.cache_read / total,
    cache_write_share: p.cache_write / total,
    output_share: p.output / total,
    unattributed_share: 0,
  };
}

function expectClose(got: CostShares | undefined, want: ReturnType<typeof expectedShares>, exact: boolean) {
  expect(got).toBeDefined();
  expect(got!.exact).toBe(exact);
  expect(got!.priced_cost_usd).toBe(want.total / 1e10);
  for (const k of [
    'input_share',
    'cache_read_share',
    'cache_write_share',
    'output_share',
    'unattributed_share',
  ] as const) {
    expect(got![k], k).toBeCloseTo(want[k], 5);
  }
  for (const k of ['input_usd', 'cache_read_usd', 'cache_write_usd', 'output_usd', 'unattributed_usd'] as const) {
    expect(got![k], k).toBeCloseTo(want[k], 5);
  }
}

const values = {
  since: '2026-01-01',
  until: '2026-03-31',
  tz: 'UTC',
  harnesses: ALL_HARNESSES,
  project: '',
  models: [],
  cost_mode: 'auto',
};

async function sharesOf(events: TestEvent[]): Promise<Map<string, CostShares>> {
  store = await memoryStore(events);
  const rows = await runTemplate(store.conn, loadTemplate('monthly_costfit'), values);
  return costSharesByMonth(
    rows.map((r) => ({
      month: r.month as string,
      group: `${r.harness}|${r.provider}|${r.model}`,
      cost_e10: r.cost_e10 as string,
      moments: momentsOf(r),
    })),
  );
}

let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
});

describe('cost shares', () => {
  it('recovers the exact split of two models billed at different rates (recorded and computed costs)', async () => {
    const rand = rng(7);
    const jan = [
      ...Array.from({ length: 25 }, (_, i) =>
        claudeResponse(rand, `2026-01-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`),
      ),
      ...Array.from({ length: 15 }, (_, i) =>
        gptResponse(rand, `2026-01-${String(1 + (i % 28)).padStart(2, '0')}T12:00:00Z`),
      ),
    ];
    const shares = await sharesOf(jan);
    expectClose(shares.get('2026-01'), expectedShares(jan), true);
    const s = shares.get('2026-01')!;
    expect(s.input_share + s.cache_read_share + s.cache_write_share + s.output_share).toBeCloseTo(1, 5);
  });

  it('a month whose responses cannot separate the rates is fitted on the whole range of its group', async () => {
    const rand = rng(11);
    const jan = Array.from({ length: 20 }, (_, i) =>
      claudeResponse(rand, `2026-01-${String(1 + i).padStart(2, '0')}T10:00:00Z`),
    );
    const feb = [claudeResponse(rand, '2026-02-10T10:00:00Z')]; // one response, five unknown rates
    const shares = await sharesOf([...jan, ...feb]);
    expectClose(shares.get('2026-01'), expectedShares(jan), true);
    expectClose(shares.get('2026-02'), expectedShares(feb), true);
  });

  it('cost no response can explain is unattributed, never guessed', async () => {
    const rand = rng(13);
    const jan = Array.from({ length: 20 }, (_, i) =>
      claudeResponse(rand, `2026-01-${String(1 + i).padStart(2, '0')}T10:00:00Z`),
    );
    // A model seen once in the whole range: its rates are unknowable.
    const lone = claudeResponse(rand, '2026-01-15T11:00:00Z', 'rare-model', {
      input: 1,
      cache_read: 1,
      cache_write: 1,
      cache_write_1h: 1,
      output: 1,
    });
    const shares = await sharesOf([...jan, lone]);
    const want = expectedShares(jan);
    const total = want.total + lone.computed_e10!;
    const s = shares.get('2026-01')!;
    expect(s.exact).toBe(false);
    expect(s.unattributed_share).toBeCloseTo(lone.computed_e10! / total, 5);
    expect(s.unattributed_usd).toBeCloseTo(lone.computed_e10! / 1e10, 5);
    expect(s.output_share).toBeCloseTo((want.output_usd * 1e10) / total, 5);
    expect(
      s.input_share + s.cache_read_share + s.cache_write_share + s.output_share + s.unattributed_share,
    ).toBeCloseTo(1, 5);
  });

  it('non-linear prices (a long-context tier) give an approximate split: flagged, non-negative, adding up', async () => {
    const rand = rng(17);
    const list = Array.from({ length: 30 }, (_, i) => {
      const e = claudeResponse(rand, `2026-03-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`);
      const totalInput = (e.input ?? 0) + (e.cache_read ?? 0) + (e.cache_write ?? 0);
      return totalInput > 50000 ? priced(OPUS, e, 2) : e; // whole request at double rates past the tier
    });
    const s = (await sharesOf(list)).get('2026-03')!;
    expect(s.exact).toBe(false);
    for (const k of ['input_share', 'cache_read_share', 'cache_write_share', 'output_share'] as const)
      expect(s[k]).toBeGreaterThanOrEqual(0);
    expect(s.unattributed_share).toBe(0);
    expect(s.input_share + s.cache_read_share + s.cache_write_share + s.output_share).toBeCloseTo(1, 5);
    expect(s.priced_cost_usd).toBe(list.reduce((t, e) => t + e.computed_e10!, 0) / 1e10);
  });

  it('months without any priced response have no shares', async () => {
    const shares = await sharesOf([
      {
        harness: 'claude-code',
        session: 's',
        model: 'opus',
        ts: '2026-01-02T00:00:00Z',
        key: 'x',
        input: 5,
        output: 5,
      },
    ]);
    expect(shares.size).toBe(0);
  });

  it('fitRates keeps every rate non-negative and reports unidentifiable systems', () => {
    // Two responses in the same proportions cannot separate input from output.
    const m = (rows: [number, number, number][]) =>
      momentsOf({
        responses: rows.length,
        sum_cost: rows.reduce((s, r) => s + r[2], 0),
        sum_cost_cost: rows.reduce((s, r) => s + r[2] ** 2, 0),
        sum_in: rows.reduce((s, r) => s + r[0], 0),
        sum_out: rows.reduce((s, r) => s + r[1], 0),
        sum_in_in: rows.reduce((s, r) => s + r[0] ** 2, 0),
        sum_in_out: rows.reduce((s, r) => s + r[0] * r[1], 0),
        sum_out_out: rows.reduce((s, r) => s + r[1] ** 2, 0),
        sum_in_cost: rows.reduce((s, r) => s + r[0] * r[2], 0),
        sum_out_cost: rows.reduce((s, r) => s + r[1] * r[2], 0),
      });
    expect(
      fitRates(
        m([
          [10, 20, 100],
          [20, 40, 200],
        ]),
      ),
    ).toBeNull();
    // Costs that fall as input grows: least squares would want a negative input rate; the fit clamps it at 0.
    const r = fitRates(
      m([
        [10, 10, 100],
        [100, 10, 90],
        [50, 20, 190],
      ]),
    )!;
    expect(r.every((v) => v >= 0)).toBe(true);
    expect(r[0]).toBe(0);
  });
});
