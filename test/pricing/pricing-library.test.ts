// The exact engine must agree with @pydantic/genai-prices' own (float) engine:
// for every model in the bundled catalogue, at every price period, for usages
// on both sides of every tier, the two totals differ by less than float noise.
// The library is the oracle here; this file never loads a cached data file, so
// the library's active data stays the bundled data.
import { beforeAll, describe, expect, it } from 'vitest';
import { calcPrice, waitForUpdate } from '@pydantic/genai-prices';
import type { ModelInfo, Provider } from '@pydantic/genai-prices';
import type { Pricer } from '../../src/pricing/index.js';
import { loadPricer } from '../../src/pricing/index.js';
import { usdToE10 } from '../../src/core/money.js';
import { tempDir } from '../helpers/temp.js';

let providers: Provider[];
let pricer: Pricer;

beforeAll(async () => {
  providers = (await waitForUpdate())!;
  pricer = await loadPricer({ cacheDir: tempDir('txu-pricing-lib-') });
});

/** A name the library resolves to exactly this model of this provider, or null. */
function nameFor(p: Provider, m: ModelInfo): string | null {
  const tries = [m.id, ...collect(m.match)];
  for (const name of tries) {
    const r = calcPrice({}, name, { providerId: p.id });
    if (r && r.provider.id === p.id && r.model.id === m.id) return name;
  }
  return null;
}
function collect(logic: any): string[] {
  if (!logic) return [];
  if (logic.or) return logic.or.flatMap(collect);
  if (logic.and) return logic.and.flatMap(collect);
  return ['equals', 'starts_with'].flatMap((k) => (typeof logic[k] === 'string' ? [logic[k]] : []));
}

function times(m: ModelInfo): Date[] {
  const out = [new Date('2024-01-01T12:00:00Z'), new Date('2026-06-01T03:00:00Z'), new Date('2026-06-01T20:00:00Z')];
  if (Array.isArray(m.prices)) {
    // Each start date, the day before it and the day after: the pricer keeps
    // one price per day (pricer.ts, priceAt), so the days on both sides of
    // every boundary must each get their own.
    for (const c of m.prices) {
      if (!c.constraint || !('start_date' in c.constraint)) continue;
      const start = Date.parse(`${c.constraint.start_date}T00:00:00Z`);
      out.push(new Date(start - 12 * 3_600_000), new Date(start), new Date(start + 36 * 3_600_000));
    }
  }
  return out;
}

function tierStarts(m: ModelInfo): number[] {
  const s = new Set<number>();
  const sets = Array.isArray(m.prices) ? m.prices.map((c) => c.prices) : [m.prices];
  for (const prices of sets)
    for (const v of Object.values(prices)) if (v && typeof v === 'object') for (const t of v.tiers) s.add(t.start);
  return [...s];
}

describe('exact engine vs library engine', () => {
  it('agrees on every bundled model', () => {
    let compared = 0;
    const failures: string[] = [];
    for (const p of providers) {
      for (const m of p.models) {
        const name = nameFor(p, m);
        if (!name) continue;
        const totals = [1000, 150_000, ...tierStarts(m).flatMap((s) => [s, s + 1])];
        for (const ts of times(m)) {
          for (const total of totals) {
            // Split the total input into uncached / cache read / cache write (1h part recorded) and add output with reasoning.
            const cr = Math.floor(total * 0.6);
            const cw = Math.floor(total * 0.25);
            const input = total - cr - cw;
            const w1h = Math.floor(cw / 3);
            const ours = {
              harness: 'pi' as const,
              model: name,
              provider: p.id,
              ts: ts.getTime(),
              input_tokens: input,
              cache_read_tokens: cr,
              cache_write_tokens: cw,
              cache_write_5m_tokens: cw - w1h,
              cache_write_1h_tokens: w1h,
              output_tokens: 4321,
              reasoning_tokens: 1234,
            };
            let lib;
            try {
              lib = calcPrice(
                // The library's input_tokens is the TOTAL input.
                {
                  input_tokens: total,
                  cache_read_tokens: cr,
                  cache_write_tokens: cw,
                  cache_write_5m_tokens: cw - w1h,
                  cache_write_1h_tokens: w1h,
                  output_tokens: 4321,
                  output_reasoning_tokens: 1234,
                },
                name,
                { providerId: p.id, timestamp: ts },
              );
            } catch {
              continue; // the library refuses this price set (e.g. a 1h price without its parent); nothing to compare
            }
            if (!lib) continue;
            const exact = pricer.cost(ours);
            // The store's unit (1e-10 USD) straight from the engine is the same amount to the digit.
            if (exact !== null && pricer.costE10(ours) !== usdToE10(exact))
              failures.push(`${p.id}/${m.id}: costE10 ${pricer.costE10(ours)} differs from cost ${exact}`);
            compared++;
            const diff = Math.abs(Number(exact) - lib.total_price);
            if (exact === null || diff > 1e-9 + 1e-12 * lib.total_price)
              failures.push(
                `${p.id}/${m.id} (${name}) @${ts.toISOString()} total=${total}: ours ${exact}, library ${lib.total_price}`,
              );
          }
        }
      }
    }
    expect(failures.slice(0, 20)).toEqual([]);
    // The catalogue has ~2000 models; most must have been compared.
    expect(compared).toBeGreaterThan(5000);
  });
});
