// `report compare` per unit of work: what a prompt typed by a
// person costs in each harness (mean, median and 90th percentile over
// prompts), per active hour (over sessions), and the same model side by side
// across harnesses. Figures come from compare_prompts.sql and
// compare_sessions.sql (over the rows of compare_prompt_rows.sql and
// compare_session_rows.sql, computed once per run); this module merges them into the compare report's
// rows and builds its tables. Shapes: docs/reports.md.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Column, Dataset } from '../render/columns.js';
import type { ChartRow } from './charts.js';
import { groupExpr, type GroupKey } from './groups.js';
import { templateValues, type ReportParams } from './summary.js';
import { loadTemplate, materializeTemplate, runTemplate } from './template.js';
import { ensureUnitMacros } from './unit-macros.js';
import { counted } from '../core/plural.js';

const STATS = ['mean', 'median', 'p90'] as const;
/** Per-prompt figures (each as _mean, _median, _p90): usage-derived ones are null for a harness without billed usage. */
const PER_PROMPT = [
  'requests_per_prompt',
  'tokens_per_prompt',
  'cost_per_prompt_usd',
  'tool_calls_per_prompt',
] as const;
const USAGE_PER_PROMPT = new Set<string>(['requests_per_prompt', 'tokens_per_prompt', 'cost_per_prompt_usd']);

/** Fewer prompts than this behind a model's figures in a harness: too few to compare. */
export const FEW_PROMPTS = 20;

export interface UnitFigures {
  prompts: number;
  turns: number;
  tool_calls: number;
  subagent_tasks: number;
  answered_prompts: number;
  priced_prompts: number;
  /** Prompts of sessions whose usage is recorded as session totals: counted as prompts, not in the per-prompt usage figures (compare_prompt_rows.sql). */
  session_total_prompts: number;
  requests_per_prompt_mean: number | null;
  requests_per_prompt_median: number | null;
  requests_per_prompt_p90: number | null;
  tokens_per_prompt_mean: number | null;
  tokens_per_prompt_median: number | null;
  tokens_per_prompt_p90: number | null;
  cost_per_prompt_usd_mean: number | null;
  cost_per_prompt_usd_median: number | null;
  cost_per_prompt_usd_p90: number | null;
  tool_calls_per_prompt_mean: number | null;
  tool_calls_per_prompt_median: number | null;
  tool_calls_per_prompt_p90: number | null;
  active_hours: number;
  hourly_sessions: number;
  cost_per_active_hour_usd_mean: number | null;
  cost_per_active_hour_usd_median: number | null;
  cost_per_active_hour_usd_p90: number | null;
}

export type SameModelRow = { model: string; harness: string; note: string | null } & Pick<
  UnitFigures,
  'prompts' | 'priced_prompts' | `${(typeof PER_PROMPT)[number]}_${(typeof STATS)[number]}`
>;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Keys of per-prompt figure fields, in order. */
const perPromptFields = (): string[] => PER_PROMPT.flatMap((f) => STATS.map((s) => `${f}_${s}`));

function unitFigures(
  prompt: Record<string, unknown> | undefined,
  session: Record<string, unknown> | undefined,
  billed: boolean,
): UnitFigures {
  const out: Record<string, number | null> = {
    prompts: num(prompt?.prompts),
    turns: num(session?.turns),
    tool_calls: num(session?.tool_calls),
    subagent_tasks: num(session?.subagent_tasks),
    answered_prompts: num(prompt?.answered_prompts),
    priced_prompts: num(prompt?.priced_prompts),
    session_total_prompts: num(prompt?.session_total_prompts),
  };
  for (const f of PER_PROMPT) {
    for (const s of STATS) {
      const k = `${f}_${s}`;
      // A harness that records no billed usage (Cursor): its prompts' usage is unknown, not zero.
      out[k] = !billed && USAGE_PER_PROMPT.has(f) ? null : numOrNull(prompt?.[k]);
    }
  }
  out.active_hours = num(session?.active_hours);
  out.hourly_sessions = billed ? num(session?.hourly_sessions) : 0;
  for (const s of STATS)
    out[`cost_per_active_hour_usd_${s}`] = billed ? numOrNull(session?.[`cost_per_active_hour_usd_${s}`]) : null;
  return out as unknown as UnitFigures;
}

