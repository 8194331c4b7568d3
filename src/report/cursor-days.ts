// The `cursor` section of `report compare` and `tx-usage sources`: per local
// day, Cursor's billed rows from imported dashboard usage CSVs beside the
// chats the Cursor Agent CLI left on this machine (queries/cursor_days.sql).
import type { DuckDBConnection } from '@duckdb/node-api';
import { e10ToUsd } from '../core/money.js';
import type { Dataset } from '../render/columns.js';
import type { CostMode } from './summary-rows.js';
import { loadTemplate, runTemplate } from './template.js';

export type CursorDayStatus = 'billed' | 'billed, no local chats' | 'local, none billed' | 'local, not imported';

export interface CursorDay {
  day: string;
  billed_rows: number;
  request_units: number | null;
  included_rows: number;
  usage_based_rows: number;
  other_rows: number;
  total_tokens: number;
  cost_usd: number | null;
  /** Some billed rows of the day have no cost under the cost mode: cost_usd is their partial sum. */
  cost_partial: boolean;
  charged_usd: number | null;
  local_chats: number;
  local_turns: number;
  in_import: boolean;
  status: CursorDayStatus;
}

export interface CursorSection {
  days: CursorDay[];
  /** Days with local chats that no import covers: their billing is not in tx-usage yet. */
  days_not_imported: string[];
  notes: string[];
}

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

export const CURSOR_NOTES = [
  "Billed rows come from Cursor's dashboard usage CSVs imported with `tx-usage import cursor-usage`; the dashboard also bills the editor and other machines, so billed days without local chats are expected.",
  "Local chats are the Cursor Agent CLI chats on this machine (subagents counted on their own); a chat's turns count on its last day.",
];

export async function cursorSection(
  conn: DuckDBConnection,
  p: { since: string; until: string; tz: string; costMode: CostMode },
  template = 'cursor_days',
): Promise<CursorSection> {
  const rows = await runTemplate(conn, loadTemplate(template), {
    since: p.since,
    until: p.until,
    tz: p.tz,
    cost_mode: p.costMode,
  });
  const days = rows.map((r): CursorDay => ({
    day: String(r.day),
    billed_rows: num(r.billed_rows),
    request_units: r.request_units === null || r.request_units === undefined ? null : Number(r.request_units),
    included_rows: num(r.included_rows),
    usage_based_rows: num(r.usage_based_rows),
    other_rows: num(r.other_rows),
    total_tokens: num(r.total_tokens),
    cost_usd: e10ToUsd(r.cost_e10 as string | null),
    cost_partial: num(r.priced_rows) > 0 && num(r.priced_rows) < num(r.billed_rows),
    charged_usd: e10ToUsd(r.charged_cost_e10 as string | null),
    local_chats: num(r.local_chats),
    local_turns: num(r.local_turns),
    in_import: r.in_import === true,
    status: String(r.status) as CursorDayStatus,
  }));
  const missing = days.filter((d) => d.status === 'local, not imported').map((d) => d.day);
  const notes = [...CURSOR_NOTES];
  const partial = days.filter((d) => d.cost_partial).map((d) => d.day);
  if (partial.length)
    notes.push(
      `Cost is partial on ${compactDays(partial)}: some billed rows there have a model without a known price.`,
    );
  if (missing.length)
    notes.push(
      `Local Cursor activity on ${missing.length === 1 ? 'a day' : `${missing.length} days`} no import covers (${compactDays(missing)}): import the dashboard's usage CSV for them.`,
    );
  return { days, days_not_imported: missing, notes };
}

/** Consecutive days as ranges: "2026-11-01..2026-11-03, 2026-11-07". */
export function compactDays(days: string[]): string {
  const out: string[] = [];
  let start: string | null = null;
  let prev: string | null = null;
  const next = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const flush = () => {
    if (start !== null) out.push(start === prev ? start : `${start}..${prev}`);
  };
  for (const d of days) {
    if (prev !== null && next(prev) === d) prev = d;
    else {
      flush();
      start = prev = d;
    }
  }
  flush();
  return out.join(', ');
}

export function cursorDataset(s: CursorSection): Dataset {
  return {
    title: 'Cursor: billed usage (imported) beside local chats, per day',
    columns: [
      { field: 'day', label: 'Day', kind: 'key', narrow: true },
      { field: 'billed_rows', label: 'Billed', kind: 'int', narrow: true },
      { field: 'included_rows', label: 'Included', kind: 'int' },
      { field: 'usage_based_rows', label: 'Usage-based', kind: 'int' },
      { field: 'request_units', label: 'Req units', kind: 'ratio' },
      { field: 'total_tokens', label: 'Tokens', kind: 'int', narrow: true },
      { field: 'cost_usd', label: 'Cost', kind: 'usd', narrow: true },
      { field: 'charged_usd', label: 'Charged', kind: 'usd' },
      { field: 'local_chats', label: 'Chats', kind: 'int', narrow: true },
      { field: 'local_turns', label: 'Turns', kind: 'int', narrow: true },
      { field: 'status', label: 'Status', kind: 'text', narrow: true },
    ],
    rows: s.days.map((d) => ({
      ...d,
      in_import: d.in_import ? 'yes' : 'no',
      cost_partial: d.cost_partial ? 'yes' : 'no',
    })),
    notes: s.notes,
  };
}
