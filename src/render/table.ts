// Terminal tables: readable at 80 columns (abbreviated numbers, the narrow
// column set, long keys shortened), wide when the terminal is wide.
import type { Cell, Column, Dataset } from './columns.js';
import { abbreviate, grouped, pct, usd } from './format.js';

export interface TableOptions {
  width: number;
  color: boolean;
}

const WIDE_AT = 120;

function fmt(c: Column, v: Cell, wide: boolean): string {
  if (v === null || v === undefined) return c.kind === 'key' ? '(none)' : '—';
  switch (c.kind) {
    case 'int':
      return wide ? grouped(Number(v)) : abbreviate(Number(v));
    case 'usd':
      return usd(Number(v), wide);
    case 'pct':
      return pct(Number(v));
    case 'ratio':
      return wide ? Number(v).toFixed(2) : abbreviate(Number(v));
    case 'key':
    case 'text':
      return String(v);
    default:
      return c.kind satisfies never;
  }
}

/** Shortens a cell, keeping the informative end of a path and the start of anything else (ids, model names). */
function fit(s: string, w: number, keep?: 'end' | 'start'): string {
  if (s.length <= w) return s;
  keep ??= /[\\/]/.test(s) ? 'end' : 'start';
  if (w <= 1) return s.slice(0, w);
  return keep === 'start' ? s.slice(0, w - 1) + '…' : '…' + s.slice(s.length - (w - 1));
}

export function renderTable(d: Dataset, o: TableOptions): string {
  const wide = o.width >= WIDE_AT;
  const cols = (wide ? d.columns : d.columns.filter((c) => c.narrow)).filter((c) => c.table !== false);
  const all = d.totals ? [...d.rows, d.totals] : d.rows;
  const text = all.map((r) => cols.map((c) => fmt(c, r[c.field], wide)));
  const widths = cols.map((c, i) => Math.max(c.label.length, ...text.map((t) => t[i]!.length)));
  // Give key columns what the metric columns leave of the terminal width.
  const sep = 2;
  const fixed = cols.reduce((n, c, i) => (c.kind === 'key' ? n : n + widths[i]!), 0) + sep * (cols.length - 1);
  const keyIdx = cols.map((c, i) => (c.kind === 'key' ? i : -1)).filter((i) => i >= 0);
  const room = o.width - fixed;
  if (keyIdx.length && room > 0) {
    const want = keyIdx.reduce((n, i) => n + widths[i]!, 0);
    if (want > room) {
      const each = Math.max(8, Math.floor(room / keyIdx.length));
      for (const i of keyIdx) widths[i] = Math.min(widths[i]!, Math.max(each, cols[i]!.label.length));
    }
  }
  const bold = (s: string) => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  const dim = (s: string) => (o.color ? `\x1b[2m${s}\x1b[22m` : s);
  const line = (cells: string[]) =>
    cells
      .map((s, i) => {
        const c = cols[i]!;
        const v = fit(s, widths[i]!, c.keep);
        return c.kind === 'key' || c.kind === 'text' ? v.padEnd(widths[i]!) : v.padStart(widths[i]!);
      })
      .join(' '.repeat(sep))
      .trimEnd();
  const out: string[] = [];
  if (d.title) out.push(bold(d.title));
  out.push(bold(line(cols.map((c) => c.label))));
  const rule = dim('─'.repeat(Math.min(o.width, widths.reduce((a, b) => a + b, 0) + sep * (cols.length - 1))));
  out.push(rule);
  for (const t of text.slice(0, d.rows.length)) out.push(line(t));
  if (d.totals) {
    out.push(rule);
    const t = text[text.length - 1]!;
    if (keyIdx.length) t[keyIdx[0]!] = 'Total';
    out.push(bold(line(t)));
  }
  if (!d.rows.length) out.push(dim('(no usage in this period)'));
  for (const n of d.notes ?? []) out.push(dim(n));
  return out.join('\n') + '\n';
}
