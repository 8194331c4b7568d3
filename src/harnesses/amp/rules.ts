// The rules that count an Amp inference, by the names its README states under
// "Rule names" (UsageEvent.rule; `tx-usage explain`).
export const RULE = {
  ledger: 'usageLedger event',
  ledgerCreated: 'usageLedger event; time from the thread created',
  message: 'assistant message usage (not in the ledger)',
  messageCreated: 'assistant message usage (not in the ledger); time from the thread created',
} as const;
