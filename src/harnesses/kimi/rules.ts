// The rules that count a Kimi call, by the names its README states under
// "Rule names" (UsageEvent.rule; `tx-usage explain`). kimi-cli writes no
// model per call: each of its rule names says where the model was taken from.
export const RULE = {
  stepMeta: "StatusUpdate; model from the sub-agent's meta.json",
  stepToml: 'StatusUpdate; model from config.toml',
  stepJson: 'StatusUpdate; model from config.json',
  stepDefault: 'StatusUpdate; model kimi-for-coding (none configured)',
  wrappedMeta: "SubagentEvent StatusUpdate; model from the sub-agent's meta.json",
  wrappedToml: 'SubagentEvent StatusUpdate; model from config.toml',
  wrappedJson: 'SubagentEvent StatusUpdate; model from config.json',
  wrappedDefault: 'SubagentEvent StatusUpdate; model kimi-for-coding (none configured)',
  recordAlias: 'usage.record; model from the llm.request of its alias',
  recordPreceding: 'usage.record; model from the preceding llm.request',
  recordAliasOnly: 'usage.record; model is its alias (no llm.request)',
} as const;
