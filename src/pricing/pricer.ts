// The Pricer: cost of one response at its own timestamp, memoized so that
// millions of events cost a few map lookups and some integer arithmetic each.
//
// Memo levels:
//   (harness, provider, model) → which override entry or library model matched
//   matched library model × time bucket → compiled prices in force
// The time bucket is the UTC day for models whose prices change on start dates
// (the library compares against UTC midnight of `start_date`), the minute for
// time-of-day prices (DeepSeek off-peak), and one bucket for constant prices.
// A fast-mode promotion's end (fast-mode.ts) cuts no bucket: a compiled price
// set holds the promotion's fast variant beside the regular one, and the
// response's own timestamp picks between them (engine.ts priceForSpeed), here
// and in the exported cache alike.
import { costAtTier } from './service-tier.js';
import { readFileSync } from 'node:fs';
import { readInputText } from '../core/inputs.js';
import { fsProblem } from '../core/fs-problem.js';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ModelInfo, Provider } from '@pydantic/genai-prices';
import type { HarnessId } from '../core/types.js';
import { formatCostUnits } from './decimal.js';
import type { CompiledPrice, FastMode } from './engine.js';
import { compilePrice, compileWithFast, unitCosts, type UnitCost } from './engine.js';
import { fastModeOf } from './fast-mode.js';
import { isRegionalEntry, regionalNotes } from './regional.js';
import { readStoredData } from './datafile.js';
import { digest128 } from '../core/digest.js';
import { bucketOf, resolutionKey, type PriceCache } from './cache.js';
import { initLibrary, libraryResolve } from './library.js';
import type { Candidate } from './names.js';
import { candidates, namesEntry, overrideKeys } from './names.js';
import type { OverrideEntry, Overrides } from './overrides.js';
import { parseOverrides } from './overrides.js';

/** The price overrides file cannot be used: unreadable, not JSON, not LiteLLM's shape. */
export class PricesFileError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

/** Bump when the costing logic changes, so stores re-price their rows. */
const ENGINE_VERSION = 'pricing-5';

export interface PriceableUsage {
  harness: HarnessId;
  model: string | null;
  provider: string | null;
  ts: number;
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_5m_tokens: number | null;
  cache_write_1h_tokens: number | null;
  output_tokens: number;
  reasoning_tokens: number;
  /** Responses the row stands for (default 1); 0 = a residual aggregate, priced at base rates without tiers (unless `iteration` is set). */
  requests?: number;
  /** Speed the response was served at: absent/null standard, "fast" the model's fast-mode rates (engine.ts priceForSpeed). */
  speed?: string | null;
  /** Web searches the response ran, a fee each (web_searches_kcount). */
  web_search_requests?: number | null;
  /** The sampling iteration the row holds (Claude Code advisor turns): priced on its own input. */
  iteration?: number | null;
  /** The billing category the source states ('priority': priority processing, service-tier.ts). */
  billing_kind?: string | null;
}

export interface Pricer {
  /** Changes whenever prices or overrides change, so the store knows to re-price rows. */
  fingerprint: string;
  /** Cost of ONE response in USD as a decimal string with up to 10 fractional digits (no float drift), or null when the model matches nothing. */
  cost(u: PriceableUsage): string | null;
  /** The same cost in integer units of 1e-10 USD (the store's unit): no decimal text made and parsed again per response. */
  costE10(u: PriceableUsage): bigint | null;
  /**
   * The price entry a model is priced by when that entry is another model's
   * (matched by a prefix rule, e.g. `claude-sonnet-5-5` by `claude-sonnet-5`);
   * null when it names the model itself, comes from an override, or nothing matched.
   */
  nearMatch(
    model: string,
    provider: string | null,
    harness: HarnessId | null,
  ): { entry: string; provider: string } | null;
  /** `explain`'s price breakdown of one response: unit by unit at its rates (engine.ts unitCosts); null when it has no price. */
  unitCosts(u: PriceableUsage): UnitCost[] | null;
  /** For `tx-usage prices show MODEL`: resolved prices and which source/entry matched. */
  describe(model: string, provider?: string | null, ts?: number): object | null;
  /** Where the library data came from, e.g. "bundled @pydantic/genai-prices 0.1.8". */
  dataSource: string;
  /**
   * What this pricer resolved so far (plus the buckets of `alsoAt`, for every
   * model it resolved), for pricing outside the process: the status line's
   * snapshot (see cache.ts, live/snapshot.ts).
   */
  exportCache(alsoAt?: number[]): PriceCache;
  /** Problems met while loading or pricing (unusable stored data file, bad override fields, data the library cannot use): show them, keep going. Grows as models are resolved. */
  warnings: string[];
}

