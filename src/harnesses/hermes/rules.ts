// The rules that count Hermes Agent usage, by the names its README states
// under "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  session: 'sessions counters',
  aux: 'auxiliary session_model_usage row',
} as const;