export interface UnitStats {
  /** Figures of a harness (billed: it records billed usage). */
  harness(h: string, billed: boolean): UnitFigures;
  /** Figures of a harness × detail value. */
  detail(h: string, value: string, billed: boolean): UnitFigures;
  sameModel: SameModelRow[];
  /** Per priced prompt with a cost above zero: harness and cost (the HTML's cost distribution). */
  promptCosts(): Promise<ChartRow[]>;
}

const keyOf = (h: string, d: string) => `${h}\u0000${d}`;

/** Runs the unit-of-work templates for the compare report (harness level, the detail key's level and per model). */
export async function unitStats(conn: DuckDBConnection, p: ReportParams, detail: GroupKey | null): Promise<UnitStats> {
  await ensureUnitMacros(conn);
  const values = { ...templateValues(p), cost_mode: p.costMode };
  // The range's prompts and sessions with their figures, computed once into
  // temporary tables; each level (per harness, per detail key, per model for
  // the same-model table, the chart's points) aggregates those rows.
  await materializeTemplate(conn, loadTemplate('compare_prompt_rows'), values);
  await materializeTemplate(conn, loadTemplate('compare_session_rows'), values);
  const prompts = loadTemplate('compare_prompts');
  const sessions = loadTemplate('compare_sessions');
  const byKey = (rows: Record<string, unknown>[]) =>
    new Map(rows.map((r) => [keyOf(String(r.harness), String(r.detail ?? '')), r]));
  const run = async (slot: string) => ({
    prompts: byKey(await runTemplate(conn, prompts, {}, { detail: slot })),
    sessions: byKey(await runTemplate(conn, sessions, {}, { detail: slot })),
  });
  const top = await run(`''`);
  const det = detail ? await run(groupExpr(detail)) : null;
  const models =
    detail === 'model' ? det!.prompts : byKey(await runTemplate(conn, prompts, {}, { detail: groupExpr('model') }));
  return {
    harness: (h, billed) => unitFigures(top.prompts.get(keyOf(h, '')), top.sessions.get(keyOf(h, '')), billed),
    detail: (h, v, billed) => unitFigures(det?.prompts.get(keyOf(h, v)), det?.sessions.get(keyOf(h, v)), billed),
    sameModel: sameModelRows([...models.values()]),
    promptCosts: async () => (await runTemplate(conn, loadTemplate('compare_prompt_costs'), {})) as ChartRow[],
  };
}

/** Models that answered prompts in two or more harnesses: their per-prompt figures side by side. */
function sameModelRows(rows: Record<string, unknown>[]): SameModelRow[] {
  const byModel = new Map<string, Record<string, unknown>[]>();
  for (const r of rows) {
    const m = String(r.detail);
    if (m === 'unknown' || num(r.answered_prompts) === 0) continue;
    byModel.set(m, [...(byModel.get(m) ?? []), r]);
  }
  const out: SameModelRow[] = [];
  for (const [model, list] of [...byModel].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (new Set(list.map((r) => r.harness)).size < 2) continue;
    for (const r of list.sort((a, b) => String(a.harness).localeCompare(String(b.harness)))) {
      const f = unitFigures(r, undefined, true);
      const row: Record<string, unknown> = {
        model,
        harness: String(r.harness),
        prompts: f.prompts,
        priced_prompts: f.priced_prompts,
      };
      for (const k of perPromptFields()) row[k] = f[k as keyof UnitFigures];
      row.note =
        f.prompts < FEW_PROMPTS
          ? `${f.prompts} prompt${f.prompts === 1 ? '' : 's'}: too few to compare (under ${FEW_PROMPTS})`
          : null;
      out.push(row as SameModelRow);
    }
  }
  return out;
}

