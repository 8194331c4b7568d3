// The rules that count an OpenCode response, by the names its README states
// under "Rule names" (UsageEvent.rule; `tx-usage explain`). Kilo Code's
// kilo.db is read by the same reader.
export const RULE = {
  assistant: 'assistant rows',
  compaction: 'compaction rows',
  residual: 'Residual (session totals)',
  stepFinish: '1.x step-finish part',
  message1x: '1.x message usage',
  fork1x: 'Forks (1.x)',
  zeroCost: 'Recorded cost of zero',
} as const;
