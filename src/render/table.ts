// Terminal tables: never wider than the terminal, as wide as it allows.
// The layout is the widest whose width, measured from the cells, fits with
// every name whole: every column (grouped numbers) on a wide terminal, then
// the wide-only columns leaving one by one, then the narrow column set with
// abbreviated numbers (at 80 columns or fewer, and in a pipe, always that
// one, as README shows it). No fixed column threshold: the layout is chosen
// by its measured width, so a 120-column terminal never gets a 131-column
// table with names cut. When names still do not fit, the least telling number columns
// are left out (and the table says so) before any name is cut, and a name
// that must be cut keeps its distinctive parts (`claude-…-4-5-20251001`,
// `…/src/webshop`). The title and notes are wrapped to the width.
import { cellTexts } from './cells.js';
import type { Column, Dataset } from './columns.js';
import { printable } from './terminal-text.js';

export interface TableOptions {
  width: number;
  color: boolean;
  /** The user's home folder: a shared output (HTML) writes it as `~`. */
  home?: string;
  /**
   * Ids (`keep: 'ends'` keys: session ids, `explain`'s file:line) never cut:
   * output piped or written to a file is read by programs and copied from,
   * where a cut id is no id (issue 44); a terminal's table may still cut them.
   */
  wholeIds?: boolean;
}

/** At this width or less, the narrow set with abbreviated numbers (the 80-column table, a pipe's). */
const NARROW_AT = 80;
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

/** `text` in lines of at most `width` characters: at spaces, a longer word split where it must. */
function wrapHard(text: string, width: number): string[] {
  return wrapText(text, width).flatMap((l) =>
    l.length <= width
      ? [l]
      : Array.from({ length: Math.ceil(l.length / width) }, (_, k) => l.slice(k * width, (k + 1) * width)),
  );
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

/** One way to lay the table out: its columns, how numbers read, the space between columns. */
interface Step {
  cols: Column[];
  style: 'wide' | 'narrow';
  sep: number;
}

/** A step's cells and each column's natural width (every cell whole). */
function measure(d: Dataset, s: Step) {
  const { rows, totals } = cellTexts(d, s.cols, s.style);
  const all = totals ? [...rows, totals] : rows;
  const widths = s.cols.map((c, i) => all.reduce((w, t) => Math.max(w, t[i]!.length), c.label.length));
  return { rows, totals, all, widths };
}

/**
 * Each column's natural width in each style, its cells formatted once (a
 * column's cells do not depend on the others beside it): the layouts tried
 * are measured without formatting a large table once per layout.
 */
function widthsOf(d: Dataset, shown: Column[]): (s: Step) => number[] {
  const known = new Map<string, Map<Column, number>>();
  return (s) => {
    let m = known.get(s.style);
    if (!m) {
      const w = measure(d, { ...s, cols: s.style === 'wide' ? shown : shown.filter((c) => c.narrow) }).widths;
      m = new Map((s.style === 'wide' ? shown : shown.filter((c) => c.narrow)).map((c, i) => [c, w[i]!]));
      known.set(s.style, m);
    }
    return s.cols.map((c) => m.get(c)!);
  };
}

/** Keys that may be cut to fit (a period is always shown whole, like a number). */
const cuttable = (c: Column) => c.kind === 'key' && !c.whole;

/**
 * The layouts tried before any `drop` column leaves, widest first: every
 * column; then the wide-only columns leaving one by one (lowest `wideDrop`
 * first, then from the right); then the narrow set with abbreviated
 * numbers (the 80-column table); then with one space between columns.
 */
function steps(d: Dataset, width: number): Step[] {
  const shown = d.columns.filter((c) => c.table !== false);
  const narrow = shown.filter((c) => c.narrow);
  const narrowSteps: Step[] = [
    { cols: narrow, style: 'narrow', sep: 2 },
    { cols: narrow, style: 'narrow', sep: 1 },
  ];
  // 80 columns (and a pipe) read as README documents them, whatever fits: scripts and tests read them.
  if (width <= NARROW_AT && narrow.length) return narrowSteps;
  const rank = (c: Column) => c.wideDrop ?? Number.POSITIVE_INFINITY;
  const order = shown
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => !c.narrow)
    .sort((a, b) => rank(a.c) - rank(b.c) || b.i - a.i)
    .map(({ c }) => c);
  const out: Step[] = [];
  let cols = shown;
  out.push({ cols, style: 'wide', sep: 2 });
  // The last wide-only column leaves with the grouped numbers: the narrow set reads as at 80 columns.
  for (const c of order.slice(0, -1)) {
    cols = cols.filter((x) => x !== c);
    out.push({ cols, style: 'wide', sep: 2 });
  }
  if (narrow.length) out.push(...narrowSteps);
  return out;
}

