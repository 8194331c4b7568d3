// Exact cost of one response from one resolved price set.
//
// The price set is the library's `ModelPrice` for the response's model at the
// response's timestamp (or one built from an override entry). The arithmetic
// follows @pydantic/genai-prices' own engine (dist/index.js: `he`/`ne`/`de`),
// but in exact decimals instead of floats:
//   - usage is decomposed into leaves: a priced unit is charged only for the
//     tokens not claimed by a priced, more specific unit (cache reads and writes
//     are carved out of total input, 1h writes out of cache writes, reasoning
//     out of output). A unit without a price falls into its parent, exactly as
//     the library does (e.g. no cache_read price → cache reads at input rate).
//   - tiered prices pick ONE rate for the whole request from the request's
//     TOTAL input tokens (`total > tier.start`): Anthropic's "input over 200k
//     → whole request at long-context rates" rule. A row that holds one
//     sampling iteration of a response (`iteration` set: a Claude Code
//     advisor turn) is such a request on its own: its tier is decided on its
//     own input, not on the response's summed one (claude-code#81620).
//   - web searches (`web_searches_kcount`, per 1000) are a fee per search
//     the response ran (Anthropic `server_tool_use.web_search_requests`).
//   - fast mode (`speed: "fast"`) is priced by the price set's fast variant
//     (`fast`, fast-mode.ts): every token rate times the model's fast-mode
//     multiplier; none known → no cost (null), never the standard rates.
//     A response before the end of a promotion (`fastPromo`, fast-mode.ts)
//     is priced by that variant instead: chosen by the response's own
//     timestamp here, so a price set (a pricer memo bucket, a cached one)
//     holds both and stays valid on either side of the end.
// test/pricing/pricing-library.test.ts checks this against the library's float result
// for every token-priced model in the bundled catalogue.
import type { Dec } from './decimal.js';
import { COST_DIGITS, formatDec, mulDec, parseDec, pow10, roundToCostUnits, shift } from './decimal.js';

/** The usage units a transcript can fill. */
export type UnitKey =
  | 'input'
  | 'cache_read'
  | 'cache_write'
  | 'cache_write_5m'
  | 'cache_write_1h'
  | 'output'
  | 'output_reasoning'
  | 'requests'
  | 'web_search';

/**
 * Price key → our unit and the power of ten that brings the price to "USD per
 * 1e6 units" (requests_kcount and web_searches_kcount are per 1000: ×1000).
 */
const PRICE_KEYS: Record<string, { unit: UnitKey; shift: number }> = {
  input_mtok: { unit: 'input', shift: 0 },
  cache_read_mtok: { unit: 'cache_read', shift: 0 },
  cache_write_mtok: { unit: 'cache_write', shift: 0 },
  cache_write_5m_mtok: { unit: 'cache_write_5m', shift: 0 },
  cache_write_1h_mtok: { unit: 'cache_write_1h', shift: 0 },
  output_mtok: { unit: 'output', shift: 0 },
  output_reasoning_mtok: { unit: 'output_reasoning', shift: 0 },
  requests_kcount: { unit: 'requests', shift: 3 },
  web_searches_kcount: { unit: 'web_search', shift: 3 },
};

interface UnitRate {
  base: number;
  tiers: { start: number; coef: number }[];
  baseBig: bigint;
  tiersBig: { start: number; coef: bigint }[];
}

export interface CompiledPrice {
  /** Coefficients are USD per 1e6 units × 10^scale. */
  scale: number;
  rates: Partial<Record<UnitKey, UnitRate>>;
  tiered: boolean;
  /** Every coefficient is exact as a double, so the Number fast path may be tried. */
  smallCoefs: boolean;
  /** Human-readable prices, for `prices show`. */
  display: Record<string, string | { base: string; tiers: { start: number; price: string }[] }>;
  /** Price keys of units a transcript never reports (audio, images…): they cost nothing here. */
  notApplicable: string[];
  /**
   * The same prices in fast mode (`speed: "fast"`): every token rate times
   * `fastMultiplier`, fees per request or search unchanged. Absent: no
   * fast-mode price is known, so a fast response has no cost.
   */
  fast?: CompiledPrice;
  /** The fast-mode multiplier (decimal text) and where it comes from, for `prices show`. */
  fastMultiplier?: string;
  fastSource?: string;
  /**
   * Fast mode's prices for a response before `until` (ms since the epoch,
   * exclusive): a promotion's multiplier in place of `fastMultiplier`.
   */
  fastPromo?: { until: number; price: CompiledPrice; multiplier: string; source: string };
  /**
   * The prices already are an in-region / geographic rate (the data's AWS
   * `regional.*` entries, or an override, which prices as given): a Bedrock
   * in-region id priced by them gets no regional multiple (regional.ts).
   */
  regional?: boolean;
}

