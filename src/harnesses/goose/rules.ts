// The rules that count goose usage, by the names its README states under
// "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  call: 'usage_ledger row',
  carried: 'carried_forward ledger row',
  accumulated: 'accumulated totals beyond the ledger',
} as const;