/** Widths `want` cut to share `room` (at least `floor` each), each its share: a short one gives the rest to the others. */
function share(want: number[], room: number, floor: number[]): number[] {
  const out = [...want];
  let left = room;
  const byWidth = want.map((_, k) => k).sort((a, b) => want[a]! - want[b]!);
  byWidth.forEach((k, n) => {
    const part = Math.floor(left / (byWidth.length - n));
    out[k] = Math.max(Math.min(want[k]!, part), floor[k]!, 1);
    left -= out[k]!;
  });
  return out;
}

function cutCells(all: string[][], cols: Column[], widths: number[], idx: number[]): void {
  // A wrapped column keeps its whole text: renderTable puts it on as many lines as it takes.
  idx = idx.filter((i) => !cols[i]!.wrap);
  const cut = new Map(
    idx.map((i) => [
      i,
      cutColumn(
        all.map((t) => t[i]!),
        widths[i]!,
        cols[i]!.keep,
      ),
    ]),
  );
  all.forEach((t, r) => idx.forEach((i) => (t[i] = cut.get(i)![r]!)));
}

/**
 * The widest layout whose rendered width, measured from the data, fits
 * `width` with every key whole (a `flex` key, a title, may be cut to
 * READABLE_KEY: it gets what the others leave). Only when none does: the
 * narrow set, `drop` columns leaving until the names have READABLE_KEY
 * each, and the names sharing what the numbers leave.
 */
function layout(d: Dataset, width: number): Layout {
  const tried = steps(d, width);
  const sized = widthsOf(
    d,
    d.columns.filter((c) => c.table !== false),
  );
  for (const s of tried) {
    const flex = s.cols.map((c, i) => (cuttable(c) && c.flex ? i : -1)).filter((i) => i >= 0);
    const least = sized(s).map((w, i) =>
      flex.includes(i) ? Math.min(w, Math.max(READABLE_KEY, s.cols[i]!.label.length)) : w,
    );
    const seps = s.sep * (s.cols.length - 1);
    if (least.reduce((a, b) => a + b, 0) + seps > width) continue;
    // This one fits: its cells, measured again as they will be shown.
    const { rows, totals, all, widths } = measure(d, s);
    if (widths.reduce((a, b) => a + b, 0) + seps > width) {
      // Titles take what the whole columns leave.
      const room = width - seps - widths.reduce((n, w, i) => (flex.includes(i) ? n : n + w), 0);
      const got = share(
        flex.map((i) => widths[i]!),
        room,
        flex.map((i) => least[i]!),
      );
      flex.forEach((i, k) => (widths[i] = got[k]!));
      cutCells(all, s.cols, widths, flex);
    }
    return { cols: s.cols, cells: rows, totals, widths, sep: s.sep, dropped: [] };
  }
  let cols = tried.at(-1)!.cols;
  const dropped: Column[] = [];
  for (;;) {
    const { rows, totals, all, widths } = measure(d, { cols, style: 'narrow', sep: 1 });
    const keyIdx = cols.map((c, i) => (cuttable(c) ? i : -1)).filter((i) => i >= 0);
    const sep = cols.length > 1 && widths.reduce((a, b) => a + b, 0) + 2 * (cols.length - 1) > width ? 1 : 2;
    const fixed = cols.reduce((n, c, i) => (cuttable(c) ? n : n + widths[i]!), 0) + sep * (cols.length - 1);
    const room = width - fixed;
    // What each name needs to stay readable: all of it, or READABLE_KEY.
    const need = keyIdx.reduce((n, i) => n + Math.min(widths[i]!, Math.max(READABLE_KEY, cols[i]!.label.length)), 0);
    const droppable = cols.filter((c) => c.drop !== undefined).sort((a, b) => a.drop! - b.drop!);
    if (keyIdx.length && room < need && droppable.length) {
      dropped.push(droppable[0]!);
      cols = cols.filter((c) => c !== droppable[0]);
      continue;
    }
    // Give the names what the numbers leave, each its share (a short one gives the rest to the others).
    const want = keyIdx.reduce((n, i) => n + widths[i]!, 0);
    if (keyIdx.length && want > room) {
      // A title yields first: the other names stay whole when that leaves it its header's width.
      const flex = keyIdx.filter((i) => cols[i]!.flex);
      const whole = keyIdx.filter((i) => !cols[i]!.flex).reduce((n, i) => n + widths[i]!, 0);
      const cut = flex.length && room - whole >= flex.reduce((n, i) => n + cols[i]!.label.length, 0) ? flex : keyIdx;
      const left = cut === flex ? room - whole : room;
      const got = share(
        cut.map((i) => widths[i]!),
        cut === flex ? left : Math.max(left, cut.length * 8),
        cut.map((i) => cols[i]!.label.length),
      );
      cut.forEach((i, k) => (widths[i] = got[k]!));
      cutCells(all, cols, widths, cut);
    }
    return { cols, cells: rows, totals, widths, sep, dropped };
  }
}

