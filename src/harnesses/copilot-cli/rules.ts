// The rules that count a GitHub Copilot CLI call, by the names its README
// states under "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  call: 'assistant_usage_events row',
} as const;
