// The rules that count a Factory Droid session, by the names its README
// states under "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  tokenUsage: 'tokenUsage snapshot',
  inclusiveOnly: 'inclusiveTokenUsage without children',
  tokenUsageTranscriptModel: 'tokenUsage snapshot; model from the transcript',
  inclusiveOnlyTranscriptModel: 'inclusiveTokenUsage without children; model from the transcript',
} as const;

/** The transcript lines read: those with a time, and the session's first line (its cwd and title). */
export const DROID_MARKERS = ['"timestamp"', '"session_start"'] as const;
