// The names of the rules (README "Rule names") that count a Codex response,
// as `tx-usage explain` shows them (UsageEvent.rule).
export const RULE = {
  record: 'token_usage_record',
  tokenCount: 'event_msg token_count',
  restart: 'Totals that go down',
  autoCompaction: 'Auto-compaction request',
  copied: 'Lineage: copied history',
} as const;
