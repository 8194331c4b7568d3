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
// Not modelled: the launch promotion (50% off fast mode until 2026-02-16,
// Claude Code's fast-mode page); responses of those days are priced at 6x.
import { parseDec } from './decimal.js';
import type { FastMode } from './engine.js';

/** Anthropic API model ids (the genai-prices entry a response matched) → fast-mode multiplier. */
const ANTHROPIC_FAST: Record<string, string> = {
  'claude-opus-4-6': '6',
  'claude-opus-4-7': '6',
  'claude-opus-4-8': '2',
  'claude-opus-5': '2',
};

const SOURCE = 'tx-usage fast-mode table (src/pricing/fast-mode.ts, from Anthropic\'s fast-mode pricing)';

/** The fast-mode multiplier of the price-data entry `modelId` of provider `providerId`; null when none is known. */
export function fastModeOf(providerId: string, modelId: string): FastMode | null {
  if (providerId !== 'anthropic') return null;
  const m = ANTHROPIC_FAST[modelId];
  return m === undefined ? null : { multiplier: parseDec(m)!, source: SOURCE };
}
