// The rules that count a CodeBuddy model call, by the names its README states
// under "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  call: 'model call line',
} as const;
