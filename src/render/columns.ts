// Column metadata shared by the table, CSV and HTML renderers.

/** `time`: an ISO instant, shown as local date and time in the dataset's zone. */
export type ColumnKind = 'key' | 'int' | 'usd' | 'pct' | 'ratio' | 'text' | 'time';

export interface Column {
  /** Field name in the row objects (and the CSV/JSON header). */
  field: string;
  /** Short header for the terminal table. */
  label: string;
  kind: ColumnKind;
  /** Shown in the narrow (80-column) terminal table. */
  narrow?: boolean;
  /**
   * Which part of a long key survives when the cell is shortened: its start
   * (titles), its end (paths: the default for a value with a slash), both
   * ends (ids: sessions of one day often share their first characters), or,
   * by default, its first word and its distinctive tail (`claude-…-4-5-20251001`).
   */
  keep?: 'end' | 'start' | 'ends';
  /** A key never shortened (a day, week or month: cut, `…6-11-06` reads as no date at all). */
  whole?: boolean;
  /** A terminal table wraps this key onto more lines where it has to be narrower than its text (a sentence: `explain`'s verdicts), instead of cutting it. */
  wrap?: boolean;
  /** What a cell without a value reads (default `(none)` for a key, `—`, unknown, for the others). */
  none?: string;
  /** The cell is left empty in rows whose field of this name is empty, 0 or null (`explain`: what a record that counted nothing adds). */
  blankUnless?: string;
  /** What the header means, said under a terminal table only when the column is shown in it. */
  legend?: string;
  /**
   * Narrow tables at 80 columns leave this column out before they cut names
   * short (lowest first); a column without it is always shown.
   */
  drop?: number;
  /**
   * A wide-only column (not `narrow`): the order such columns leave a table
   * too wide for the terminal, lowest first; those without one leave after
   * them, from the right. All leave before numbers are abbreviated.
   */
  wideDrop?: number;
  /** A key read from its start that takes the room the other columns leave (a session's title): cut to READABLE_KEY before a wide-only column leaves. */
  flex?: boolean;
  /**
   * Money only: the row fields that say `partial` when the amount covers only
   * the priced responses. `bound`: the amount is a lower bound (`≥$4.18*`);
   * otherwise (a difference of amounts) it is only marked (`$1.20*`).
   */
  partial?: { by: string[]; bound: boolean };
  /**
   * Money only: a figure per unit of work (per request, prompt, record, hour),
   * shown with four significant digits under $1 (render/format.ts usd). Default:
   * a field named `…per_…` (`cost_per_request_usd`) is one.
   */
  perUnit?: boolean;
  /** A change (Δ): a positive one is written with its `+`. */
  signed?: boolean;
  /** CSV: after the other columns (one added to a CSV whose column order is documented, shown elsewhere in the table). */
  csvLast?: boolean;
  /** false: left out of terminal tables, even wide ones (CSV and HTML carry it). */
  table?: false;
  /** false: left out of HTML tables (CSV carries it; see `table` for terminal tables); 'keep': in view at first like a narrow column (html.ts pageColumns). */
  html?: false | 'keep';
  /**
   * The row field counting the tokens of this figure that rest on session
   * totals (grain session or snapshot, core/types.ts GRAINS): where it is
   * above 0 the cell is marked † and the table says why under it (grainNote).
   */
  grainMark?: string;
}

export type Cell = string | number | null | undefined;
export type DataRow = Record<string, Cell>;

export interface Dataset {
  title?: string;
  columns: Column[];
  rows: DataRow[];
  totals?: DataRow;
  /** Lines printed under the table (e.g. what the figures do and do not mean). */
  notes?: string[];
  /** With no rows, a terminal table prints this instead of its header (default: the header and "(no usage in this period)"). */
  empty?: string;
  /** The zone `time` cells are shown in (the report's; default UTC). */
  timezone?: string;
  /** false: never the CSV (a summary leading the tables, not the report's main table). */
  csv?: false;
}

/** A report's own cost: partial when some of its responses have no price. */
export const COST_PARTIAL = { by: ['cost_source'], bound: true };

/** The row field that says how much of a row rests on session totals (report/summary-rows.ts GrainFields). */
export const GRAIN_MARK_FIELD = 'session_grain_tokens';

/**
 * What of a row rests on session totals (report/summary-rows.ts GrainFields):
 * in CSV (last) and JSON only; tables and HTML mark the figures instead.
 */
export const GRAIN_COLUMNS: Column[] = [
  {
    field: 'session_grain_requests',
    label: 'Session-total reqs',
    kind: 'int',
    table: false,
    html: false,
    csvLast: true,
  },
  {
    field: 'session_grain_tokens',
    label: 'Session-total tokens',
    kind: 'int',
    table: false,
    html: false,
    csvLast: true,
  },
  {
    field: 'session_grain_cost_usd',
    label: 'Session-total cost',
    kind: 'usd',
    table: false,
    html: false,
    csvLast: true,
  },
];

/** Wide-only columns leave first the unpriced counts (the note under the table says them), then the cost comparisons. */
export const USAGE_METRIC_COLUMNS: Column[] = [
  { field: 'requests', label: 'Reqs', kind: 'int', narrow: true },
  { field: 'input_tokens', label: 'Input', kind: 'int', narrow: true, drop: 2 },
  { field: 'cache_read_tokens', label: 'Cache rd', kind: 'int', narrow: true, drop: 3 },
  { field: 'cache_write_tokens', label: 'Cache wr', kind: 'int', narrow: true, drop: 1 },
  { field: 'output_tokens', label: 'Output', kind: 'int', narrow: true, drop: 4 },
  { field: 'reasoning_tokens', label: 'Reasoning', kind: 'int', wideDrop: 6 },
  { field: 'total_tokens', label: 'Total', kind: 'int', narrow: true, grainMark: GRAIN_MARK_FIELD },
  { field: 'cost_usd', label: 'Cost', kind: 'usd', narrow: true, partial: COST_PARTIAL, grainMark: GRAIN_MARK_FIELD },
  { field: 'cost_source', label: 'Cost src', kind: 'text', wideDrop: 5 },
  { field: 'computed_cost_usd', label: 'Computed', kind: 'usd', wideDrop: 4 },
  { field: 'recorded_cost_usd', label: 'Recorded', kind: 'usd', wideDrop: 3 },
  { field: 'unpriced_requests', label: 'Unpriced', kind: 'int', wideDrop: 2 },
  { field: 'unpriced_tokens', label: 'Unpriced tok', kind: 'int', wideDrop: 1 },
];

/** Keys that are periods: shown whole. */
const PERIOD_KEYS = new Set(['day', 'week', 'month']);

export function keyColumns(keys: readonly string[]): Column[] {
  return keys.map((k) => ({
    field: k,
    label: k[0]!.toUpperCase() + k.slice(1),
    kind: 'key' as const,
    narrow: true,
    ...(PERIOD_KEYS.has(k) ? { whole: true } : {}),
    ...(k === 'session' ? { keep: 'ends' as const } : {}),
  }));
}
