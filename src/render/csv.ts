// RFC 4180 CSV with spreadsheet-formula neutralization: a text cell that
// begins with = + - @ (or a tab/CR) is prefixed with ' so that a project
// named "=HYPERLINK(...)" is shown as text, not evaluated. CSV is printed to
// a terminal as often as to a file: control characters in text cells are
// made visible as in tables (terminal-text.ts; JSON keeps them, escaped).
import type { Dataset } from './columns.js';
import { printable } from './terminal-text.js';

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'string' ? printable(v) : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function renderCsv(d: Dataset): string {
  const columns = [...d.columns.filter((c) => !c.csvLast), ...d.columns.filter((c) => c.csvLast)];
  const lines = [columns.map((c) => cell(c.field)).join(',')];
  for (const r of d.rows) lines.push(columns.map((c) => cell(r[c.field])).join(','));
  return lines.join('\r\n') + '\r\n';
}
