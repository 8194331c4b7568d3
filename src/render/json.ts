// JSON output: the report object as is, pretty-printed, newline-terminated.
export function renderJson(report: unknown): string {
  return JSON.stringify(report, null, 2) + '\n';
}
