// Fast mode: Anthropic serves a request with `speed: "fast"` faster at a
// multiple of the model's rates, and says in the response which speed it
// actually used (`usage.speed`; `service_tier` stays "standard"). Claude Code
// writes that usage into its transcripts (`/fast`).
//
// @pydantic/genai-prices (0.1.8, bundled) carries no fast-mode prices for
// Anthropic's API (its only "fast" entry is GitHub Copilot's own
// `claude-opus-4.8-fast`), so the multipliers are kept here, each with its
// evidence. A model not listed has no known fast-mode price: its fast
// responses get no cost (null, marked as unpriced), never the standard one.
// A price override (`--prices`, LiteLLM format) states its own with
// `provider_specific_entry.fast` (LiteLLM's field; overrides.ts).
//
// The multiplier applies to every token rate in force for the response (input,
// output, cache writes and reads — "fast mode pricing stacks with prompt
// caching multipliers" — and the long-context tier where the model has one),
// not to per-search fees. Anthropic's pages, as quoted by the sources below:
//   - Opus 4.6: "6x standard Opus rates": $30 / $150 per MTok (≤ 200k input),
//     $60 / $225 over 200k (6 × the long-context $10 / $37.50) while Opus 4.6
//     had that tier (platform.claude.com/docs/*/build-with-claude/fast-mode,
//     Feb 2026); ccusage#886 prices it at LiteLLM's
//     `provider_specific_entry.fast: 6.0`. Its fast mode ended 2026-06-29:
//     requests run, and are reported (`speed: "standard"`), at standard speed.
//   - Opus 4.7: the same $30 / $150 (models.dev#1764 "same API configuration
//     and pricing as Opus 4.6"; tontinton/maki#272); removed 2026-07-24.
//   - Opus 4.8 and Opus 5: "$10 / MTok input, $50 / MTok output"
//     (platform.claude.com/docs/en/about-claude/pricing, fast-mode table, as
//     quoted in models.dev#4123; momoraul/Lupen#47, maki#272): 2x.
// Not listed, so unpriced in fast mode: Opus 5.5, Fable 5.2 and any later
// model (fast mode is available for them; no rate was found documented).
//
// Launch promotion: Opus 4.6 fast responses before 2026-02-17T08:00:00Z at 3x
// (half the 6x: $15 / $75 per MTok, $30 / $112.50 over 200k). Claude Code's
// fast-mode page at launch (code.claude.com/docs/en/fast-mode, Feb 2026, as
// mirrored; its Indonesian edition docs/id/fast-mode says the same): "Fast
// mode for Opus 4.6 pricing starts at $30/150 MTok. Fast mode is available
// at a 50% discount for all plans until 11:59pm PT on February 16." and
// "Available to all Claude Code users on subscription plans
// (Pro/Max/Team/Enterprise) and Claude Console". Also: ruvnet/ruflo ADR-047
// (2026-02-08) "50% discount available until Feb 16, 2026 11:59pm PT";
// Factory's changelog 0.57.9 (2026-02-07) "Opus 4.6 Fast Mode promo pricing"
// halving its multiplier. So:
//   - the discount is on the fast price, every rate of it (the page names
//     no exception): the multiplier is 3 instead of 6;
//   - 11:59pm PT on February 16 is PST (UTC-8), the promotion covering that
//     whole minute: it ends at 2026-02-17T08:00:00Z, exclusive;
//   - no start: fast mode began with the promotion (Claude Code 2.1.36
//     "Fast mode is now available for Opus 4.6"; Anthropic's SDKs on
//     2026-02-07 "enabling fast-mode in claude-opus-4-6"), so no fast
//     response is older than it;
//   - Opus 4.6 only, the only fast-mode model then (Opus 4.7 came in April).
// The API's own fast-mode page of the time names no discount; but only
// Claude Code's transcripts state a response's speed here
// (harnesses/claude-code/billing.ts), and its page counts Console (API key)
// users among "all plans". A response's timestamp is when Claude Code wrote
// it: one that ended in the promotion's last seconds may be billed either way.
// The promotion's prices sit beside the regular fast ones in a compiled price
// set, picked per response by its timestamp (engine.ts priceForSpeed).
import { parseDec } from './decimal.js';
import type { FastMode } from './engine.js';

/** Anthropic API model ids (the genai-prices entry a response matched) → fast-mode multiplier. */
const ANTHROPIC_FAST: Record<string, string> = {
  'claude-opus-4-6': '6',
  'claude-opus-4-7': '6',
  'claude-opus-4-8': '2',
  'claude-opus-5': '2',
};

/** A launch promotion: the multiplier for responses before `until` (exclusive, UTC), in place of the model's. */
const ANTHROPIC_FAST_PROMO: Record<string, { multiplier: string; until: string }> = {
  'claude-opus-4-6': { multiplier: '3', until: '2026-02-17T08:00:00Z' },
};

const SOURCE = "tx-usage fast-mode table (src/pricing/fast-mode.ts, from Anthropic's fast-mode pricing)";
const PROMO_SOURCE =
  "tx-usage fast-mode table (src/pricing/fast-mode.ts): Claude Code's launch promotion, 50% off fast mode until 11:59pm PT on 2026-02-16";

/** The fast-mode multiplier of the price-data entry `modelId` of provider `providerId` (and its launch promotion); null when none is known. */
export function fastModeOf(providerId: string, modelId: string): FastMode | null {
  if (providerId !== 'anthropic') return null;
  const m = ANTHROPIC_FAST[modelId];
  if (m === undefined) return null;
  const p = ANTHROPIC_FAST_PROMO[modelId];
  return {
    multiplier: parseDec(m)!,
    source: SOURCE,
    ...(p ? { promo: { multiplier: parseDec(p.multiplier)!, until: Date.parse(p.until), source: PROMO_SOURCE } } : {}),
  };
}