const col = (field: string, label: string, kind: Column['kind'], narrow = false): Column => ({
  field,
  label,
  kind,
  narrow,
});

const LABEL: Record<(typeof PER_PROMPT)[number], string> = {
  requests_per_prompt: 'Req/prompt',
  tokens_per_prompt: 'Tok/prompt',
  cost_per_prompt_usd: 'Cost/prompt',
  tool_calls_per_prompt: 'Tools/prompt',
};

/** Every unit-of-work figure as a column for CSV and HTML (left out of terminal tables, which show the per-prompt table). */
export const UNIT_COLUMNS: Column[] = [
  col('prompts', 'Prompts', 'int'),
  col('turns', 'Turns', 'int'),
  col('tool_calls', 'Tool calls', 'int'),
  col('subagent_tasks', 'Subagent tasks', 'int'),
  col('answered_prompts', 'Answered', 'int'),
  col('priced_prompts', 'Priced prompts', 'int'),
  // Added after the others were published: last in the CSV, so their positions hold.
  { ...col('session_total_prompts', 'Session-total prompts', 'int'), csvLast: true },
  ...PER_PROMPT.flatMap((f) =>
    STATS.map((s) => col(`${f}_${s}`, `${LABEL[f]} ${s}`, f === 'cost_per_prompt_usd' ? 'usd' : 'ratio')),
  ),
  col('active_hours', 'Active h', 'ratio'),
  col('hourly_sessions', 'Hourly sessions', 'int'),
  ...STATS.map((s) => col(`cost_per_active_hour_usd_${s}`, `Cost/active h ${s}`, 'usd')),
].map((c) => ({ ...c, table: false }));

/**
 * A row whose figures rest on fewer than FEW_PROMPTS prompts is marked `*`
 * beside its prompt count (a display column, in every table width; the JSON
 * row's own `note` says it in words where it has one).
 */
const FEW_MARK_COLUMN: Column = { field: 'few_prompts_mark', label: '', kind: 'text', narrow: true };
const isFew = (r: Record<string, unknown>) => num(r.prompts) > 0 && num(r.prompts) < FEW_PROMPTS;
const markFew = (r: Record<string, unknown>) => ({ ...r, few_prompts_mark: isFew(r) ? '*' : '' });
const fewColumn = (rows: Record<string, unknown>[]) => (rows.some(isFew) ? [FEW_MARK_COLUMN] : []);
const fewNote = (rows: Record<string, unknown>[]) =>
  rows.some(isFew) ? [`* fewer than ${FEW_PROMPTS} prompts: too few to compare.`] : [];

/** The terminal's view of the figures: per harness (or harness × detail), the medians and the cost tail. */
/** Which prompts the per-prompt usage figures leave out because their sessions record session totals (named by harness). */
function sessionTotalNote(rows: Record<string, unknown>[]): string[] {
  const by = new Map<string, number>();
  for (const r of rows)
    if (num(r.session_total_prompts) > 0)
      by.set(String(r.harness), (by.get(String(r.harness)) ?? 0) + num(r.session_total_prompts));
  if (!by.size) return [];
  const list = [...by].map(([h, n]) => `${h} ${n}`).join(', ');
  return [
    `Responses only: prompts of sessions whose usage is recorded as a session total (${list}) count as prompts, but their requests, tokens and cost are not in these figures (a session total is not a prompt's).`,
  ];
}

