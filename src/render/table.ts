// Terminal tables: readable at 80 columns, wide when the terminal is wide.
// At 80 columns the numbers are abbreviated and the narrow column set shown;
// when names still do not fit, the least telling number columns are left out
// (and the table says so) before any name is cut, and a name that must be cut
// keeps its distinctive parts (`claude-…-4-5-20251001`, `…/src/webshop`).
// Notes under a table are wrapped to the width.
import { cellTexts } from './cells.js';
import type { Column, Dataset } from './columns.js';
import { printable } from './terminal-text.js';

export interface TableOptions {
  width: number;
  color: boolean;
  /** The user's home folder: a shared output (HTML) writes it as `~`. */
  home?: string;
}

const WIDE_AT = 120;
/** A name shorter than this is not cut while a droppable number column is left to drop. */
const READABLE_KEY = 24;

/**
 * `s` in `w` characters. `start`: its beginning (titles); `end`: its end
 * (paths); `ends`: its first and last characters (ids);
 * default: its first word with the separator after it, an ellipsis, and as
 * much of its tail as fits (or just the tail when the word takes more than
 * half the room, and for anything that looks like a path).
 */
export function cutText(s: string, w: number, keep?: 'end' | 'start' | 'ends', headless = false): string {
  if (s.length <= w) return s;
  if (w <= 1) return s.slice(0, w);
  if (keep === 'start') return s.slice(0, w - 1) + '…';
  if (keep === 'ends') {
    const head = Math.ceil((w - 1) / 2);
    return s.slice(0, head) + '…' + s.slice(s.length - (w - 1 - head));
  }
  const tail = (n: number) => (n > 0 ? s.slice(s.length - n) : '');
  if (keep === 'end' || /[\\/]/.test(s)) {
    // A path keeps whole folder names where that leaves most of the room used.
    const t = tail(w - 1);
    const at = t.search(/[\\/]/);
    return '…' + (at > 0 && t.length - at >= (w - 1) / 2 ? t.slice(at) : t);
  }
  if (headless) return '…' + tail(w - 1);
  const head = /^[^-_.:\s/\\]+[-_.:\s]/.exec(s)?.[0] ?? '';
  if (!head || head.length > Math.floor((w - 1) / 2)) return '…' + tail(w - 1);
  return head + '…' + tail(w - 1 - head.length);
}

/** Cuts a column's values to `w`, keeping different values different where a tail-only cut can. */
function cutColumn(values: string[], w: number, keep?: Column['keep']): string[] {
  const cut = values.map((v) => cutText(v, w, keep));
  const owners = new Map<string, Set<string>>();
  cut.forEach((c, i) => owners.set(c, (owners.get(c) ?? new Set()).add(values[i]!)));
  return cut.map((c, i) => (owners.get(c)!.size > 1 && !keep ? cutText(values[i]!, w, keep, true) : c));
}

/** Words of `text` in lines of at most `width` characters (a longer word gets its own line). */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

interface Layout {
  cols: Column[];
  cells: string[][];
  totals: string[] | null;
  widths: number[];
  sep: number;
  dropped: Column[];
}