/** A title as it is when it fits, else wrapped at spaces (a path longer than the width stays one line: copied whole). */
const titleLines = (title: string, width: number) =>
  title.length <= width ? [title] : wrapText(title, Math.max(20, width));

export function renderTable(data: Dataset, o: TableOptions): string {
  // Headers (a `sql` column's name), the title and notes may carry data too;
  // the cells are made printable by cellTexts.
  const d: Dataset = {
    ...data,
    columns: data.columns.map((c) => ({
      ...c,
      label: printable(c.label),
      ...(o.wholeIds && c.keep === 'ends' ? { whole: true } : {}),
    })),
    ...(data.title !== undefined ? { title: printable(data.title) } : {}),
    ...(data.notes ? { notes: data.notes.map(printable) } : {}),
    ...(data.empty !== undefined ? { empty: printable(data.empty) } : {}),
  };
  const bold = (s: string) => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  const dim = (s: string) => (o.color ? `\x1b[2m${s}\x1b[22m` : s);
  if (!d.rows.length && d.empty !== undefined) {
    const lines = [
      ...(d.title ? titleLines(d.title, o.width).map(bold) : []),
      ...[d.empty, ...(d.notes ?? [])].flatMap((n) => wrapText(n, Math.max(20, o.width)).map(dim)),
    ];
    return lines.join('\n') + '\n';
  }
  const { cols, cells, totals, widths, sep, dropped } = layout(d, o.width);
  const oneLine = (cells: string[]) =>
    cells
      .map((s, i) => {
        const c = cols[i]!;
        const v = s.length > widths[i]! ? cutText(s, widths[i]!, c.keep) : s;
        return c.kind === 'key' || c.kind === 'text' ? v.padEnd(widths[i]!) : v.padStart(widths[i]!);
      })
      .join(' '.repeat(sep))
      .trimEnd();
  // A row whose wrapped cells (Column.wrap) are longer than their width takes more lines, the other cells on its first.
  const line = (cells: string[]) => {
    const parts = cells.map((s, i) => (cols[i]!.wrap && s.length > widths[i]! ? wrapHard(s, widths[i]!) : [s]));
    const n = Math.max(...parts.map((p) => p.length));
    return Array.from({ length: n }, (_, k) => oneLine(parts.map((p) => p[k] ?? ''))).join('\n');
  };
  const out: string[] = [];
  // The title wraps at spaces; a path longer than the terminal stays one line (copied whole).
  if (d.title) for (const l of titleLines(d.title, o.width)) out.push(bold(l));
  out.push(bold(line(cols.map((c) => c.label))));
  const rule = dim(
    '─'.repeat(Math.min(o.wholeIds ? Infinity : o.width, widths.reduce((a, b) => a + b, 0) + sep * (cols.length - 1))),
  );
  out.push(rule);
  for (const t of cells) out.push(line(t));
  if (totals) {
    out.push(rule);
    out.push(bold(line(totals)));
  }
  if (!d.rows.length) out.push(dim('(no usage in this period)'));
  const notes = [...(d.notes ?? []), ...cols.flatMap((c) => (c.legend ? [c.legend] : []))];
  if (dropped.length)
    notes.push(
      `Not shown at this width: ${dropped.map((c) => c.label).join(', ')} (a wider terminal, --format csv or json show every column).`,
    );
  for (const n of notes) for (const l of wrapText(n, Math.max(20, o.width))) out.push(dim(l));
  return out.join('\n') + '\n';
}
