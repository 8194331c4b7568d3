// The rule that counts a Cursor response, by the name its README states under
// "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  csvRow: 'One row = one usage event',
} as const;
