// RFC 4180 CSV with spreadsheet-formula neutralization: a text cell that
// begins with = + - @ (or a tab/CR) is prefixed with ' so that a project
// named "=HYPERLINK(...)" is shown as text, not evaluated. CSV is printed to
// a terminal as often as to a file: control characters in text cells are
// made visible as in tables (terminal-text.ts; JSON keeps them, escaped).
import type { Column, Dataset } from './columns.js';
import { csvUsd } from './format.js';
import { printable } from './terminal-text.js';

function cell(v: unknown, c?: Column): string {
  if (v === null || v === undefined) return '';
  // Money with the decimals it has, not a double's noise (format.ts csvUsd).
  if (c?.kind === 'usd' && typeof v === 'number') return csvUsd(v);
  let s = typeof v === 'string' ? printable(v) : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function renderCsv(d: Dataset): string {
  const columns = [...d.columns.filter((c) => !c.csvLast), ...d.columns.filter((c) => c.csvLast)];
  const lines = [columns.map((c) => cell(c.field)).join(',')];
  for (const r of d.rows) lines.push(columns.map((c) => cell(r[c.field], c)).join(','));
  return lines.join('\r\n') + '\r\n';
}