export function perPromptDataset(
  title: string,
  rows: Record<string, unknown>[],
  keys: { field: string; label: string }[],
): Dataset {
  return {
    title,
    columns: [
      ...keys.map((k) => ({ field: k.field, label: k.label, kind: 'key' as const, narrow: true })),
      col('prompts', 'Prompts', 'int', true),
      ...fewColumn(rows),
      // At 80 columns these go first (lowest drop first), so that harness and model names stay whole.
      { ...col('requests_per_prompt_median', 'Req/p med', 'ratio', true), drop: 2 },
      { ...col('tokens_per_prompt_median', 'Tok/p med', 'int', true), drop: 3 },
      { ...col('cost_per_prompt_usd_mean', '$/p mean', 'usd', true), drop: 4 },
      col('cost_per_prompt_usd_median', '$/p med', 'usd', true),
      { ...col('cost_per_prompt_usd_p90', '$/p p90', 'usd', true), drop: 5 },
      { ...col('tool_calls_per_prompt_median', 'Tools/p', 'ratio', true), drop: 1 },
      {
        ...col('cost_per_active_hour_usd_median', '$/act h', 'usd'),
        legend: '$/act h = cost per active hour (idle gaps over 10 minutes removed), median over sessions.',
      },
      col('active_hours', 'Active h', 'ratio'),
    ],
    rows: rows.map(markFew) as Dataset['rows'],
    notes: [
      ...fewNote(rows),
      'Per prompt typed by a person: the billed responses (requests) from it to the next prompt, their tokens and cost (prompts with an unpriced response left out of the cost), and the tool calls in between. med = median.',
      ...sessionTotalNote(rows),
    ],
  };
}

/**
 * The answer `compare` leads with: for each model answering FEW_PROMPTS or
 * more priced prompts in two or more harnesses, the harness where its prompts
 * cost least (median), beside each other such harness, with both spreads
 * (p90) and how many times the cheaper one's median the other's is. Rows with
 * fewer prompts answer nothing and are left out (counted by the table's note).
 */
export interface CheaperRow {
  model: string;
  harness: string;
  prompts: number;
  cost_per_prompt_usd_median: number;
  cost_per_prompt_usd_p90: number | null;
  than_harness: string;
  than_prompts: number;
  than_cost_per_prompt_usd_median: number;
  than_cost_per_prompt_usd_p90: number | null;
  /** than_cost_per_prompt_usd_median / cost_per_prompt_usd_median (null when the cheaper one's median is 0). */
  times: number | null;
}

const comparable = (r: SameModelRow) => r.prompts >= FEW_PROMPTS && r.cost_per_prompt_usd_median !== null;

export function cheaperPerPrompt(rows: readonly SameModelRow[]): CheaperRow[] {
  const out: CheaperRow[] = [];
  for (const model of [...new Set(rows.map((r) => r.model))]) {
    const list = rows
      .filter((r) => r.model === model && comparable(r))
      .sort(
        (a, b) => a.cost_per_prompt_usd_median! - b.cost_per_prompt_usd_median! || a.harness.localeCompare(b.harness),
      );
    const [best, ...rest] = list;
    for (const o of best ? rest : []) {
      out.push({
        model,
        harness: best!.harness,
        prompts: best!.prompts,
        cost_per_prompt_usd_median: best!.cost_per_prompt_usd_median!,
        cost_per_prompt_usd_p90: best!.cost_per_prompt_usd_p90,
        than_harness: o.harness,
        than_prompts: o.prompts,
        than_cost_per_prompt_usd_median: o.cost_per_prompt_usd_median!,
        than_cost_per_prompt_usd_p90: o.cost_per_prompt_usd_p90,
        times: best!.cost_per_prompt_usd_median
          ? Math.round((o.cost_per_prompt_usd_median! / best!.cost_per_prompt_usd_median!) * 100) / 100
          : null,
      });
    }
  }
  return out;
}

/** How the rows left out of a table are said: one line with their count and how to see them. */
export const fewLine = (n: number, what: string, whats = `${what}s`) =>
  `${counted(n, what, whats)} with fewer than ${FEW_PROMPTS} prompts, too few to compare, not shown: \`report compare --all\` lists ${n === 1 ? 'it' : 'them'} (the JSON has every row).`;