/** What a price set is in fast mode: a multiplier on every token rate, and its evidence. */
export interface FastMode {
  multiplier: Dec;
  source: string;
  /** A promotion: `multiplier` instead for responses before `until` (ms since the epoch, exclusive). */
  promo?: { multiplier: Dec; until: number; source: string };
}

function asDec(v: unknown, key: string): Dec {
  const d = typeof v === 'object' && v !== null && 'coef' in v ? (v as Dec) : parseDec(v);
  if (!d) throw new Error(`invalid price for ${key}: ${JSON.stringify(v)}`);
  return d;
}

function isTiered(v: unknown): v is { base: unknown; tiers: unknown } {
  return typeof v === 'object' && v !== null && 'base' in v && 'tiers' in v;
}

/** Compiles a library `ModelPrice` (or an override built like one) for fast exact costing. Throws on malformed values. */
export function compilePrice(prices: Record<string, unknown>): CompiledPrice {
  const parsed: { unit: UnitKey; base: Dec; tiers: { start: number; price: Dec }[] }[] = [];
  const display: CompiledPrice['display'] = {};
  const notApplicable: string[] = [];
  for (const [key, raw] of Object.entries(prices)) {
    if (raw === undefined || raw === null) continue;
    const def = PRICE_KEYS[key];
    let base: Dec;
    let tiers: { start: number; price: Dec }[] = [];
    if (isTiered(raw)) {
      base = asDec(raw.base, key);
      if (!Array.isArray(raw.tiers)) throw new Error(`invalid tiers for ${key}`);
      for (const t of raw.tiers as unknown[]) {
        const start = (t as { start?: unknown })?.start;
        if (typeof start !== 'number' || !Number.isSafeInteger(start) || start < 0)
          throw new Error(`invalid tier start for ${key}`);
        tiers.push({ start, price: asDec((t as { price?: unknown }).price, key) });
      }
      tiers.sort((a, b) => a.start - b.start);
      display[key] = {
        base: formatDec(base),
        tiers: tiers.map((t) => ({ start: t.start, price: formatDec(t.price) })),
      };
    } else {
      base = asDec(raw, key);
      display[key] = formatDec(base);
    }
    if (!def) {
      notApplicable.push(key);
      continue;
    }
    parsed.push({
      unit: def.unit,
      base: shift(base, def.shift),
      tiers: tiers.map((t) => ({ start: t.start, price: shift(t.price, def.shift) })),
    });
  }
  let scale = 0;
  for (const p of parsed) for (const d of [p.base, ...p.tiers.map((t) => t.price)]) scale = Math.max(scale, d.scale);
  const at = (d: Dec) => d.coef * pow10(scale - d.scale);
  const rates: CompiledPrice['rates'] = {};
  let tiered = false;
  let smallCoefs = true;
  for (const p of parsed) {
    const baseBig = at(p.base);
    const tiersBig = p.tiers.map((t) => ({ start: t.start, coef: at(t.price) }));
    if (tiersBig.length) tiered = true;
    for (const b of [baseBig, ...tiersBig.map((t) => t.coef)])
      if (b > BigInt(Number.MAX_SAFE_INTEGER)) smallCoefs = false;
    rates[p.unit] = {
      baseBig,
      tiersBig,
      base: Number(baseBig),
      tiers: tiersBig.map((t) => ({ start: t.start, coef: Number(t.coef) })),
    };
  }
  return { scale, rates, tiered, smallCoefs, display, notApplicable };
}

/**
 * `prices` with every token rate (`*_mtok`, tiers included) times `m`: fast
 * mode's multiplier applies to input, output and the cache rates alike
 * (Anthropic: prompt-caching multipliers stack on the fast-mode rates),
 * while fees per request or per search stay as they are.
 */
export function scaleTokenPrices(prices: Record<string, unknown>, m: Dec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(prices)) {
    if (raw === undefined || raw === null || !key.endsWith('_mtok')) {
      out[key] = raw;
      continue;
    }
    if (isTiered(raw)) {
      if (!Array.isArray(raw.tiers)) throw new Error(`invalid tiers for ${key}`);
      const tiers = (raw.tiers as { start?: unknown; price?: unknown }[]).map((t) => ({
        start: t?.start,
        price: mulDec(asDec(t?.price, key), m),
      }));
      out[key] = { base: mulDec(asDec(raw.base, key), m), tiers };
    } else {
      out[key] = mulDec(asDec(raw, key), m);
    }
  }
  return out;
}

