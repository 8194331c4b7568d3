// The rules that count an Antigravity generation, by the names its README
// states under "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  generation: 'gen_metadata row',
  kept: 'kept after pruning',
} as const;
