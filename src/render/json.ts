// JSON output: the report object as is, pretty-printed, newline-terminated;
// characters a terminal would act on are written as \u escapes (terminal-text.ts).
import { terminalSafeJson } from './terminal-text.js';

export function renderJson(report: unknown): string {
  return terminalSafeJson(JSON.stringify(report, null, 2)) + '\n';
}
