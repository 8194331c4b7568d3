// Column metadata shared by the table, CSV and HTML renderers.

export type ColumnKind = 'key' | 'int' | 'usd' | 'pct' | 'ratio' | 'text';

export interface Column {
  /** Field name in the row objects (and the CSV/JSON header). */
  field: string;
  /** Short header for the terminal table. */
  label: string;
  kind: ColumnKind;
  /** Shown in the narrow (80-column) terminal table. */
  narrow?: boolean;
  /** Which end survives when the cell is shortened (default: a path keeps its end, anything else its start). */
  keep?: 'end' | 'start';
  /** false: left out of terminal tables, even wide ones (CSV and HTML carry it). */
  table?: false;
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
}

export const USAGE_METRIC_COLUMNS: Column[] = [
  { field: 'requests', label: 'Reqs', kind: 'int', narrow: true },
  { field: 'input_tokens', label: 'Input', kind: 'int', narrow: true },
  { field: 'cache_read_tokens', label: 'Cache rd', kind: 'int', narrow: true },
  { field: 'cache_write_tokens', label: 'Cache wr', kind: 'int', narrow: true },
  { field: 'output_tokens', label: 'Output', kind: 'int', narrow: true },
  { field: 'reasoning_tokens', label: 'Reasoning', kind: 'int' },
  { field: 'total_tokens', label: 'Total', kind: 'int', narrow: true },
  { field: 'cost_usd', label: 'Cost', kind: 'usd', narrow: true },
  { field: 'cost_source', label: 'Cost src', kind: 'text' },
  { field: 'computed_cost_usd', label: 'Computed', kind: 'usd' },
  { field: 'recorded_cost_usd', label: 'Recorded', kind: 'usd' },
];

export function keyColumns(keys: readonly string[]): Column[] {
  return keys.map((k) => ({ field: k, label: k[0]!.toUpperCase() + k.slice(1), kind: 'key' as const, narrow: true }));
}
