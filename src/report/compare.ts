// `tx-usage report compare`: harness efficiency over one period, per harness
// and per harness × a detail key (default model). A harness that records
// only context-window occupancy (Cursor) is listed with those figures and
// `billed_usage: false`; its usage fields are null, never zero, because its
// usage is unknown rather than nothing. Shape documented in docs/reports.md.
import type { DuckDBConnection } from '@duckdb/node-api';
import { HARNESS_IDS } from '../core/types.js';
import { COST_PARTIAL, type Column, type Dataset } from '../render/columns.js';
import { GRAIN_MARK, grainNote, unpricedNote } from '../render/cells.js';
import { baseChartData } from './charts.js';
import type { ReportDefinition, ReportOutput } from './output.js';
import { groupExpr, type GroupKey } from './groups.js';
import { periodLabel, UsageError } from './period.js';
import { sortRows } from './sort.js';
import { metricsOf, templateValues, type Metrics, type ReportParams } from './summary.js';
import { grainFieldsOf, type GrainFields } from './summary-rows.js';
import { loadTemplate, runTemplate } from './template.js';
import { cursorDataset, cursorSection, type CursorSection } from './cursor-days.js';
import {
  cheaperDataset,
  cheaperPerPrompt,
  enoughPrompts,
  fewLine,
  perPromptDataset,
  sameModelDataset,
  UNIT_COLUMNS,
  unitStats,
  type CheaperRow,
  type SameModelRow,
  type UnitFigures,
} from './compare-units.js';

export interface Efficiency {
  sessions: number | null;
  active_days: number | null;
  cost_per_request_usd: number | null;
  cost_per_session_usd: number | null;
  tokens_per_request: number | null;
  output_tokens_per_request: number | null;
  cache_hit_rate: number | null;
  cache_write_share: number | null;
  reasoning_share: number | null;
}

export interface ContextFigures {
  chats: number;
  turns: number;
  avg_latest_used_tokens: number | null;
  avg_peak_used_tokens: number | null;
  max_peak_used_tokens: number | null;
  max_window_tokens: number | null;
  avg_latest_occupancy: number | null;
  avg_peak_occupancy: number | null;
}

type Nullable<T> = { [K in keyof T]: T[K] | null };

export type HarnessRow = { harness: string; billed_usage: boolean } & (Metrics | Nullable<Metrics>) &
  Efficiency &
  UnitFigures & { context: ContextFigures | null };

