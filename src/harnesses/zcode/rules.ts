// The rules that count a ZCode request, by the names its README states under
// "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  request: 'model_usage row',
} as const;