/** compilePrice, with the fast-mode variant where a multiplier is known. */
export function compileWithFast(prices: Record<string, unknown>, fast: FastMode | null): CompiledPrice {
  const c = compilePrice(prices);
  if (!fast) return c;
  const out: CompiledPrice = {
    ...c,
    fast: compilePrice(scaleTokenPrices(prices, fast.multiplier)),
    fastMultiplier: formatDec(fast.multiplier),
    fastSource: fast.source,
  };
  const p = fast.promo;
  if (p)
    out.fastPromo = {
      until: p.until,
      price: compilePrice(scaleTokenPrices(prices, p.multiplier)),
      multiplier: formatDec(p.multiplier),
      source: p.source,
    };
  return out;
}

/**
 * The price set a response is priced by, from its speed: standard (no speed,
 * or "standard"), the fast variant for "fast" (null when none is known; the
 * promotion's where `ts` is before its end), and null for any other speed
 * (unknown, so never the standard rates).
 */
export function priceForSpeed(c: CompiledPrice, speed: string | null | undefined, ts?: number): CompiledPrice | null {
  if (speed === null || speed === undefined || speed === 'standard') return c;
  if (speed === 'fast')
    return c.fastPromo !== undefined && ts !== undefined && ts < c.fastPromo.until
      ? c.fastPromo.price
      : (c.fast ?? null);
  return null;
}

/** Cost of one response (speed, web searches, iteration included) in 1e-10 USD; null when its speed has no price. */
export function costOf(c: CompiledPrice, u: EngineUsage): bigint | null {
  const p = priceForSpeed(c, u.speed, u.ts);
  return p === null ? null : costUnits(p, u);
}

/** Token counts of one response in OUR normalized shape (input = uncached input). */
export interface EngineUsage {
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_5m_tokens: number | null;
  cache_write_1h_tokens: number | null;
  output_tokens: number;
  reasoning_tokens: number;
  /**
   * Responses this row stands for (default 1). 0 marks a residual aggregate of
   * unknown responses (OpenCode's session-total remainder): it is priced at base
   * rates — no long-context tier, no per-request fee — since a tier applies per
   * request and the requests it sums are not known to cross one.
   */
  requests?: number;
  /** Web searches the response ran (each billed at web_searches_kcount / 1000). */
  web_search_requests?: number | null;
  /**
   * Set when the row holds one sampling iteration of a response (a Claude
   * Code advisor turn): priced as a request of its own input even with
   * `requests: 0` (a later iteration of a response counted once), so it is
   * never taken for a residual aggregate.
   */
  iteration?: number | null;
  /** The speed the response was served at ("fast": the fast-mode variant, see priceForSpeed). */
  speed?: string | null;
  /** When the response was made (ms since the epoch): picks a fast-mode promotion's prices before its end (priceForSpeed). */
  ts?: number;
}

/** A residual aggregate of unknown responses (OpenCode): base rates, no tier, no per-request fee. */
const isResidual = (u: EngineUsage): boolean => u.requests === 0 && (u.iteration === null || u.iteration === undefined);

const nn = (v: number | null | undefined): number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;

/** A response's counts as the engine prices them: clamped, reasoning within output, cache writes split 5m/1h. */
function tokenCounts(u: EngineUsage): {
  input: number;
  cr: number;
  cw: number;
  output: number;
  reasoning: number;
  w1h: number;
  w5m: number;
} {
  const cw = nn(u.cache_write_tokens);
  const output = nn(u.output_tokens);
  // 5m/1h split: only where the harness recorded it. A recorded 1h count is
  // authoritative (Pi records only cacheWrite1h; the rest are 5m writes); a
  // lone 5m count implies 1h = the remainder. Counts are clamped to the total.
  let w1h = 0;
  let w5m = 0;
  if (u.cache_write_1h_tokens !== null || u.cache_write_5m_tokens !== null) {
    w1h =
      u.cache_write_1h_tokens !== null
        ? Math.min(nn(u.cache_write_1h_tokens), cw)
        : Math.max(0, cw - nn(u.cache_write_5m_tokens));
    w5m = cw - w1h;
  }
  return {
    input: nn(u.input_tokens),
    cr: nn(u.cache_read_tokens),
    cw,
    output,
    reasoning: Math.min(nn(u.reasoning_tokens), output),
    w1h,
    w5m,
  };
}

