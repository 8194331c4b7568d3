// `tx-usage report blocks`: 5-hour billing blocks per account family (one
// harness; Claude Code unless --harness says otherwise), built by
// src/live/blocks.ts from the store's billed responses. Shape documented in
// docs/reports.md.
import type { DuckDBConnection } from '@duckdb/node-api';
import { keyColumns, USAGE_METRIC_COLUMNS, type Column, type Dataset } from '../render/columns.js';
import { abbreviate, pct, usd } from '../render/format.js';
import type { ChartData } from '../report/charts.js';
import type { ReportDefinition, ReportOutput } from '../report/output.js';
import { UsageError } from '../report/period.js';
import type { ReportParams } from '../report/summary-rows.js';
import { unpricedNote } from '../render/cells.js';
import { periodLabel } from '../report/period.js';
import { BLOCK_MS, maxBlockTokens, metricsOfEvents, type Block, type LiveMetrics } from './blocks.js';
import { blockRow, type BlockRow } from './block-rows.js';

export { blockRow, type BlockRow };
import { blocksBetween } from './events.js';
import { formatMinutes, isoInZone, localClock, localDayStartMs, localMinute, nextDay } from './time.js';

/** The harness blocks are computed for when --harness is not given. */
export const DEFAULT_BLOCK_HARNESSES = ['claude-code'];

export interface BlocksOptions {
  /** --harness was given (else Claude Code alone). */
  harnessGiven: boolean;
  /** --token-limit: a token count, or 'max' (the largest finished block in range). */
  tokenLimit?: string;
  now: number;
}

export interface BlocksReport {
  since: string;
  until: string;
  timezone: string;
  harnesses: string[];
  now: string;
  token_limit: number | null;
  totals: LiveMetrics;
  blocks: BlockRow[];
  warnings: string[];
}

/** `--token-limit`: a positive whole number of tokens or `max`. */
export function parseTokenLimit(v: string | undefined): number | 'max' | null {
  if (v === undefined) return null;
  const s = String(v).trim();
  if (s === 'max') return 'max';
  if (/^[1-9]\d*$/.test(s) && Number.isSafeInteger(Number(s))) return Number(s);
  throw new UsageError(`--token-limit ${JSON.stringify(v)}: expected a positive number of tokens or "max"`);
}

/** Blocks of the report's range: those starting on its days (gap rows too), per harness in the order given. */
export async function computeBlocks(
  conn: DuckDBConnection,
  p: ReportParams,
  o: BlocksOptions,
): Promise<{ harnesses: string[]; blocks: Block[]; limit: number | null }> {
  const harnesses = o.harnessGiven ? [...p.harnesses] : DEFAULT_BLOCK_HARNESSES;
  const limitArg = parseTokenLimit(o.tokenLimit);
  const from = localDayStartMs(p.since, p.tz);
  const until = localDayStartMs(nextDay(p.until), p.tz);
  // Responses up to a block's length past the range complete the blocks that start in it.
  const { perHarness } = await blocksBetween(
    conn,
    { harnesses, project: p.project, costMode: p.costMode },
    from,
    until + BLOCK_MS,
    o.now,
  );
  const blocks = perHarness.flatMap((h) => h.blocks.filter((b) => b.start >= from && b.start < until));
  const limit = limitArg === 'max' ? maxBlockTokens(blocks, o.now) : limitArg;
  return { harnesses, blocks, limit };
}

function statusText(r: BlockRow, a: Block): string {
  if (r.is_gap) return `gap ${formatMinutes((a.end - a.start) / 60_000)}`;
  if (r.is_active) return `ACTIVE ${formatMinutes(r.remaining_minutes!)} left`;
  return '';
}

/** Lines under the table about the active blocks. */
export function activeNotes(rows: BlockRow[], tz: string, limit: number | null): string[] {
  const out: string[] = [];
  for (const r of rows.filter((x) => x.is_active)) {
    // A rate over a window with unpriced responses is a lower bound, as the projection made from the block's rate is.
    const atLeast = (partial: boolean | null) => (partial ? '≥' : '');
    const money = (v: number | null) =>
      v === null ? 'cost unknown' : atLeast(r.cost_per_hour_block_partial) + usd(v, true);
    const rate = (t: number | null, c: number | null, partial: boolean | null) =>
      `${abbreviate(t ?? 0)} tokens/min, ${c === null ? 'cost unknown' : `${atLeast(partial)}${usd(c, true, { perUnit: true })}/h`}`;
    let s =
      `Active ${r.harness} block: ${formatMinutes(r.elapsed_minutes!)} elapsed, ${formatMinutes(r.remaining_minutes!)} left (ends ${localClock(Date.parse(r.end), tz)}). ` +
      `Burn ${rate(r.tokens_per_minute_30m, r.cost_usd_per_hour_30m, r.cost_per_hour_30m_partial)} over the last 30 min; ${rate(r.tokens_per_minute_block, r.cost_usd_per_hour_block, r.cost_per_hour_block_partial)} over the block. ` +
      `Projected at its end: ${abbreviate(r.projected_total_tokens!)} tokens, ${money(r.projected_cost_usd)}`;
    if (limit) s += ` (${pct(r.projected_token_limit_share)} of the ${abbreviate(limit)}-token limit)`;
    out.push(s + '.');
  }
  return out;
}

