// User price overrides in LiteLLM's `model_prices_and_context_window.json`
// format: `{ "<model>": { "input_cost_per_token": 3e-06, ... }, ... }`.
// Per-token USD values become the library's per-million-token keys exactly
// (decimal shift, no float multiply), so an override is priced by the same
// engine as bundled data.
import type { Dec } from './decimal.js';
import { parseDec, shift } from './decimal.js';

/** LiteLLM field (without tier suffix) → library price key. */
const FIELDS: Record<string, string> = {
  input_cost_per_token: 'input_mtok',
  output_cost_per_token: 'output_mtok',
  cache_read_input_token_cost: 'cache_read_mtok',
  // LiteLLM's plain cache-creation price is the 5-minute write price (Anthropic's default TTL).
  cache_creation_input_token_cost: 'cache_write_mtok',
  cache_creation_input_token_cost_above_1hr: 'cache_write_1h_mtok',
  output_cost_per_reasoning_token: 'output_reasoning_mtok',
};

/** `<field>_above_<N>k_tokens`: the whole request at this rate once its input exceeds N×1000 tokens. */
const TIER = /^(.*)_above_(\d+)k_tokens$/;

export interface OverrideEntry {
  /** The key as written in the file. */
  key: string;
  /** Library-shaped prices (USD per 1e6 tokens, tiered where the file has `_above_Nk_tokens`). */
  prices: Record<string, Dec | { base: Dec; tiers: { start: number; price: Dec }[] }>;
  /** The fields the entry supplied, verbatim, for `prices show`. */
  fields: Record<string, unknown>;
  /** Fast mode's multiplier on every token rate (LiteLLM `provider_specific_entry.fast`); null: none stated, so fast responses are unpriced. */
  fast: Dec | null;
}

export interface Overrides {
  file: string;
  /** Lower-cased model key → entry. */
  entries: Map<string, OverrideEntry>;
  warnings: string[];
}

/**
 * Most a token may cost (USD): a thousand times the dearest price published
 * (600 USD per million output tokens). A larger one is a mistake, most often
 * a per-million price written into a per-token field (15 for 1.5e-05).
 */
export const MAX_PRICE_PER_TOKEN = 1;

const typeName = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/**
 * A price field's value, exactly, or why it is not one. Only a JSON number:
 * a string, an object or null is refused rather than ignored or read as a
 * number (each would silently leave a price out or change it).
 */
function priceOf(v: unknown): Dec | string {
  if (typeof v !== 'number') return `is ${typeName(v)}, not a number`;
  if (!Number.isFinite(v)) return 'is not a finite number';
  if (v < 0) return `is negative (${v})`;
  if (v > MAX_PRICE_PER_TOKEN)
    return `is ${v} USD per token, more than ${MAX_PRICE_PER_TOKEN} (a price per million tokens in a per-token field?)`;
  return parseDec(v) ?? 'is not a decimal number';
}

/**
 * Reads an overrides file. Every token price must be a number from 0 to
 * MAX_PRICE_PER_TOKEN: anything else throws, naming the file, the entry and
 * the field (a `--prices` problem is exit 2, never a silently dropped price).
 */
export function parseOverrides(file: string, text: string): Overrides {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not valid JSON (${(e as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error(
      `${file}: expected an object of model name → prices (LiteLLM model_prices_and_context_window.json format)`,
    );
  }
  const out: Overrides = { file, entries: new Map(), warnings: [] };
  for (const [key, raw] of Object.entries(json as Record<string, unknown>)) {
    if (key === 'sample_spec') continue; // LiteLLM's documentation entry
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new Error(`${file}: entry ${JSON.stringify(key)} is ${typeName(raw)}, not an object of prices`);
    }
    const entry = parseEntry(file, key, raw as Record<string, unknown>, out.warnings);
    if (!entry) continue;
    const k = key.trim().toLowerCase();
    if (out.entries.has(k))
      out.warnings.push(`${file}: "${key}" appears twice (case-insensitively); the later entry wins`);
    out.entries.set(k, entry);
  }
  return out;
}

function parseEntry(file: string, key: string, raw: Record<string, unknown>, warnings: string[]): OverrideEntry | null {
  const base: Record<string, Dec> = {};
  const tiers: Record<string, { start: number; price: Dec }[]> = {};
  const fields: Record<string, unknown> = {};
  let fast: Dec | null = null;
  for (const [field, value] of Object.entries(raw)) {
    if (field === 'provider_specific_entry' && typeof value === 'object' && value !== null && 'fast' in value) {
      const f = (value as { fast: unknown }).fast;
      fast = parseDec(f);
      if (fast) fields['provider_specific_entry.fast'] = f;
      else warnings.push(`${file}: "${key}".provider_specific_entry.fast is not a non-negative number; ignored`);
      continue;
    }
    const t = TIER.exec(field);
    const name = t ? t[1]! : field;
    const priceKey = FIELDS[name];
    if (!priceKey) continue; // context sizes, modes, image/audio prices… not transcript token prices
    const d = priceOf(value);
    if (typeof d === 'string') throw new Error(`${file}: entry ${JSON.stringify(key)}: ${field} ${d}`);
    fields[field] = value;
    const perMtok = shift(d, 6);
    if (t) (tiers[priceKey] ??= []).push({ start: Number(t[2]) * 1000, price: perMtok });
    else base[priceKey] = perMtok;
  }
  const prices: OverrideEntry['prices'] = { ...base };
  for (const [priceKey, ts] of Object.entries(tiers)) {
    const b = base[priceKey];
    if (!b) {
      warnings.push(
        `${file}: "${key}" has a long-context price for ${priceKey} but no base price; the tier is ignored`,
      );
      continue;
    }
    prices[priceKey] = { base: b, tiers: ts.sort((a, c) => a.start - c.start) };
  }
  // An entry without any token price (image or audio models) is not an override for transcripts.
  if (Object.keys(prices).length === 0) return null;
  return { key, prices, fields, fast };
}
