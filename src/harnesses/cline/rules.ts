// The rules that count a Cline request, by the names its README states under
// "Rule names" (UsageEvent.rule; `tx-usage explain`). Roo Code's and Kilo
// Code's task files are read by the same reader (classic.ts).
export const RULE = {
  request: 'api request',
  deletedSum: 'deleted requests (sum)',
  subagentSum: 'subagent usage (sum)',
  condense: 'context condense',
  kept: 'kept from an earlier read',
  sdkCall: 'sdk model call',
} as const;

/** The rules of the task files all three extensions write (classic.ts). */
export const CLASSIC_RULES = [RULE.request, RULE.deletedSum, RULE.subagentSum, RULE.condense, RULE.kept] as const;
