// The rules that count a Pi usage object, by the carrier it sits in, as its
// README names them under "Rule names" (UsageEvent.rule; `tx-usage explain`).
// OpenClaw's transcripts are read by the same extractor.
export const RULE = {
  response: 'response',
  errored: 'errored response',
  aborted: 'aborted response',
  toolNested: 'tool nested usage',
  usageEntry: 'usage entry',
  compaction: 'compaction',
  branchSummary: 'branch_summary',
  noId: 'Entries without an id',
} as const;