/** The table columns (and CSV columns, by field name). */
export function blockColumns(limit: number | null): Column[] {
  const metric = (f: string, narrow: boolean) => ({ ...USAGE_METRIC_COLUMNS.find((c) => c.field === f)!, narrow });
  return [
    ...keyColumns(['block']).map((c) => ({ ...c, label: 'Block start' })),
    { field: 'harness', label: 'Harness', kind: 'text' },
    { field: 'start', label: 'Start', kind: 'time' },
    { field: 'end', label: 'End', kind: 'time' },
    { field: 'status', label: 'Status', kind: 'text', narrow: true },
    { field: 'models', label: 'Models', kind: 'text' },
    metric('requests', true),
    metric('input_tokens', false),
    metric('cache_read_tokens', false),
    metric('cache_write_tokens', false),
    metric('output_tokens', false),
    metric('reasoning_tokens', false),
    metric('total_tokens', true),
    ...(limit ? [{ field: 'token_limit_share', label: 'Limit', kind: 'pct' as const, narrow: true }] : []),
    metric('cost_usd', true),
    metric('cost_source', false),
    { field: 'unpriced_requests', label: 'Unpriced', kind: 'int' },
    { field: 'projected_total_tokens', label: 'Proj. tokens', kind: 'int' },
    { field: 'projected_cost_usd', label: 'Proj. cost', kind: 'usd' },
  ];
}

export async function blocksReport(
  conn: DuckDBConnection,
  def: ReportDefinition,
  p: ReportParams,
  warnings: string[],
  o: BlocksOptions,
): Promise<ReportOutput> {
  if (p.by.length)
    throw new UsageError(
      '--by: report blocks has one row per 5-hour block (use --harness to choose the account family)',
    );
  const { harnesses, blocks, limit } = await computeBlocks(conn, p, o);
  const rows = blocks.map((b) => blockRow(b, p.tz, o.now, limit));
  const json: BlocksReport = {
    since: p.since,
    until: p.until,
    timezone: p.tz,
    harnesses,
    now: isoInZone(o.now, p.tz),
    token_limit: limit,
    totals: metricsOfEvents(blocks.flatMap((b) => b.events)),
    blocks: rows,
    warnings,
  };
  const tableRows = rows.map((r, i) => ({
    ...r,
    is_gap: String(r.is_gap),
    is_active: String(r.is_active),
    cost_per_hour_30m_partial: r.cost_per_hour_30m_partial === null ? null : String(r.cost_per_hour_30m_partial),
    cost_per_hour_block_partial: r.cost_per_hour_block_partial === null ? null : String(r.cost_per_hour_block_partial),
    block: `${localMinute(blocks[i]!.start, p.tz)}${harnesses.length > 1 ? ` ${r.harness}` : ''}`,
    status: statusText(r, blocks[i]!),
    models: r.models.join(', '),
  }));
  const title = `${def.title} (${harnesses.join(', ')}) ${periodLabel(p.since, p.until, p.tz)}`;
  const dataset: Dataset = {
    title,
    columns: blockColumns(limit),
    rows: tableRows,
    totals: { ...json.totals, status: '', token_limit_share: null },
    notes: [
      ...activeNotes(rows, p.tz, limit),
      ...(limit
        ? [
            `Limit: ${abbreviate(limit)} tokens per block${o.tokenLimit === 'max' ? ' (the largest finished block in this range)' : ''}.`,
          ]
        : []),
      ...[unpricedNote(json.totals.unpriced_requests, json.totals.unpriced_tokens)].filter(
        (n): n is string => n !== null,
      ),
    ],
  };
  const charts: ChartData | undefined =
    p.charts === false
      ? undefined
      : {
          blocks: rows
            .filter((r) => !r.is_gap)
            .map((r) => ({
              harness: r.harness,
              start: r.start,
              end: r.end,
              total_tokens: r.total_tokens,
              cost_usd: r.cost_usd,
              token_limit: limit,
              status: r.is_active ? 'active' : 'finished',
            })),
        };
  return { definition: def, json: json as unknown as Record<string, unknown>, datasets: [dataset], warnings, charts };
}