type LibraryResolution = {
  kind: 'library';
  candidate: Candidate;
  provider: Provider;
  model: ModelInfo;
  width: number;
  byBucket: Map<number, CompiledPrice | null>;
};
type OverrideResolution = { kind: 'override'; matchedKey: string; entry: OverrideEntry; compiled: CompiledPrice };
type Resolution = LibraryResolution | OverrideResolution;

/**
 * A price-data entry found for a name that does not name it (it merely begins
 * like it, or another seller's listing): a near match. The one test behind
 * the report's warning (nearMatch) and `prices show` (describe).
 */
function isNearMatch(res: Resolution): res is LibraryResolution {
  return res.kind === 'library' && (res.candidate.near === true || !namesEntry(res.candidate.model, res.model));
}

/**
 * README "Fast-mode names": a harness that names the fast variant as a model
 * of its own (pi's `claude-opus-4-8-fast`; OpenRouter's
 * `anthropic/claude-opus-5-fast`) is priced by that name's own entry where
 * the data has one, else as the base model served at speed "fast" (its
 * fast-mode price, or unknown) — never at the base model's standard rate,
 * which a name beginning like it would otherwise match.
 */
const FAST_SUFFIX = /-fast$/i;
const FAST_SUFFIX_LEN = '-fast'.length;

