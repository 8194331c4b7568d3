// What a summary rendering is remembered with (summary-delta.ts), taken from
// the store while it is open: the template's rows as the report used them,
// and the report zone's local days around its range.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Format } from '../render/index.js';
import type { ReportOutput } from './definitions.js';
import { DELTA_KEYS, type LocalDay, type SummarySnapshot } from './summary-delta.js';
import type { ContextEntry, ReportParams } from './summary-rows.js';
import { loadTemplate, runTemplate } from './template.js';

/** Longest range (days) remembered with its day table. */
const MAX_DAYS = 800;
/** Most rows remembered (the memo file is read on every report). */
const MAX_ROWS = 2000;

const shift = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** Null when the delta path cannot add to this report (another kind or format, a key it cannot compute, too big). */
export async function summarySnapshot(
  conn: DuckDBConnection,
  out: ReportOutput,
  p: ReportParams,
  format: Format,
  pricer: string,
  table: { width: number; color: boolean },
): Promise<SummarySnapshot | null> {
  if (out.definition.kind !== 'summary' || !out.summaryRows || format === 'html' || p.sort) return null;
  if (p.by.some((k) => !DELTA_KEYS.includes(k)) || out.summaryRows.length > MAX_ROWS) return null;
  const first = shift(p.since, -1);
  const last = shift(p.until, 2);
  if ((Date.parse(last) - Date.parse(first)) / 86_400_000 > MAX_DAYS) return null;
  const raw = await runTemplate(conn, loadTemplate('local_days'), { first, last, tz: p.tz });
  if (raw.some((r) => r.consistent !== true)) return null;
  const days: LocalDay[] = raw.map((r) => ({ day: String(r.day), week: String(r.week), month: String(r.month), start: Number(r.start_ms) }));
  const json = out.json as { context?: ContextEntry[] };
  let estimates: SummarySnapshot['estimates'];
  if (p.by.includes('session')) {
    const sessions = [...new Set(out.summaryRows.map((r) => String(r.session)))];
    const wanted = new Set(sessions);
    const all = out.sessionEstimates ?? new Map<string, number>();
    estimates = { sessions, entries: [...all].filter(([k]) => wanted.has(k.slice(k.indexOf('\u0000') + 1))) };
  }
  return {
    v: 1,
    title: out.definition.title,
    params: { since: p.since, until: p.until, tz: p.tz, by: p.by, harnesses: p.harnesses, project: p.project, costMode: p.costMode },
    format,
    rows: out.summaryRows,
    context: json.context ?? [],
    warnings: out.warnings,
    days,
    pricer,
    table,
    ...(estimates ? { estimates } : {}),
  };
}
