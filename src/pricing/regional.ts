// Regional pricing of Claude models (README "Regional pricing"): a response
// served under data residency, or by an in-region / geographic Bedrock
// endpoint, is billed 1.1× every rate of the list (global) price.
//
// - Anthropic's API: `usage.inference_geo` is where the response was served.
//   "us" (US-only inference, per request or a workspace's
//   `default_inference_geo`) bills 1.1× every token category (Anthropic's
//   pricing page, "Data residency pricing"; anthropics/claude-code#60641,
//   #92751; litellm#38369). "global" and "not_available" (models without
//   data residency) are list price, never an unknown. The harness states it
//   as the response's billing category, `inference_geo:<value>`
//   (UsageEvent.billing_kind), which the store keeps so a price change
//   re-prices it.
// - Amazon Bedrock: `us.` `eu.` `jp.` `au.` `apac.` … inference profiles and
//   bare in-region ids (`anthropic.claude-…`) bill 1.1× the `global.` price
//   (claude-code#83690, AWS's two Claude price tables). The price data lists
//   those ids as `regional.*` entries at that rate already; a name of that
//   kind priced from any other entry (a global or first-party list price)
//   gets the 1.1× here.
// Both the pricer and its exported cache price through costAtTier
// (service-tier.ts), so the status line applies the same multiple.
import type { CompiledPrice } from './engine.js';

/** billing_kind of a response served under data residency: `inference_geo:<geo>`. */
export const GEO_KIND_PREFIX = 'inference_geo:';

/** `usage.inference_geo` values billed at the list price. */
const LIST_PRICE_GEOS = new Set(['global', 'not_available', '']);

/**
 * The billing_kind an `inference_geo` value states: null for list price
 * ("global", "not_available", absent), else `inference_geo:<geo>` ("us";
 * any other region a later API may name is data residency too, and billed
 * as such: 1.1×).
 */
export function geoBillingKind(geo: unknown): string | null {
  if (typeof geo !== 'string') return null;
  const g = geo.trim().toLowerCase();
  if (LIST_PRICE_GEOS.has(g) || !/^[a-z0-9_-]{1,32}$/.test(g)) return null;
  return `${GEO_KIND_PREFIX}${g}`;
}

/** A Bedrock Claude id served in a region or geography (`us.anthropic.claude-…`, or a bare `anthropic.claude-…`); `global.` is not. */
const BEDROCK_IN_REGION = /^(?:[a-z]{2,4}(?:-[a-z]+)?\.)?anthropic\.claude/i;

function isBedrockInRegion(model: string): boolean {
  const name = model.slice(model.lastIndexOf('/') + 1);
  return !/^global\./i.test(name) && BEDROCK_IN_REGION.test(name);
}

/** The price entry already is an in-region / geographic price (the data's AWS `regional.*` entries; an override prices as given). */
export function isRegionalEntry(providerId: string, modelId: string): boolean {
  return providerId === 'aws' && /^regional\./i.test(modelId);
}

/** Why a response costs 1.1× its price entry, or null when it does not. */
export function regionalReason(
  u: { billing_kind?: string | null; model: string | null },
  c: Pick<CompiledPrice, 'regional'>,
): 'inference_geo' | 'bedrock' | null {
  if (u.billing_kind?.startsWith(GEO_KIND_PREFIX)) return 'inference_geo';
  if (u.model !== null && !c.regional && isBedrockInRegion(u.model)) return 'bedrock';
  return null;
}

/** 1.1× a cost in 1e-10 USD units, rounded half up (a response's cost is rounded once more, as the engine rounds). */
export function regionalCost(units: bigint): bigint {
  return (units * 11n + 5n) / 10n;
}

/**
 * What `prices show` says about regional prices for a Claude model (empty
 * for any other): the data-residency multiple, how a Bedrock id is priced,
 * and Vertex AI, whose endpoint no transcript records.
 */
export function regionalNotes(model: string, c: Pick<CompiledPrice, 'regional'> | null): string[] {
  if (!/claude/i.test(model)) return [];
  const name = model.slice(model.lastIndexOf('/') + 1);
  if (/^global\.anthropic\./i.test(name))
    return ['Bedrock global. profile: the list price (in-region and geographic profiles bill 1.1× it)'];
  if (isBedrockInRegion(model)) {
    return [
      c?.regional
        ? 'Bedrock in-region / geographic id: priced at the in-region rate (1.1× the global. price)'
        : 'Bedrock in-region / geographic id priced from a list entry: 1.1× applied (the global. profile is the list price)',
    ];
  }
  return [
    'data residency: a response whose usage.inference_geo is "us" (or another region) is billed 1.1× every rate; "global" and "not_available" are the list price',
    'Vertex AI: regional and multi-region endpoints bill 1.1× since 2026-07; transcripts do not record the endpoint, so Claude on Vertex is priced at the global (list) rate',
  ];
}
