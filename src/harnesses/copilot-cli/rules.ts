// The rules that count a GitHub Copilot CLI call, by the names its README
// states under "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  call: 'assistant_usage_events row',
  shutdownLeg: 'session.shutdown of one leg',
  shutdownCumulative: 'session.shutdown, less the summary before',
} as const;

/** The events.jsonl lines read (only where no session-store.db exists): summaries and what resets them. */
export const SHUTDOWN_MARKERS = [
  '"session.shutdown"',
  '"session.compaction_complete"',
  '"session.start"',
  '"session.resume"',
] as const;