/** The leaf token counts, i.e. how many tokens each priced unit is charged for. Exported for `prices show`-style explanations. */
export function leaves(
  c: CompiledPrice,
  u: EngineUsage,
): { totalInput: number; leaf: Partial<Record<UnitKey, number>> } {
  const { input, cr, cw, output, reasoning, w1h, w5m } = tokenCounts(u);
  const r = c.rates;
  // The library's input_tokens is TOTAL input: uncached + cache reads + cache writes.
  const totalInput = input + cr + cw;
  const leaf: Partial<Record<UnitKey, number>> = {};
  // The per-request fee once per response: not on a residual, nor on a later iteration.
  if (r.requests) leaf.requests = u.requests === 0 ? 0 : 1;
  if (r.web_search) leaf.web_search = nn(u.web_search_requests);
  if (r.output_reasoning) leaf.output_reasoning = reasoning;
  if (r.output) leaf.output = output - (r.output_reasoning ? reasoning : 0);
  if (r.cache_write_1h) leaf.cache_write_1h = w1h;
  if (r.cache_write_5m) leaf.cache_write_5m = w5m;
  const cwLeaf = cw - (r.cache_write_1h ? w1h : 0) - (r.cache_write_5m ? w5m : 0);
  if (r.cache_write) leaf.cache_write = cwLeaf;
  if (r.cache_read) leaf.cache_read = cr;
  if (r.input) {
    leaf.input =
      totalInput -
      (r.cache_read ? cr : 0) -
      (r.cache_write ? cwLeaf : 0) -
      (r.cache_write_1h ? w1h : 0) -
      (r.cache_write_5m ? w5m : 0);
  }
  return { totalInput, leaf };
}

/** The rate coefficient of a unit for a request with `totalInput` input tokens. */
function rateOf(rate: UnitRate, totalInput: number, big: false): number;
function rateOf(rate: UnitRate, totalInput: number, big: true): bigint;
function rateOf(rate: UnitRate, totalInput: number, big: boolean): number | bigint {
  let v: number | bigint = big ? rate.baseBig : rate.base;
  const tiers = big ? rate.tiersBig : rate.tiers;
  for (const t of tiers) if (totalInput > t.start) v = t.coef;
  return v;
}

/** The rate of an optional unit for a request with `totalInput` input tokens, as a double (0 when the unit has no price). */
function rateNum(rate: UnitRate | undefined, totalInput: number): number {
  if (!rate) return 0;
  let v = rate.base;
  // Indexed: eight calls per response, mostly before V8 optimizes them, and
  // a for-of loop then allocates its iterator and a result per step (~4 MB
  // of the main thread's garbage on the benchmark's cold run).
  const tiers = rate.tiers;
  for (let i = 0; i < tiers.length; i++) if (totalInput > tiers[i]!.start) v = tiers[i]!.coef;
  return v;
}

const exactPart = (p: number): boolean => p >= 0 && Number.isSafeInteger(p);

/**
 * costUnits for prices whose coefficients are exact doubles, computed in
 * doubles without the leaves object and BigInt arithmetic: the same leaves
 * as leaves() and the same rounding as roundToCostUnits, exact as long as
 * every product, the sum and the rounding stay safe integers (null: they do
 * not, and the caller takes the BigInt path). The cold ingest prices every
 * response on the main thread, which also runs the store's appender.
 */
