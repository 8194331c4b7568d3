// Chart definitions (vega-lite specs in reports/*.json) and the named data
// they draw from. A report kind fills the data sets; the HTML renderer joins
// them. Specs never hold data: the renderer attaches the named rows.
import type { DuckDBConnection } from '@duckdb/node-api';
import { e10ToUsd } from '../core/money.js';
import { keysSlot, type GroupKey } from './groups.js';
import { templateValues, type ReportParams } from './summary.js';
import { loadTemplate, runTemplate } from './template.js';

export interface ChartDef {
  id: string;
  title: string;
  /** Name of the data set (ReportOutput.charts) the chart draws. */
  data: string;
  /**
   * A field that must be non-null in at least one row for the chart to mean
   * anything (e.g. `cost_usd` while costs are unknown). When no row has it,
   * the fallback is drawn instead, or the chart is left out with a note.
   */
  needs?: string;
  fallback?: {
    title: string;
    /** Encoding fields to swap: `{ "cost_usd": { "field": "total_tokens", "title": "Tokens" } }`. */
    replace: Record<string, { field: string; title?: string }>;
  };
  /** A vega-lite spec without `data`. */
  spec: Record<string, unknown>;
}

export type ChartRow = Record<string, string | number | null>;
export type ChartData = Record<string, ChartRow[]>;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export const TOKEN_KINDS = [
  ['input_tokens', 'uncached input'],
  ['cache_read_tokens', 'cache read'],
  ['cache_write_tokens', 'cache write'],
  ['output_tokens', 'output'],
] as const;

async function grouped(conn: DuckDBConnection, p: ReportParams, keys: GroupKey[]): Promise<Record<string, unknown>[]> {
  const values = { ...templateValues(p), cost_mode: p.costMode };
  const rows = await runTemplate(conn, loadTemplate('summary'), values, { keys: keysSlot(keys) });
  // The summary lists context-only chats (Cursor) as zero-usage rows; they
  // have nothing to draw.
  return rows.filter((r) => num(r.usage_events) > 0);
}

/** Projects drawn by name; the rest are one "(N other projects)" bar, so the chart stays readable. */
export const PROJECTS_DRAWN = 12;

/** The `n` largest rows (by cost, then tokens) and one row adding up the rest. */
export function topWithOther(rows: ChartRow[], key: string, n: number): ChartRow[] {
  const sorted = [...rows].sort(
    (a, b) =>
      ((b.cost_usd as number | null) ?? -1) - ((a.cost_usd as number | null) ?? -1) ||
      (b.total_tokens as number) - (a.total_tokens as number),
  );
  if (sorted.length <= n) return sorted;
  const rest = sorted.slice(n);
  const costs = rest.map((r) => r.cost_usd as number | null).filter((c): c is number => c !== null);
  const other: ChartRow = {
    [key]: `(${rest.length} other ${key}${rest.length === 1 ? '' : 's'})`,
    requests: rest.reduce((s, r) => s + (r.requests as number), 0),
    total_tokens: rest.reduce((s, r) => s + (r.total_tokens as number), 0),
    cost_usd: costs.length ? Math.round(costs.reduce((s, c) => s + c, 0) * 1e10) / 1e10 : null,
  };
  return [...sorted.slice(0, n), other];
}

/**
 * Adds `<key>_label`: the shortest tail of the path that tells it apart
 * from the others ("…/src/app"), so that bar labels stay short on a phone;
 * the full path stays in the row (for tooltips).
 */
export function withShortLabels(rows: ChartRow[], key: string): ChartRow[] {
  const paths = rows.map((r) => String(r[key] ?? ''));
  const parts = paths.map((p) => p.split('/').filter(Boolean));
  return rows.map((r, i) => {
    const p = paths[i]!;
    let label = p;
    if (p.startsWith('/')) {
      for (let n = 1; n < parts[i]!.length; n++) {
        const tail = parts[i]!.slice(-n).join('/');
        if (parts.every((q, j) => j === i || q.slice(-n).join('/') !== tail)) {
          label = `…/${tail}`;
          break;
        }
      }
    }
    return { ...r, [`${key}_label`]: label };
  });
}

/**
 * The data sets every report's charts may draw: daily cost by model, cost
 * by project, cost by harness, token mix per harness (over p's range).
 */
export async function baseChartData(conn: DuckDBConnection, p: ReportParams): Promise<ChartData> {
  // The template's rows with their cost in dollars, as a report's rows carry it.
  const usd = (rows: Record<string, unknown>[]) =>
    rows.map((r) => ({ ...r, cost_usd: e10ToUsd(r.cost_e10 as string | null) }));
  return chartSets(
    usd(await grouped(conn, p, ['day', 'model'])),
    usd(await grouped(conn, p, ['project'])),
    usd(await grouped(conn, p, ['harness'])),
  );
}

/**
 * The base data sets from summary rows (the template's, or a report's JSON
 * rows: both carry the keys, requests, total_tokens, cost_usd and the token
 * kinds) per day and model, per project, and per harness.
 */
export function chartSets(
  daily: Record<string, unknown>[],
  projects: Record<string, unknown>[],
  harnesses: Record<string, unknown>[],
): ChartData {
  const pick = (r: Record<string, unknown>, keys: GroupKey[]): ChartRow => {
    const row: ChartRow = {};
    for (const k of keys) row[k] = (r[k] as string | null) ?? null;
    row.requests = num(r.requests);
    row.total_tokens = num(r.total_tokens);
    row.cost_usd = (r.cost_usd as number | null | undefined) ?? null;
    return row;
  };
  const mix: ChartRow[] = [];
  for (const r of harnesses) {
    for (const [field, label] of TOKEN_KINDS)
      mix.push({ harness: r.harness as string, kind: label, tokens: num(r[field]) });
  }
  return {
    daily_by_model: daily.map((r) => pick(r, ['day', 'model'])),
    by_project: withShortLabels(
      topWithOther(
        projects.map((r) => pick(r, ['project'])),
        'project',
        PROJECTS_DRAWN,
      ),
      'project',
    ),
    by_harness: harnesses.map((r) => pick(r, ['harness'])),
    token_mix: mix,
  };
}

/** The spec to draw for `def` given its data: as written, the fallback, or null (left out). */
export function resolveChart(
  def: ChartDef,
  rows: ChartRow[] | undefined,
): { title: string; spec: Record<string, unknown> } | null {
  if (!rows || rows.length === 0) return null;
  if (!def.needs || rows.some((r) => r[def.needs!] !== null && r[def.needs!] !== undefined))
    return { title: def.title, spec: def.spec };
  if (!def.fallback) return null;
  const { replace } = def.fallback;
  const swap = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(swap);
    if (v === null || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = swap(x);
    const to = typeof o.field === 'string' ? replace[o.field] : undefined;
    if (to) {
      out.field = to.field;
      if (to.title !== undefined) out.title = to.title;
      delete out.format; // a currency format would mislabel the substitute
    }
    return out;
  };
  return { title: def.fallback.title, spec: swap(def.spec) as Record<string, unknown> };
}
