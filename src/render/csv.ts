// RFC 4180 CSV with spreadsheet-formula neutralization: a text cell that
// begins with = + - @ (or a tab/CR) is prefixed with ' so that a project
// named "=HYPERLINK(...)" is shown as text, not evaluated.
import type { Dataset } from './columns.js';

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function renderCsv(d: Dataset): string {
  const columns = [...d.columns.filter((c) => !c.csvLast), ...d.columns.filter((c) => c.csvLast)];
  const lines = [columns.map((c) => cell(c.field)).join(',')];
  for (const r of d.rows) lines.push(columns.map((c) => cell(r[c.field])).join(','));
  return lines.join('\r\n') + '\r\n';
}