function fastNamed(u: { model: string; speed?: string | null }, res: Resolution | null): boolean {
  return (
    !u.speed && FAST_SUFFIX.test(u.model) && u.model.length > FAST_SUFFIX_LEN && (res === null || isNearMatch(res))
  );
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** The memo bucket width (ms; 0 = one bucket) from the model's price constraints. */
function bucketWidth(model: ModelInfo): number {
  if (!Array.isArray(model.prices)) return 0;
  let width = DAY_MS;
  for (const p of model.prices) {
    const c = p.constraint as
      { type?: string; start_date?: string; start_time?: string; end_time?: string } | undefined;
    if (!c) continue;
    if (c.type === 'time_of_date' || c.start_time !== undefined) {
      const whole = [c.start_time, c.end_time].every(
        (t) => typeof t === 'string' && /^\d{2}:\d{2}:00(?:Z|[+-]\d{2}:\d{2})$/.test(t),
      );
      width = Math.min(width, whole ? MINUTE_MS : 1);
    } else if (typeof c.start_date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(c.start_date)) {
      width = 1; // a start with a time of day: no safe bucket wider than a millisecond
    }
  }
  return width;
}

function packageVersion(): string {
  try {
    const main = createRequire(import.meta.url).resolve('@pydantic/genai-prices');
    return (JSON.parse(readFileSync(join(dirname(main), '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export async function loadPricer(opts: { pricesFile?: string; cacheDir: string }): Promise<Pricer> {
  const { bundled } = await initLibrary();
  const warnings: string[] = [];

  const stored = readStoredData(opts.cacheDir);
  let data: Provider[] = bundled;
  let dataSource = `bundled @pydantic/genai-prices ${packageVersion()}`;
  let dataHash: string;
  if (stored.state === 'ok') {
    data = stored.data;
    dataSource = `${stored.path}${stored.meta ? ` (downloaded ${stored.meta.fetched_at})` : ''}`;
    dataHash = stored.sha256;
  } else {
    if (stored.state === 'bad')
      warnings.push(`price data file ${stored.path} is unusable (${stored.reason}); using the bundled price data`);
    // The bundled data is the installed library's: its version names it (no
    // JSON.stringify of 500 KB and hash on every run that prices, ~4 ms).
    dataHash = dataSource;
  }

  let overrides: Overrides | null = null;
  let overridesHash = '-';
  if (opts.pricesFile) {
    let text: string;
    try {
      text = readInputText(opts.pricesFile); // core/inputs.ts: the report memo keys on it
    } catch (e) {
      throw new PricesFileError(opts.pricesFile, fsProblem(e));
    }
    try {
      overrides = parseOverrides(opts.pricesFile, text);
    } catch (e) {
      throw new PricesFileError(opts.pricesFile, (e as Error).message.replace(`${opts.pricesFile}: `, ''));
    }
    warnings.push(...overrides.warnings);
    overridesHash = digest128(text);
  }
  const fingerprint = digest128([ENGINE_VERSION, dataHash, overridesHash].join('\n'));

  const seenWarnings = new Set(warnings);
  const warn = (m: string) => {
    if (!seenWarnings.has(m)) {
      seenWarnings.add(m);
      warnings.push(m);
    }
  };
  const resolutions = new Map<string, Resolution | null>();
  const resolveErrors = new Map<string, string>();

  function resolve(model: string, provider: string | null, harness: HarnessId | null): Resolution | null {
    const memoKey = resolutionKey(harness, provider, model);
    const hit = resolutions.get(memoKey);
    if (hit !== undefined) return hit;
    let res: Resolution | null = null;
    if (overrides) {
      for (const k of overrideKeys(model, provider)) {
        const entry = overrides.entries.get(k);
        if (!entry) continue;
        try {
          const fast: FastMode | null = entry.fast
            ? { multiplier: entry.fast, source: `${overrides.file}: "${entry.key}".provider_specific_entry.fast` }
            : null;
          // An override prices as given: no regional multiple for a Bedrock id it names (regional.ts).
          res = {
            kind: 'override',
            matchedKey: k,
            entry,
            compiled: { ...compileWithFast(entry.prices, fast), regional: true },
          };
        } catch (e) {
          resolveErrors.set(memoKey, `override "${entry.key}": ${(e as Error).message}`);
        }
        break;
      }
    }
    if (!res && !resolveErrors.has(memoKey)) {
      const now = new Date();
      for (const c of candidates(model, provider, harness)) {
        let m;
        try {
          m = libraryResolve(data, c.model, c.provider, now, warn);
        } catch (e) {
          resolveErrors.set(memoKey, `genai-prices: ${(e as Error).message}`);
          break;
        }
        if (!m) continue;
        res = {
          kind: 'library',
          candidate: c,
          provider: m.provider,
          model: m.model,
          width: bucketWidth(m.model),
          byBucket: new Map(),
        };
        break;
      }
    }
    resolutions.set(memoKey, res);
    return res;
  }

  // A model's prices are one object per price period in the data: a bucket
  // (a day, mostly) of the same period compiles to the same thing. (An
  // object belongs to one model, so its fast-mode variant is the model's.)
  const compiledByPrices = new WeakMap<object, CompiledPrice>();
  function compiledOf(prices: Record<string, unknown>, fast: FastMode | null, regional: boolean): CompiledPrice {
    let c = compiledByPrices.get(prices);
    if (!c) {
      c = compileWithFast(prices, fast);
      if (regional) c.regional = true;
      compiledByPrices.set(prices, c);
    }
    return c;
  }

  function priceAt(res: Resolution, ts: number): CompiledPrice | null {
    if (res.kind === 'override') return res.compiled;
    const b = bucketOf(res.width, ts);
    const hit = res.byBucket.get(b);
    if (hit !== undefined) return hit;
    let compiled: CompiledPrice | null = null;
    try {
      const m = libraryResolve(data, res.candidate.model, res.candidate.provider, new Date(ts), warn);
      compiled = m
        ? compiledOf(
            m.prices as Record<string, unknown>,
            fastModeOf(m.provider.id, m.model.id),
            isRegionalEntry(m.provider.id, m.model.id),
          )
        : null;
    } catch {
      compiled = null; // malformed data for this model/time: unpriced rather than a crash
    }
    res.byBucket.set(b, compiled);
    return compiled;
  }

  const validTs = (ts: number | undefined): number => (typeof ts === 'number' && Number.isFinite(ts) ? ts : Date.now());

  // The last model resolved: responses come a source at a time, mostly of
  // one model, and the memo key (a joined string) costs an allocation each.
  let last: { model: string; provider: string | null; harness: HarnessId | null; res: Resolution | null } | null = null;

  function costE10(u: PriceableUsage): bigint | null {
    if (!u.model) return null;
    let res: Resolution | null;
    if (last !== null && last.model === u.model && last.provider === u.provider && last.harness === u.harness)
      res = last.res;
    else {
      res = resolve(u.model, u.provider, u.harness);
      last = { model: u.model, provider: u.provider, harness: u.harness, res };
    }
    // README "Fast-mode names": `<model>-fast` without a price entry of its own is `<model>` at speed "fast".
    if (fastNamed({ model: u.model, speed: u.speed }, res))
      return costE10({ ...u, model: u.model.slice(0, -FAST_SUFFIX_LEN), speed: 'fast' });
    if (!res) return null;
    const compiled = priceAt(res, validTs(u.ts));
    if (!compiled) return null;
    // A fast or priority response of a model whose price for it is unknown: null (fast-mode.ts, service-tier.ts).
    return costAtTier(compiled, u);
  }

  return {
    fingerprint,
    dataSource,
    warnings,
    cost(u: PriceableUsage): string | null {
      const units = costE10(u);
      return units === null ? null : formatCostUnits(units);
    },
    costE10,
    unitCosts: function breakdown(u: PriceableUsage): UnitCost[] | null {
      if (!u.model) return null;
      const res = resolve(u.model, u.provider, u.harness);
      if (fastNamed({ model: u.model, speed: u.speed }, res))
        return breakdown({ ...u, model: u.model.slice(0, -FAST_SUFFIX_LEN), speed: 'fast' });
      const compiled = res ? priceAt(res, validTs(u.ts)) : null;
      return compiled ? unitCosts(compiled, u) : null;
    },
    nearMatch(model: string, provider: string | null, harness: HarnessId | null) {
      const res = resolve(model, provider, harness);
      if (!res || !isNearMatch(res)) return null;
      return { entry: res.model.id, provider: res.provider.id };
    },
    exportCache(alsoAt: number[] = []): PriceCache {
      const entries: PriceCache['entries'] = {};
      for (const [key, res] of resolutions) {
        if (!res) entries[key] = null;
        else if (res.kind === 'override') entries[key] = { width: 0, buckets: { '0': res.compiled } };
        else {
          for (const ts of alsoAt) priceAt(res, ts);
          entries[key] = {
            width: res.width,
            buckets: Object.fromEntries([...res.byBucket].map(([b, c]) => [String(b), c])),
          };
        }
      }
      return { fingerprint, entries };
    },
    describe(model: string, provider?: string | null, ts?: number): object | null {
      const at = validTs(ts);
      const res = resolve(model, provider ?? null, null);
      const base = {
        model,
        provider: provider ?? null,
        at: new Date(at).toISOString(),
        data: dataSource,
        overrides_file: overrides?.file ?? null,
      };
      if (!res) {
        const err = resolveErrors.get(`\u0000${provider ?? ''}\u0000${model}`);
        return err ? { ...base, matched: null, error: err } : null;
      }
      const compiled = priceAt(res, at);
      const fastNote = fastNamed({ model }, res)
        ? [
            `a "-fast" name without a price entry of its own: priced as ${model.slice(0, -FAST_SUFFIX_LEN)} at speed "fast" (its fast-mode price, else unknown)`,
          ]
        : [];
      if (res.kind === 'override') {
        return {
          ...base,
          source: 'override',
          matched: { file: overrides!.file, entry: res.entry.key, as: res.matchedKey, near_match: false },
          fields: res.entry.fields,
          prices_usd_per_mtok: res.compiled.display,
          notes: [...notes(res.compiled, /claude/i.test(res.entry.key)), ...regionalNotes(model, res.compiled)],
        };
      }
      const periods = Array.isArray(res.model.prices)
        ? res.model.prices.map((p) => ({
            constraint: p.constraint ?? null,
            prices_usd_per_mtok: safeDisplay(p.prices),
          }))
        : undefined;
      return {
        ...base,
        source: 'genai-prices',
        matched: {
          provider_id: res.provider.id,
          provider_name: res.provider.name,
          model_id: res.model.id,
          model_name: res.model.name ?? res.model.id,
          looked_up_as: {
            model: res.candidate.model,
            provider: res.candidate.provider ?? null,
            why: res.candidate.how,
          },
          // The entry is another model's, used because the name begins like it (said in the report's warnings too).
          near_match: isNearMatch(res),
        },
        prices_usd_per_mtok: compiled?.display ?? null,
        ...(periods ? { price_periods: periods } : {}),
        notes: compiled
          ? [...fastNote, ...notes(compiled, res.provider.id === 'anthropic'), ...regionalNotes(model, compiled)]
          : ['prices could not be resolved at this time'],
      };
    },
  };
}

function safeDisplay(p: Record<string, unknown>): object | string {
  try {
    return compilePrice(p).display;
  } catch (e) {
    return `invalid: ${(e as Error).message}`;
  }
}

/** Plain-language consequences of a price set for transcript usage (`fastModeVendor`: a provider whose responses may say speed "fast"). */
function notes(c: CompiledPrice, fastModeVendor: boolean): string[] {
  const out: string[] = [];
  const r = c.rates;
  if (r.input && !r.cache_read) out.push('no cache-read price: cache reads are billed at the input rate');
  if (r.input && !r.cache_write) out.push('no cache-write price: cache writes are billed at the input rate');
  if (r.cache_write && !r.cache_write_1h)
    out.push('no 1-hour cache-write price: all cache writes at the cache-write rate');
  if (!r.input) out.push('no input price: input is not charged');
  if (!r.output) out.push('no output price: output is not charged');
  const starts = new Set<number>();
  for (const rate of Object.values(r)) for (const t of rate?.tiers ?? []) starts.add(t.start);
  for (const s of [...starts].sort((a, b) => a - b)) {
    out.push(
      `long context: once a request's total input (uncached + cache reads + cache writes) exceeds ${s} tokens, the whole request is billed at the tier rates`,
    );
  }
  if (r.requests) out.push('a per-request price applies (requests_kcount is per 1000 requests)');
  if (r.web_search)
    out.push(
      'web searches are billed per search (web_searches_kcount is per 1000 searches; Claude Code usage.server_tool_use.web_search_requests)',
    );
  if (c.fast) out.push(`fast mode (usage.speed "fast"): ${c.fastMultiplier}× every token rate (${c.fastSource})`);
  else if (fastModeVendor)
    out.push(
      'fast mode (usage.speed "fast"): no price known, so a fast response has no computed cost (unknown, not the standard rate)',
    );
  if (c.fastPromo)
    out.push(
      `fast mode before ${new Date(c.fastPromo.until).toISOString()}: ${c.fastPromo.multiplier}× every token rate instead (${c.fastPromo.source})`,
    );
  if (c.notApplicable.length) out.push(`not from transcripts, so not charged: ${c.notApplicable.join(', ')}`);
  return out;
}
