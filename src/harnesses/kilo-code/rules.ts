// The rules that count a Kilo Code response, by the names its README states
// under "Rule names" (UsageEvent.rule; `tx-usage explain`): the legacy
// extension's task files by Cline's reader, kilo.db by OpenCode's.
export const RULE = {
  dbMessage: "OpenCode's reader: message",
  dbResidual: "OpenCode's reader: session residual",
  dbFork: "OpenCode's reader: Forks (1.x)",
} as const;