function layout(d: Dataset, width: number): Layout {
  const wide = width >= WIDE_AT;
  // A column marked `table: false` is for CSV and HTML only.
  let cols = (wide ? d.columns : d.columns.filter((c) => c.narrow)).filter((c) => c.table !== false);
  const dropped: Column[] = [];
  for (;;) {
    const { rows, totals } = cellTexts(d, cols, wide ? 'wide' : 'narrow');
    const all = totals ? [...rows, totals] : rows;
    const widths = cols.map((c, i) => Math.max(c.label.length, ...all.map((t) => t[i]!.length)));
    // Keys that may be cut to fit (a period is always shown whole, like a number).
    const keyIdx = cols.map((c, i) => (c.kind === 'key' && !c.whole ? i : -1)).filter((i) => i >= 0);
    const sep = wide ? 2 : cols.length > 1 && widths.reduce((a, b) => a + b, 0) + 2 * (cols.length - 1) > width ? 1 : 2;
    const fixed = cols.reduce((n, c, i) => (c.kind === 'key' && !c.whole ? n : n + widths[i]!), 0) + sep * (cols.length - 1);
    const room = width - fixed;
    // What each name needs to stay readable: all of it, or READABLE_KEY.
    const need = keyIdx.reduce((n, i) => n + Math.min(widths[i]!, Math.max(READABLE_KEY, cols[i]!.label.length)), 0);
    const droppable = cols.filter((c) => c.drop !== undefined).sort((a, b) => a.drop! - b.drop!);
    if (!wide && keyIdx.length && room < need && droppable.length) {
      dropped.push(droppable[0]!);
      cols = cols.filter((c) => c !== droppable[0]);
      continue;
    }
    // Give the names what the numbers leave, each its share (a short one gives the rest to the others).
    const want = keyIdx.reduce((n, i) => n + widths[i]!, 0);
    if (keyIdx.length && want > room) {
      let left = Math.max(room, keyIdx.length * 8);
      const byWidth = [...keyIdx].sort((a, b) => widths[a]! - widths[b]!);
      byWidth.forEach((i, k) => {
        const share = Math.floor(left / (byWidth.length - k));
        widths[i] = Math.max(Math.min(widths[i]!, share), cols[i]!.label.length, 1);
        left -= widths[i]!;
      });
      const cutCols = new Map(keyIdx.map((i) => [i, cutColumn(all.map((t) => t[i]!), widths[i]!, cols[i]!.keep)]));
      all.forEach((t, r) => keyIdx.forEach((i) => (t[i] = cutCols.get(i)![r]!)));
    }
    return { cols, cells: rows, totals, widths, sep, dropped };
  }
}

export function renderTable(data: Dataset, o: TableOptions): string {
  // Headers (a `sql` column's name), the title and notes may carry data too;
  // the cells are made printable by cellTexts.
  const d: Dataset = {
    ...data,
    columns: data.columns.map((c) => ({ ...c, label: printable(c.label) })),
    ...(data.title !== undefined ? { title: printable(data.title) } : {}),
    ...(data.notes ? { notes: data.notes.map(printable) } : {}),
    ...(data.empty !== undefined ? { empty: printable(data.empty) } : {}),
  };
  const bold = (s: string) => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  const dim = (s: string) => (o.color ? `\x1b[2m${s}\x1b[22m` : s);
  if (!d.rows.length && d.empty !== undefined) {
    const lines = [...(d.title ? [bold(d.title)] : []), ...[d.empty, ...(d.notes ?? [])].flatMap((n) => wrapText(n, Math.max(20, o.width)).map(dim))];
    return lines.join('\n') + '\n';
  }
  const { cols, cells, totals, widths, sep, dropped } = layout(d, o.width);
  const line = (cells: string[]) =>
    cells
      .map((s, i) => {
        const c = cols[i]!;
        const v = s.length > widths[i]! ? cutText(s, widths[i]!, c.keep) : s;
        return c.kind === 'key' || c.kind === 'text' ? v.padEnd(widths[i]!) : v.padStart(widths[i]!);
      })
      .join(' '.repeat(sep))
      .trimEnd();
  const out: string[] = [];
  if (d.title) out.push(bold(d.title));
  out.push(bold(line(cols.map((c) => c.label))));
  const rule = dim('─'.repeat(Math.min(o.width, widths.reduce((a, b) => a + b, 0) + sep * (cols.length - 1))));
  out.push(rule);
  for (const t of cells) out.push(line(t));
  if (totals) {
    out.push(rule);
    out.push(bold(line(totals)));
  }
  if (!d.rows.length) out.push(dim('(no usage in this period)'));
  const notes = [...(d.notes ?? []), ...cols.flatMap((c) => (c.legend ? [c.legend] : []))];
  if (dropped.length) notes.push(`Not shown at this width: ${dropped.map((c) => c.label).join(', ')} (a wider terminal, --format csv or json show every column).`);
  for (const n of notes) for (const l of wrapText(n, Math.max(20, o.width))) out.push(dim(l));
  return out.join('\n') + '\n';
}
