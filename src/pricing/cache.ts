// A pricer's answers kept outside the process: for every (harness, provider,
// model) it resolved, the compiled prices per time bucket it used. The status
// line (live/merge.ts) prices a handful of new responses from it without
// loading the price data (~40 ms) — with the very arithmetic the pricer uses
// (engine.ts), so a cost from the cache equals the pricer's to the digit.
// Anything not in the cache is a miss, never a guess: the status line then
// says it is stale until the next refresh.
import type { CompiledPrice } from './engine.js';
import { costAtTier } from './service-tier.js';

/** What the cache prices: what the pricer prices (pricer.ts PriceableUsage), by the fields the cache reads. */
type CachedUsage = Parameters<typeof costAtTier>[1] & { harness: string | null; provider: string | null; ts: number };

export interface CachedResolution {
  /** Bucket width in ms (0: one bucket for all time), as the pricer's memo cuts time. */
  width: number;
  /** Bucket number → compiled prices in force (null: nothing in force, so no cost). */
  buckets: Record<string, CompiledPrice | null>;
}

export interface PriceCache {
  /** The pricer's fingerprint (data + overrides + engine version): a cache of another is void. */
  fingerprint: string;
  /** Resolution memo key (harness NUL provider NUL model) → what it resolved to; null: no price for the model. */
  entries: Record<string, CachedResolution | null>;
}

/** The cache has no answer: the caller must price with the real pricer. */
export const PRICE_MISS = Symbol('price-miss');

/** The pricer's memo key for a response (see pricer.ts resolve()). */
export function resolutionKey(harness: string | null, provider: string | null, model: string): string {
  return `${harness ?? ''}\u0000${provider ?? ''}\u0000${model}`;
}

export function bucketOf(width: number, ts: number): number {
  return width === 0 ? 0 : Math.floor(ts / width);
}

/** Exactly what Pricer.costE10(u) returns, or PRICE_MISS when the cache cannot tell. */
export function cachedCost(cache: PriceCache, u: CachedUsage): bigint | null | typeof PRICE_MISS {
  if (!u.model) return null;
  // A `-fast` name may be priced as its base model in fast mode (pricer.ts fastNamed): the pricer answers.
  if (!u.speed && /-fast$/i.test(u.model)) return PRICE_MISS;
  const r = cache.entries[resolutionKey(u.harness, u.provider, u.model)];
  if (r === undefined) return PRICE_MISS;
  if (r === null) return null;
  if (typeof u.ts !== 'number' || !Number.isFinite(u.ts)) return PRICE_MISS;
  const c = r.buckets[String(bucketOf(r.width, u.ts))];
  if (c === undefined) return PRICE_MISS;
  if (c === null) return null;
  return costAtTier(c, u);
}

// Compiled prices hold BigInt coefficients: JSON with a tagged form for them
// (for the price cache, and anything that carries one).
const BIG = '$bigint';

export function stringifyWithBigInt(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? { [BIG]: x.toString() } : x));
}

export function parseWithBigInt(text: string): unknown {
  return JSON.parse(text, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && BIG in x ? BigInt((x as Record<string, string>)[BIG]!) : x,
  );
}