export interface CompareReport {
  since: string;
  until: string;
  timezone: string;
  /** Keys of the `breakdown` rows: always harness, then the detail key. */
  breakdown_by: GroupKey[];
  /** With what of them rests on session totals (summary-rows.ts GrainFields): such rows hold a session's total at its last activity, not responses. */
  totals: Metrics & GrainFields;
  harnesses: HarnessRow[];
  breakdown: (Metrics & Efficiency & UnitFigures & Record<string, unknown>)[];
  /** Cursor's imported billed usage beside its local chats, per day (null when cursor-agent is not reported or has nothing in the range). */
  cursor: CursorSection | null;
  /** Models that answered prompts in two or more harnesses: per-prompt figures side by side (compare-units.ts). */
  same_model: SameModelRow[];
  /** Added: the answer the tables lead with, from `same_model`'s rows with enough prompts (compare-units.ts cheaperPerPrompt). */
  cheaper_per_prompt: CheaperRow[];
  warnings: string[];
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function efficiencyOf(r: Record<string, unknown>): Efficiency {
  return {
    sessions: num(r.sessions),
    active_days: num(r.active_days),
    cost_per_request_usd: numOrNull(r.cost_per_request_usd),
    cost_per_session_usd: numOrNull(r.cost_per_session_usd),
    tokens_per_request: numOrNull(r.tokens_per_request),
    output_tokens_per_request: numOrNull(r.output_tokens_per_request),
    cache_hit_rate: numOrNull(r.cache_hit_rate),
    cache_write_share: numOrNull(r.cache_write_share),
    reasoning_share: numOrNull(r.reasoning_share),
  };
}

function contextOf(r: Record<string, unknown>): ContextFigures {
  return {
    chats: num(r.chats),
    turns: num(r.turns),
    avg_latest_used_tokens: numOrNull(r.avg_latest_used_tokens),
    avg_peak_used_tokens: numOrNull(r.avg_peak_used_tokens),
    max_peak_used_tokens: numOrNull(r.max_peak_used_tokens),
    max_window_tokens: numOrNull(r.max_window_tokens),
    avg_latest_occupancy: numOrNull(r.avg_latest_occupancy),
    avg_peak_occupancy: numOrNull(r.avg_peak_occupancy),
  };
}

const UNKNOWN_USAGE: Nullable<Metrics> & Efficiency = {
  requests: null,
  input_tokens: null,
  cache_read_tokens: null,
  cache_write_tokens: null,
  output_tokens: null,
  reasoning_tokens: null,
  total_tokens: null,
  cost_usd: null,
  cost_source: 'none',
  computed_cost_usd: null,
  recorded_cost_usd: null,
  unpriced_requests: null,
  unpriced_tokens: null,
  sessions: null,
  active_days: null,
  cost_per_request_usd: null,
  cost_per_session_usd: null,
  tokens_per_request: null,
  output_tokens_per_request: null,
  cache_hit_rate: null,
  cache_write_share: null,
  reasoning_share: null,
};

function detailKey(by: GroupKey[]): GroupKey | null {
  const rest = by.filter((k) => k !== 'harness');
  if (rest.length > 1)
    throw new UsageError(
      `--by ${by.join(',')}: the comparison breaks each harness down by at most one key (e.g. --by model)`,
    );
  return rest[0] ?? null;
}

export const NO_BILLED_USAGE_NOTE =
  'No billed usage recorded locally: the figures are context-window occupancy at checkpoints (tokens held in the window), not billed tokens, and are in no usage or cost figure.';

export async function compareReport(
  conn: DuckDBConnection,
  def: ReportDefinition,
  p: ReportParams,
  warnings: string[],
): Promise<ReportOutput> {
  const detail = detailKey(p.by);
  const q = { harness: def.query, context: 'compare_context', cursor: 'cursor_days', ...def.queries };
  const values = { ...templateValues(p), cost_mode: p.costMode };
  const t = loadTemplate(q.harness);
  const perHarness = await runTemplate(conn, t, values, { detail: `''` });
  const perDetail = detail ? await runTemplate(conn, t, values, { detail: groupExpr(detail) }) : [];
  const context = new Map(
    (await runTemplate(conn, loadTemplate(q.context), templateValues(p))).map((r) => [
      r.harness as string,
      contextOf(r),
    ]),
  );
  const billed = new Map(perHarness.map((r) => [r.harness as string, r]));
  const units = await unitStats(conn, p, detail);

  const listed: HarnessRow[] = [];
  for (const h of HARNESS_IDS) {
    const r = billed.get(h);
    const ctx = context.get(h) ?? null;
    if (r)
      listed.push({
        harness: h,
        billed_usage: true,
        ...metricsOf(r),
        ...efficiencyOf(r),
        ...units.harness(h, true),
        context: ctx,
      });
    else if (ctx)
      listed.push({ harness: h, billed_usage: false, ...UNKNOWN_USAGE, ...units.harness(h, false), context: ctx });
  }
  // --sort (default by cost): a harness without billed usage (unknown cost) last.
  const harnesses = sortRows(listed, ['harness'], p.sort);
  const breakdown = sortRows(
    perDetail.map((r) => ({
      harness: r.harness as string,
      [detail!]: r.detail as string,
      ...metricsOf(r),
      ...efficiencyOf(r),
      ...units.detail(r.harness as string, r.detail as string, true),
    })),
    ['harness', detail!],
    p.sort,
  );
  const [tot] = await runTemplate(conn, loadTemplate('summary'), values, { keys: '' });
  const report: CompareReport = {
    since: p.since,
    until: p.until,
    timezone: p.tz,
    breakdown_by: detail ? ['harness', detail] : ['harness'],
    totals: { ...metricsOf(tot ?? {}), ...grainFieldsOf(tot ?? {}) },
    harnesses,
    breakdown,
    cursor: p.harnesses.includes('cursor-agent')
      ? await cursorSection(conn, p, q.cursor).then((c) => (c.days.length ? c : null))
      : null,
    same_model: units.sameModel,
    cheaper_per_prompt: cheaperPerPrompt(units.sameModel),
    warnings,
  };

  if (p.charts === false)
    return {
      definition: def,
      json: report as unknown as Record<string, unknown>,
      datasets: compareDatasets(def, report, detail, p.all === true),
      warnings,
    };
  const charts = await baseChartData(conn, p);
  charts.efficiency = harnesses
    .filter((h) => h.billed_usage)
    .map((h) => ({
      harness: h.harness,
      cost_per_request_usd: h.cost_per_request_usd,
      tokens_per_request: h.tokens_per_request,
      output_tokens_per_request: h.output_tokens_per_request,
      cache_hit_rate: h.cache_hit_rate,
      cache_write_share: h.cache_write_share,
      reasoning_share: h.reasoning_share,
    }));
  charts.prompt_costs = await units.promptCosts();
  return {
    definition: def,
    json: report as unknown as Record<string, unknown>,
    datasets: compareDatasets(def, report, detail, p.all === true),
    warnings,
    charts,
  };
}

const col = (field: string, label: string, kind: Column['kind'], narrow = false): Column => ({
  field,
  label,
  kind,
  narrow,
});

const EFFICIENCY_COLUMNS: Column[] = [
  col('requests', 'Reqs', 'int', true),
  col('sessions', 'Sessions', 'int', true),
  col('active_days', 'Days', 'int'),
  col('total_tokens', 'Tokens', 'int'),
  { ...col('cost_usd', 'Cost', 'usd', true), partial: COST_PARTIAL },
  { ...col('cost_per_request_usd', 'Cost/req', 'usd', true), perUnit: true },
  { ...col('cost_per_session_usd', 'Cost/sess', 'usd'), perUnit: true },
  // Averages of whole tokens: shown as whole tokens (the JSON keeps the fraction).
  col('tokens_per_request', 'Tok/req', 'int', true),
  col('output_tokens_per_request', 'Out/req', 'int'),
  col('cache_hit_rate', 'Cache hit', 'pct', true),
  col('cache_write_share', 'Cache wr', 'pct'),
  col('reasoning_share', 'Reasoning', 'pct'),
  col('cost_source', 'Cost src', 'text'),
  col('unpriced_requests', 'Unpriced', 'int'),
  col('unpriced_tokens', 'Unpriced tok', 'int'),
];

/**
 * The tables: first the answer (which harness is cheaper per prompt for the
 * same model, when a model answered prompts in two harnesses), then the
 * per-harness figures. Rows resting on fewer than
 * FEW_PROMPTS prompts are one line under their table unless `all` (--all);
 * the JSON keeps every row.
 */
function compareDatasets(def: ReportDefinition, r: CompareReport, detail: GroupKey | null, all: boolean): Dataset[] {
  const out: Dataset[] = [
    {
      title: `${def.title} ${periodLabel(r.since, r.until, r.timezone)}: per harness`,
      columns: [
        { field: 'harness', label: 'Harness', kind: 'key', narrow: true },
        col('billed', 'Billed', 'text', true),
        ...EFFICIENCY_COLUMNS,
        ...UNIT_COLUMNS,
      ],
      rows: r.harnesses.map(({ context: _c, billed_usage, ...h }) => ({ ...h, billed: billed_usage ? 'yes' : 'no' })),
      notes: [
        ...(r.harnesses.some((h) => !h.billed_usage)
          ? [
              `${r.harnesses
                .filter((h) => !h.billed_usage)
                .map((h) => h.harness)
                .join(
                  ', ',
                )}: no billed usage recorded locally (its context occupancy is listed separately; those figures are not billed tokens).`,
            ]
          : []),
        ...[
          unpricedNote(r.totals.unpriced_requests, r.totals.unpriced_tokens),
          compareGrainNote(r.totals.session_grain_tokens),
        ].filter((n): n is string => n !== null),
      ],
    },
  ];
  // A harness with no prompts in the range (e.g. cursor-agent with only
  // imported billing rows) has no per-prompt figures: named under the table,
  // not a row of dashes; with none at all, the per-prompt tables are left out.
  const main = out[0]!;
  const prompted = r.harnesses.filter((h) => h.prompts > 0);
  const promptless = r.harnesses.filter((h) => !(h.prompts > 0)).map((h) => h.harness);
  const promptlessNote = promptless.length
    ? `${promptless.join(', ')}: no prompts recorded in this period, so no per-prompt figures.`
    : null;
  if (prompted.length) {
    const { shown, hidden } = enoughPrompts(prompted, all);
    const perPrompt = perPromptDataset(
      'Per prompt, per harness',
      shown.map(({ context: _c, ...h }) => ({ ...h })),
      [{ field: 'harness', label: 'Harness' }],
    );
    if (hidden) perPrompt.notes = [fewLine(hidden, 'harness', 'harnesses'), ...(perPrompt.notes ?? [])];
    if (promptlessNote) perPrompt.notes = [...(perPrompt.notes ?? []), promptlessNote];
    out.push(perPrompt);
  } else if (promptlessNote) {
    main.notes = [...(main.notes ?? []), promptlessNote];
  }
  if (detail) {
    const label = detail[0]!.toUpperCase() + detail.slice(1);
    out.push({
      title: `Per harness and ${detail}`,
      columns: [
        { field: 'harness', label: 'Harness', kind: 'key', narrow: true },
        { field: detail, label, kind: 'key', narrow: true },
        ...EFFICIENCY_COLUMNS,
        ...UNIT_COLUMNS,
      ],
      rows: r.breakdown.map((b) => ({ ...b }) as Record<string, string | number | null>),
    });
    const promptedRows = r.breakdown.filter((b) => b.prompts > 0);
    if (promptedRows.length) {
      const { shown, hidden } = enoughPrompts(promptedRows, all);
      const perPrompt = perPromptDataset(`Per prompt, per harness and ${detail}`, shown, [
        { field: 'harness', label: 'Harness' },
        { field: detail, label },
      ]);
      if (hidden) perPrompt.notes = [fewLine(hidden, 'row'), ...(perPrompt.notes ?? [])];
      out.push(perPrompt);
    }
  }
  // Every same-model row, the few included, with --all; otherwise the lead table says them.
  if (all) out.push(sameModelDataset(r.same_model));
  // The answer first, when some model answered prompts in two harnesses (else there is no question to answer).
  if (r.same_model.length)
    out.unshift(
      cheaperDataset(`${def.title} ${periodLabel(r.since, r.until, r.timezone)}`, r.cheaper_per_prompt, r.same_model),
    );
  const ctx = r.harnesses.filter((h) => h.context);
  if (ctx.length) {
    out.push({
      title: 'Context occupancy (not billed usage)',
      columns: [
        { field: 'harness', label: 'Harness', kind: 'key', narrow: true },
        col('chats', 'Chats', 'int', true),
        col('turns', 'Turns', 'int', true),
        col('avg_latest_used_tokens', 'Avg latest', 'int', true),
        col('avg_peak_used_tokens', 'Avg peak', 'int', true),
        col('max_peak_used_tokens', 'Max peak', 'int'),
        col('max_window_tokens', 'Window', 'int'),
        col('avg_latest_occupancy', 'Latest occ', 'pct', true),
        col('avg_peak_occupancy', 'Peak occ', 'pct', true),
      ],
      rows: ctx.map((h) => ({ harness: h.harness, ...h.context! })),
      notes: [NO_BILLED_USAGE_NOTE],
    });
  }
  if (r.cursor?.days.length) out.push(cursorDataset(r.cursor));
  return out;
}

/**
 * Compare includes rows made from session totals (grain session/snapshot)
 * and says so: their sessions' tokens count, their requests are unknown (0),
 * so per-request figures of such a harness rest on its response rows only.
 */
function compareGrainNote(tokens: number): string | null {
  const n = grainNote(tokens);
  return n === null
    ? null
    : `${n.replace(`${GRAIN_MARK} includes`, 'The figures include')} Compare counts them in tokens, costs and sessions; they add no requests, and the per-prompt figures leave them out.`;
}