function costUnitsFast(c: CompiledPrice, u: EngineUsage): bigint | null {
  const r = c.rates;
  const { input, cr, cw, output, reasoning, w1h, w5m } = tokenCounts(u);
  const totalInput = isResidual(u) ? 0 : input + cr + cw;
  const cwLeaf = cw - (r.cache_write_1h ? w1h : 0) - (r.cache_write_5m ? w5m : 0);
  // Leaves as in leaves(): a unit without a price falls into its parent.
  const requests = r.requests ? (u.requests === 0 ? 0 : 1) : 0;
  const outLeaf = output - (r.output_reasoning ? reasoning : 0);
  const inLeaf =
    input +
    cr +
    cw -
    (r.cache_read ? cr : 0) -
    (r.cache_write ? cwLeaf : 0) -
    (r.cache_write_1h ? w1h : 0) -
    (r.cache_write_5m ? w5m : 0);
  const p1 = requests * rateNum(r.requests, totalInput);
  const p2 = reasoning * rateNum(r.output_reasoning, totalInput);
  const p3 = outLeaf * rateNum(r.output, totalInput);
  const p4 = w1h * rateNum(r.cache_write_1h, totalInput);
  const p5 = w5m * rateNum(r.cache_write_5m, totalInput);
  const p6 = cwLeaf * rateNum(r.cache_write, totalInput);
  const p7 = cr * rateNum(r.cache_read, totalInput);
  const p8 = inLeaf * rateNum(r.input, totalInput);
  const p9 = r.web_search ? nn(u.web_search_requests) * rateNum(r.web_search, totalInput) : 0;
  const sum = p1 + p2 + p3 + p4 + p5 + p6 + p7 + p8 + p9;
  // With every product a non-negative safe integer, a safe sum means every partial sum was exact too.
  if (
    !exactPart(p1) ||
    !exactPart(p2) ||
    !exactPart(p3) ||
    !exactPart(p4) ||
    !exactPart(p5) ||
    !exactPart(p6) ||
    !exactPart(p7) ||
    !exactPart(p8) ||
    !exactPart(p9)
  )
    return null;
  if (!Number.isSafeInteger(sum)) return null;
  const scale = c.scale + 6;
  if (scale <= COST_DIGITS) {
    const v = sum * 10 ** (COST_DIGITS - scale);
    return Number.isSafeInteger(v) ? BigInt(v) : null;
  }
  const div = 10 ** (scale - COST_DIGITS);
  if (!Number.isSafeInteger(sum + div)) return null;
  // Floor division in doubles, corrected to the exact quotient (q * div <= sum stays safe).
  let q = Math.floor(sum / div);
  let rem = sum - q * div;
  if (rem < 0) {
    q -= 1;
    rem += div;
  } else if (rem >= div) {
    q += 1;
    rem -= div;
  }
  return BigInt(rem * 2 >= div ? q + 1 : q);
}

/** One priced unit of a response: how many tokens (or requests, searches) it is charged for, at what rate, for how much. */
export interface UnitCost {
  unit: UnitKey;
  count: number;
  /** USD per million units, at this request's tier. */
  usd_per_million: number;
  /** count × rate, in USD (to the store's 1e-10). */
  usd: number;
}

/**
 * The price arithmetic of one response, unit by unit (the leaves costUnits
 * sums, at the rates of its tier and speed): for `explain`. A billing tier
 * or regional multiple (service-tier.ts, regional.ts) is not in it.
 */
export function unitCosts(c: CompiledPrice, u: EngineUsage): UnitCost[] | null {
  const p = priceForSpeed(c, u.speed, u.ts);
  if (p === null) return null;
  const { totalInput, leaf } = leaves(p, u);
  const tier = isResidual(u) ? 0 : totalInput;
  const out: UnitCost[] = [];
  for (const k in leaf) {
    const count = leaf[k as UnitKey]!;
    if (!count) continue;
    const perMillion = rateOf(p.rates[k as UnitKey]!, tier, false) / 10 ** p.scale;
    out.push({
      unit: k as UnitKey,
      count,
      usd_per_million: perMillion,
      usd: Math.round(((count * perMillion) / 1e6) * 1e10) / 1e10,
    });
  }
  return out;
}

/** Cost of one response in units of 1e-10 USD (exact, rounded half-up at the 10th decimal). */
export function costUnits(c: CompiledPrice, u: EngineUsage): bigint {
  if (c.smallCoefs) {
    const fast = costUnitsFast(c, u);
    if (fast !== null) return fast;
  }
  return costUnitsExact(c, u);
}

/** costUnits by the leaves and, where doubles are not exact, BigInt arithmetic (exported for tests). */
export function costUnitsExact(c: CompiledPrice, u: EngineUsage): bigint {
  const { totalInput: total, leaf } = leaves(c, u);
  const totalInput = isResidual(u) ? 0 : total; // residual aggregate: base rates
  // Fast path: every product and the sum fit in a double's exact integer range.
  let sum = 0;
  let safe = c.smallCoefs;
  for (const k in leaf) {
    if (!safe) break;
    const n = leaf[k as UnitKey]!;
    if (n === 0) continue;
    const p = n * rateOf(c.rates[k as UnitKey]!, totalInput, false);
    sum += p;
    if (!Number.isSafeInteger(p) || !Number.isSafeInteger(sum)) {
      safe = false;
      break;
    }
  }
  let exact: bigint;
  if (safe) {
    exact = BigInt(sum);
  } else {
    exact = 0n;
    for (const k in leaf) exact += BigInt(leaf[k as UnitKey]!) * rateOf(c.rates[k as UnitKey]!, totalInput, true);
  }
  return roundToCostUnits(exact, c.scale + 6);
}
