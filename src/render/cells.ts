// How a cell reads, for the terminal table and the HTML tables alike: one
// formatter per column (money by the one rule of render/format.ts usd),
// marking amounts that cover only the priced responses.
import type { Cell, Column, DataRow, Dataset } from './columns.js';
import { abbreviate, grouped, pct, usd } from './format.js';
import { localDateTime } from '../report/period.js';
import { printable } from './terminal-text.js';

/** narrow: the 80-column terminal table (abbreviated numbers); wide: a wide terminal; html: the HTML page. */
export type CellStyle = 'narrow' | 'wide' | 'html';

export type CellFormatter = (row: DataRow) => string;

/** A cell without a value: a key nobody recorded, or an unknown number. */
export const NONE_KEY = '(none)';
export const UNKNOWN = '—';

/** True when the row's amount in this column covers only its priced responses. */
export function isPartial(c: Column, row: DataRow): boolean {
  return !!c.partial && c.partial.by.some((f) => row[f] === 'partial');
}

/** The mark of a figure that rests (in part) on session totals (Column.grainMark, grainNote). */
export const GRAIN_MARK = '†';

/** True when the row's figure in this column rests in part on session totals. */
export function restsOnSessionTotals(c: Column, row: DataRow): boolean {
  return c.grainMark !== undefined && Number(row[c.grainMark] ?? 0) > 0;
}

/** A money column of figures per unit of work (Column.perUnit; by default a `…per_…` field). */
export const isPerUnit = (c: Column): boolean => c.perUnit ?? /(^|_)per_/.test(c.field);

export function columnFormatter(
  c: Column,
  rows: readonly DataRow[],
  style: CellStyle,
  timezone = 'UTC',
): CellFormatter {
  if (c.grainMark !== undefined) {
    const f = unmarkedFormatter(c, rows, style, timezone);
    return (r) => {
      const text = f(r);
      return text && restsOnSessionTotals(c, r) ? `${text}${GRAIN_MARK}` : text;
    };
  }
  return unmarkedFormatter(c, rows, style, timezone);
}

function unmarkedFormatter(c: Column, rows: readonly DataRow[], style: CellStyle, timezone: string): CellFormatter {
  if (c.blankUnless === undefined) return valueFormatter(c, rows, style, timezone);
  const shown = rows.filter((r) => r[c.blankUnless!]);
  const f = valueFormatter(c, shown, style, timezone);
  return (r) => (r[c.blankUnless!] ? f(r) : '');
}

function valueFormatter(c: Column, rows: readonly DataRow[], style: CellStyle, timezone: string): CellFormatter {
  const wide = style !== 'narrow';
  switch (c.kind) {
    case 'usd': {
      const money = { perUnit: isPerUnit(c), signed: c.signed };
      return (r) => {
        const v = r[c.field];
        if (v === null || v === undefined) return c.none ?? UNKNOWN;
        const text = usd(Number(v), wide, money);
        if (!isPartial(c, r)) return text;
        return c.partial!.bound ? `≥${text}*` : `${text}*`;
      };
    }
    case 'time':
      return (r) => {
        const v = r[c.field];
        return v === null || v === undefined ? (c.none ?? UNKNOWN) : localDateTime(String(v), timezone);
      };
    default:
      return (r) => formatValue(c, r[c.field], style);
  }
}

function formatValue(c: Column, v: Cell, style: CellStyle): string {
  if (v === null || v === undefined) return c.none ?? (c.kind === 'key' ? NONE_KEY : UNKNOWN);
  const n = Number(v);
  switch (c.kind) {
    case 'int':
      return style === 'narrow' ? abbreviate(n) : grouped(n);
    case 'usd':
      return usd(n, style !== 'narrow', { perUnit: isPerUnit(c), signed: c.signed });
    case 'pct':
      return pct(n, c.signed);
    case 'ratio':
      return style === 'narrow' ? abbreviate(n) : n.toFixed(2);
    case 'key':
    case 'text':
    case 'time':
      return String(v);
    default:
      return c.kind satisfies never;
  }
}

/**
 * Every cell's text, rows then the totals row: the totals row says `Total` in
 * its first key column and leaves the other key columns empty. Control
 * characters from the data are made visible here (terminal-text.ts), before
 * a table cuts any cell to its width.
 */
export function cellTexts(
  d: Dataset,
  cols: readonly Column[],
  style: CellStyle,
): { rows: string[][]; totals: string[] | null } {
  const all = d.totals ? [...d.rows, d.totals] : d.rows;
  const fmts = cols.map((c) => {
    const f = columnFormatter(c, all, style, d.timezone);
    return (r: DataRow) => printable(f(r));
  });
  const rows = d.rows.map((r) => fmts.map((f) => f(r)));
  if (!d.totals) return { rows, totals: null };
  const firstKey = cols.findIndex((c) => c.kind === 'key');
  const totals = cols.map((c, i) => (c.kind === 'key' ? (i === firstKey ? 'Total' : '') : fmts[i]!(d.totals!)));
  return { rows, totals };
}

/**
 * The line said under a table whose amounts leave responses out, or null.
 * `unpriced` / `tokens`: the responses (requests) and tokens without a price.
 */
export function unpricedNote(unpriced: number, tokens: number): string | null {
  if (unpriced <= 0 && tokens <= 0) return null;
  const what =
    unpriced > 0
      ? `${grouped(unpriced)} response${unpriced === 1 ? ' (' + grouped(tokens) + ' tokens) has' : 's (' + grouped(tokens) + ' tokens) have'}`
      : `${grouped(tokens)} tokens have`;
  return `* ${what} no price: amounts marked * cover only the priced responses (≥: at least that much). The warnings name the models.`;
}

/**
 * The line said under a table whose figures rest in part on session totals
 * (marked †), or null. `tokens`: the tokens of such rows in the table.
 */
export function grainNote(tokens: number): string | null {
  if (tokens <= 0) return null;
  return `${GRAIN_MARK} includes ${grouped(tokens)} tokens its harnesses record as session totals, not per response: each total is placed at its session's last activity (the harness's README says how), and the live views (blocks, limits, budgets) leave them out.`;
}