/** The lead table: which harness is cheaper per prompt for the same model, with its spread. `title`: the report's, with its period. */
export function cheaperDataset(title: string, answer: readonly CheaperRow[], same: readonly SameModelRow[]): Dataset {
  const few = same.filter((r) => !comparable(r)).length;
  const notes = answer.length
    ? [
        ...answer.map(
          (a) =>
            `${a.model}: ${a.harness} is cheaper per prompt than ${a.than_harness}${a.times === null ? '' : `, ${a.times}× less at the median`} (${a.prompts} and ${a.than_prompts} prompts).`,
        ),
        `med = median cost per prompt, p90 = its 90th percentile (the spread of the costlier prompts); × = the other harness's median over the cheaper one's.`,
      ]
    : [];
  if (few) notes.push(fewLine(few, 'same-model row'));
  return {
    title: `${title}: cheaper per prompt, same model`,
    csv: false,
    columns: [
      { field: 'model', label: 'Model', kind: 'key', narrow: true },
      { field: 'harness', label: 'Cheaper', kind: 'key', narrow: true },
      col('cost_per_prompt_usd_median', '$/p med', 'usd', true),
      col('cost_per_prompt_usd_p90', '$/p p90', 'usd', true),
      { field: 'than_harness', label: 'Than', kind: 'key', narrow: true },
      col('than_cost_per_prompt_usd_median', '$/p med', 'usd', true),
      col('than_cost_per_prompt_usd_p90', '$/p p90', 'usd', true),
      { field: 'times_text', label: '×', kind: 'text', narrow: true },
    ],
    rows: answer.map((a) => ({ ...a, times_text: a.times === null ? '—' : `${a.times}×` })),
    notes,
    empty: `No model answered ${FEW_PROMPTS} or more priced prompts in two harnesses in this period: nothing to compare yet.`,
  };
}

/** Rows kept in a per-prompt table: those with enough prompts, unless --all; the rest said in one line. */
export function enoughPrompts<T extends { prompts: number }>(rows: T[], all: boolean): { shown: T[]; hidden: number } {
  if (all) return { shown: rows, hidden: 0 };
  const shown = rows.filter((r) => !(r.prompts > 0 && r.prompts < FEW_PROMPTS));
  return { shown, hidden: rows.length - shown.length };
}

export function sameModelDataset(rows: SameModelRow[]): Dataset {
  const few = rows.filter((r) => r.note !== null);
  return {
    title: 'Same model, different harness (per prompt)',
    columns: [
      { field: 'model', label: 'Model', kind: 'key', narrow: true },
      { field: 'harness', label: 'Harness', kind: 'key', narrow: true },
      col('prompts', 'Prompts', 'int', true),
      ...fewColumn(rows as unknown as Record<string, unknown>[]),
      col('requests_per_prompt_median', 'Req/p med', 'ratio', true),
      col('tokens_per_prompt_median', 'Tok/p med', 'int', true),
      col('cost_per_prompt_usd_mean', '$/p mean', 'usd'),
      col('cost_per_prompt_usd_median', '$/p med', 'usd', true),
      col('cost_per_prompt_usd_p90', '$/p p90', 'usd', true),
      col('tool_calls_per_prompt_median', 'Tools/p', 'ratio'),
      col('note', 'Note', 'text'),
    ],
    rows: (rows as unknown as Record<string, unknown>[]).map(markFew) as Dataset['rows'],
    notes: rows.length
      ? [
          `Models that answered prompts in two or more harnesses in this period.${few.length ? ` ${few.length} row${few.length === 1 ? ' has' : 's have'} fewer than ${FEW_PROMPTS} prompts (marked *): too few to compare.` : ''}`,
        ]
      : [],
    empty: 'No model answered prompts in two or more harnesses in this period.',
  };
}
