// Priority processing: OpenAI's `service_tier: "priority"` (Codex's "Fast
// mode"; "fast" is its legacy spelling), which a harness states per response
// as its billing category (UsageEvent.billing_kind = 'priority'; Codex:
// thread_settings_applied.thread_settings.service_tier). The bundled price
// data has no priority rates, so they are a multiple of the standard rate per
// model family, where one is known; elsewhere the cost is unknown (null, named
// in the report's warnings), never the standard rate in silence.
//
// Evidence (src/pricing/README.md, "Priority processing"): the GPT-5 family
// bills priority at 2x the standard rate (OpenAI's Codex docs: Fast mode
// costs 2x; ccusage#996 applies the same 2x to Codex when its data lacks a
// priority rate). Smaller variants (-mini, -nano) have priority rates that
// are not 2x and are not in the data: unknown.

import { costOf, type CompiledPrice, type EngineUsage } from './engine.js';
import { regionalCost, regionalReason } from './regional.js';

/** A billing_kind that prices at a tier rate; other kinds (e.g. Cursor's "Included") are not price tiers. */
export const PRIORITY = 'priority';

/** Families with a known priority multiple: [test on the model name (provider prefix peeled, lower case), multiple]. */
const PRIORITY_MULTIPLES: [RegExp, bigint][] = [[/^(?!.*-(?:mini|nano)(?:-|$))gpt-5(?:[.-]|$)/, 2n]];

/**
 * The multiple of the standard cost a response of `billingKind` is billed at:
 * 1n when it is no price tier, null when the tier's price is unknown for the model.
 */
export function tierMultiple(billingKind: string | null | undefined, model: string): bigint | null {
  if (billingKind !== PRIORITY) return 1n;
  const name = model.toLowerCase().replace(/^.*\//, '');
  for (const [test, multiple] of PRIORITY_MULTIPLES) if (test.test(name)) return multiple;
  return null;
}

/** A response's standard cost (1e-10 USD units) at its billing tier: null when that tier's price is unknown. */
export function atTier(units: bigint, u: { billing_kind?: string | null; model: string | null }): bigint | null {
  if (u.billing_kind !== PRIORITY) return units;
  const multiple = u.model === null ? null : tierMultiple(u.billing_kind, u.model);
  return multiple === null ? null : units * multiple;
}

/**
 * A response's cost (1e-10 USD units) under `c`: at its speed (fast mode,
 * engine.ts costOf) and its billing tier; null where either price is unknown.
 * The pricer and its cache (cache.ts) both price through here.
 */
export function costAtTier(
  c: CompiledPrice,
  u: EngineUsage & { billing_kind?: string | null; model: string | null },
): bigint | null {
  const units = costOf(c, u);
  const tiered = units === null ? null : atTier(units, u);
  // Data residency and in-region Bedrock endpoints: 1.1× (regional.ts).
  return tiered !== null && regionalReason(u, c) ? regionalCost(tiered) : tiered;
}
