// The rules that count a Grok Build turn, by the names its README states under
// "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  modelUsage: 'turn_completed modelUsage (per prompt and model)',
  flat: 'turn_completed usage without modelUsage (model from summary.json)',
} as const;
