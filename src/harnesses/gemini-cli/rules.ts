// The rules that count a Gemini CLI response, by the names its README states
// under "Rule names" (UsageEvent.rule; `tx-usage explain`). Qwen Code's legacy
// files are read by the same counter (legacy.ts).
export const RULE = {
  message: 'message tokens',
  legacy: 'legacy conversation file',
  checkpoint: '$set checkpoints',
} as const;
