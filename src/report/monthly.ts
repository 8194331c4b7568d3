// `tx-usage report monthly`: the monthly spend review. For every calendar
// month the range touches (widened to whole months): spend and tokens in
// total and per breakdown key (default harness, model, project) with the
// change against the previous month, the top sessions and days by cost, and
// the share of cost from each token kind. Shape documented in docs/reports.md.
import type { DuckDBConnection } from '@duckdb/node-api';
import { e10ToUsd } from '../core/money.js';
import { COST_PARTIAL, GRAIN_COLUMNS, GRAIN_MARK_FIELD, type Column, type Dataset } from '../render/columns.js';
import { grainNote, unpricedNote } from '../render/cells.js';
import { baseChartData, type ChartRow } from './charts.js';
import { costSharesByMonth, momentsOf, type CostShares } from './costshares.js';
import type { ReportDefinition, ReportOutput } from './output.js';
import { groupExpr, keysSlot, type GroupKey } from './groups.js';
import { periodLabel, todayIn, UsageError } from './period.js';
import { sortRows } from './sort.js';
import {
  contextEntries,
  costSource,
  metricsOf,
  templateValues,
  type CostSource,
  type Metrics,
  type ReportParams,
} from './summary.js';
import { grainFieldsOf, type GrainFields } from './summary-rows.js';
import { loadTemplate, runTemplate } from './template.js';
import { ensureUnitMacros } from './unit-macros.js';

/** Keys a month can be broken down by (time keys would repeat the month). */
export const MONTHLY_BREAKDOWNS = ['harness', 'model', 'project', 'session', 'machine'] as const;
type Breakdown = (typeof MONTHLY_BREAKDOWNS)[number];

export interface MonthRow extends Metrics, GrainFields {
  sessions: number;
  active_days: number;
  previous_requests: number;
  previous_total_tokens: number;
  previous_cost_usd: number | null;
  total_tokens_change: number;
  total_tokens_change_ratio: number | null;
  cost_change_usd: number | null;
  cost_change_ratio: number | null;
  /** How the previous period's cost is known (its cost_source). */
  previous_cost_source: CostSource;
  /** A month cut short (complete: false): the whole month at the pace of its days so far; null for a whole month. */
  projected_total_tokens: number | null;
  projected_cost_usd: number | null;
}

export interface MonthSection {
  month: string;
  first_day: string;
  last_day: string;
  /** False for a month that has not ended yet (in the report's time zone) or that the report ends inside. */
  complete: boolean;
  /** The last day with figures: last_day, or the report's end when it falls inside the month. */
  through: string;
  days_in_month: number;
  /** Days first_day..through. */
  days_covered: number;
  /** The period the previous_* figures are of: the whole previous month, or its same days (1..days_covered) for a month cut short. */
  compared_with: { first_day: string; last_day: string };
  totals: MonthRow;
  /** `by_harness`, `by_model`, `by_project`, `by_session`: one list per breakdown key. */
  [breakdown: `by_${string}`]: (MonthRow & Record<string, unknown>)[];
  top_sessions: (Metrics & {
    rank: number;
    harness: string;
    session: string;
    project: string;
    models: string;
    first_ts: string | null;
    last_ts: string | null;
    prompts: number;
    tool_calls: number;
  })[];
  top_days: (Metrics & { rank: number; day: string; sessions: number })[];
  cost_shares: CostShares | null;
}

export interface MonthlyReport {
  since: string;
  until: string;
  /** The last day with figures: the requested end (--until, default today), never a day still to come. */
  through: string;
  timezone: string;
  breakdowns: Breakdown[];
  totals: Metrics & GrainFields & { sessions: number; active_days: number };
  months: MonthSection[];
  /** Harnesses with activity in the range but no billed usage recorded locally (Cursor). */
  harnesses_without_billed_usage: string[];
  warnings: string[];
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

export function monthEnd(day: string): string {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/** YYYY-MM of every month from since's to until's, inclusive. */
export function monthsBetween(since: string, until: string): string[] {
  const out: string[] = [];
  let [y, m] = since.split('-').map(Number) as [number, number];
  const last = until.slice(0, 7);
  for (;;) {
    const cur = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`;
    if (cur > last) break;
    out.push(cur);
    m++;
    if (m > 12) {
      m = 1;
      y++;
    }
  }
  return out;
}

/** Whole-month figures at the pace of a month's first `covered` of `days` days (null when the month is whole). */
function projection(
  total: number,
  cost: number | null,
  covered: number,
  days: number,
): Pick<MonthRow, 'projected_total_tokens' | 'projected_cost_usd'> {
  if (covered >= days) return { projected_total_tokens: null, projected_cost_usd: null };
  return {
    projected_total_tokens: Math.round((total * days) / covered),
    projected_cost_usd: cost === null ? null : Math.round((cost * days * 1e10) / covered) / 1e10,
  };
}

function monthRow(r: Record<string, unknown>, covered: number, days: number): MonthRow {
  const m = metricsOf(r);
  return {
    ...m,
    ...grainFieldsOf(r),
    sessions: num(r.sessions),
    active_days: num(r.active_days),
    previous_requests: num(r.previous_requests),
    previous_total_tokens: num(r.previous_total_tokens),
    previous_cost_usd: e10ToUsd(r.previous_cost_e10 as string | null),
    total_tokens_change: num(r.total_tokens_change),
    total_tokens_change_ratio: numOrNull(r.total_tokens_change_ratio),
    cost_change_usd: e10ToUsd(r.cost_change_e10 as string | null),
    cost_change_ratio: numOrNull(r.cost_change_ratio),
    previous_cost_source: costSource(
      num(r.previous_usage_events),
      num(r.previous_priced_events),
      num(r.previous_recorded_events),
    ),
    ...projection(m.total_tokens, m.cost_usd, covered, days),
  };
}

function emptyMonthRow(covered: number, days: number): MonthRow {
  return monthRow({ cost_e10: '0', previous_cost_e10: '0', cost_change_e10: '0' }, covered, days);
}

const dayOf = (d: string) => Number(d.slice(8, 10));

/** `first_day` + n days (n ≥ 0), as YYYY-MM-DD. */
const addDays = (d: string, n: number) =>
  new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** The month before `first` (a first day), as its first day. */
function previousMonthStart(first: string): string {
  const [y, m] = first.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 10);
}

function breakdowns(by: GroupKey[]): Breakdown[] {
  const out: Breakdown[] = [];
  for (const k of by) {
    if (!(MONTHLY_BREAKDOWNS as readonly string[]).includes(k)) {
      throw new UsageError(`--by ${k}: the monthly review breaks each month down by ${MONTHLY_BREAKDOWNS.join(', ')}`);
    }
    out.push(k as Breakdown);
  }
  return out;
}

export async function monthlyReport(
  conn: DuckDBConnection,
  def: ReportDefinition,
  p: ReportParams,
  warnings: string[],
): Promise<ReportOutput> {
  const keys = breakdowns(p.by);
  const q = {
    breakdown: def.query,
    top_sessions: 'monthly_sessions',
    top_days: 'monthly_days',
    cost_fit: 'monthly_costfit',
    ...def.queries,
  };
  const since = monthStart(p.since);
  const today = todayIn(p.tz);
  // The report ends at the requested end, never at a day still to come (a
  // range wholly in the future keeps its end: there is nothing to cut).
  const through = p.until > today && today >= since ? today : p.until;
  const until = monthEnd(through);
  const range: ReportParams = { ...p, since, until: through };
  const values = { ...templateValues(range), cost_mode: p.costMode };
  const months = monthsBetween(since, through);

  const breakdownTemplate = loadTemplate(q.breakdown);
  const byMonth = async (slot: string) => {
    const m = new Map<string, Record<string, unknown>[]>();
    for (const r of await runTemplate(conn, breakdownTemplate, values, { key: slot })) {
      const list = m.get(r.month as string) ?? [];
      list.push(r);
      m.set(r.month as string, list);
    }
    return m;
  };
  const totals = await byMonth(`'total'`);
  const perKey = new Map<Breakdown, Map<string, Record<string, unknown>[]>>();
  // The harness breakdown also feeds the month-over-month chart.
  for (const k of new Set<Breakdown>([...keys, 'harness'])) perKey.set(k, await byMonth(groupExpr(k)));

  const top = (name: string, dflt: number) => Math.max(0, Math.floor(def.options?.[name] ?? dflt));
  await ensureUnitMacros(conn); // top sessions show their prompts and tool calls
  const sessions = await runTemplate(conn, loadTemplate(q.top_sessions), { ...values, top: top('top_sessions', 10) });
  const days = await runTemplate(conn, loadTemplate(q.top_days), { ...values, top: top('top_days', 5) });
  const fit = await runTemplate(conn, loadTemplate(q.cost_fit), values);
  const shares = costSharesByMonth(
    fit.map((r) => ({
      month: r.month as string,
      group: `${r.harness}\u0000${r.provider ?? ''}\u0000${r.model ?? ''}`,
      cost_e10: r.cost_e10 as string,
      moments: momentsOf(r),
    })),
  );

  const sections: MonthSection[] = months.map((month) => {
    const first = `${month}-01`;
    const last = monthEnd(first);
    const end = through < last ? through : last;
    const length = dayOf(last);
    const covered = dayOf(end);
    // As monthly.sql compares: a whole month with the whole month before, one
    // cut short with the same days of the month before.
    const prevFirst = previousMonthStart(first);
    const prevLast = monthEnd(prevFirst);
    const prevEnd = covered >= length ? prevLast : [addDays(prevFirst, covered - 1), prevLast].sort()[0]!;
    const t = totals.get(month)?.[0];
    const section: MonthSection = {
      month,
      first_day: first,
      last_day: last,
      complete: end === last && last < today,
      through: end,
      days_in_month: length,
      days_covered: covered,
      compared_with: { first_day: prevFirst, last_day: prevEnd },
      totals: t ? monthRow(t, covered, length) : emptyMonthRow(covered, length),
      top_sessions: [],
      top_days: [],
      cost_shares: shares.get(month) ?? null,
    };
    for (const k of keys) {
      section[`by_${k}`] = sortRows(
        (perKey.get(k)!.get(month) ?? []).map((r) => ({ [k]: r.key as string, ...monthRow(r, covered, length) })),
        [k],
        p.sort,
      );
    }
    section.top_sessions = sessions
      .filter((r) => r.month === month)
      .map((r) => ({
        rank: num(r.rank),
        harness: String(r.harness),
        session: String(r.session),
        project: String(r.project),
        models: String(r.models),
        ...metricsOf(r),
        first_ts: iso(r.first_ts_ms),
        last_ts: iso(r.last_ts_ms),
        prompts: num(r.prompts),
        tool_calls: num(r.tool_calls),
      }));
    section.top_days = days
      .filter((r) => r.month === month)
      .map((r) => ({ rank: num(r.rank), day: String(r.day), ...metricsOf(r), sessions: num(r.sessions) }));
    return section;
  });

  const summary = loadTemplate('summary');
  const [tot] = await runTemplate(conn, summary, values, { keys: '' });
  const billed = new Set(
    (await runTemplate(conn, summary, values, { keys: keysSlot(['harness']) }))
      .filter((r) => num(r.usage_events) > 0)
      .map((r) => r.harness as string),
  );
  const contextOnly = [...new Set((await contextEntries(conn, range)).map((c) => c.harness))]
    .filter((h) => !billed.has(h))
    .sort();

  const report: MonthlyReport = {
    since,
    until,
    through,
    timezone: p.tz,
    breakdowns: keys,
    totals: {
      ...metricsOf(tot ?? {}),
      ...grainFieldsOf(tot ?? {}),
      sessions: num(tot?.sessions),
      active_days: num(tot?.active_days),
    },
    months: sections,
    harnesses_without_billed_usage: contextOnly,
    warnings,
  };

  const notes: string[] = [];
  for (const s of sections.filter((x) => !x.complete)) {
    if (s.days_covered < s.days_in_month) {
      notes.push(
        `${s.month}: days 1–${s.days_covered} of ${s.days_in_month} (to ${s.through}), compared with the same days of the month before (${s.compared_with.first_day} – ${s.compared_with.last_day}); "Projected" is the whole month at this pace.`,
      );
    } else notes.push(`${s.month}: not over yet (today is its last day), compared with the whole month before.`);
  }
  const unpriced = unpricedNote(report.totals.unpriced_requests, report.totals.unpriced_tokens);
  if (unpriced) notes.push(unpriced);
  const grain = grainNote(report.totals.session_grain_tokens);
  if (grain) notes.push(grain);
  if (contextOnly.length) {
    notes.push(
      `${contextOnly.join(', ')}: activity in this range but no billed usage recorded locally, so not in these figures (see \`tx-usage report compare\`).`,
    );
  }
  if (p.charts === false)
    return {
      definition: def,
      json: report as unknown as Record<string, unknown>,
      datasets: monthlyDatasets(def, report, notes),
      warnings,
    };
  const charts = await baseChartData(conn, range);
  const mom: ChartRow[] = [];
  for (const month of months) {
    for (const r of perKey.get('harness')!.get(month) ?? []) {
      if (num(r.usage_events) === 0) continue;
      mom.push({
        month,
        harness: r.key as string,
        cost_usd: e10ToUsd(r.cost_e10 as string | null),
        total_tokens: num(r.total_tokens),
      });
    }
  }
  charts.month_by_harness = mom;
  charts.cost_components = sections.flatMap((s) =>
    s.cost_shares
      ? (
          [
            ['uncached input', s.cost_shares.input_usd],
            ['cache read', s.cost_shares.cache_read_usd],
            ['cache write', s.cost_shares.cache_write_usd],
            ['output', s.cost_shares.output_usd],
            ['unattributed', s.cost_shares.unattributed_usd],
          ] as const
        )
          .filter(([, v]) => v > 0)
          .map(([component, cost_usd]) => ({ month: s.month, component, cost_usd }))
      : [],
  );

  return {
    definition: def,
    json: report as unknown as Record<string, unknown>,
    datasets: monthlyDatasets(def, report, notes),
    warnings,
    charts,
  };
}

const metric = (field: string, label: string, kind: Column['kind'], narrow = false): Column => ({
  field,
  label,
  kind,
  narrow,
});

function monthlyDatasets(def: ReportDefinition, r: MonthlyReport, notes: string[]): Dataset[] {
  const previousPartial = { by: ['previous_cost_source'], bound: true };
  const spend: Dataset = {
    title: `${def.title} ${periodLabel(r.since, r.through, r.timezone)}: spend per month`,
    columns: [
      { field: 'month', label: 'Month', kind: 'key', narrow: true },
      { field: 'breakdown', label: 'By', kind: 'key', narrow: true },
      { field: 'key', label: 'Key', kind: 'key', narrow: true },
      metric('requests', 'Reqs', 'int'),
      metric('input_tokens', 'Input', 'int'),
      metric('cache_read_tokens', 'Cache rd', 'int'),
      metric('cache_write_tokens', 'Cache wr', 'int'),
      metric('output_tokens', 'Output', 'int'),
      metric('reasoning_tokens', 'Reasoning', 'int'),
      { ...metric('total_tokens', 'Tokens', 'int', true), drop: 2, grainMark: GRAIN_MARK_FIELD },
      { ...metric('total_tokens_change_ratio', 'Δ tok', 'pct', true), drop: 1, signed: true },
      { ...metric('cost_usd', 'Cost', 'usd', true), partial: COST_PARTIAL, grainMark: GRAIN_MARK_FIELD },
      { ...metric('projected_cost_usd', 'Projected', 'usd', true), partial: COST_PARTIAL, csvLast: true },
      { ...metric('previous_cost_usd', 'Prev cost', 'usd'), partial: previousPartial },
      {
        ...metric('cost_change_usd', 'Δ cost', 'usd', true),
        drop: 3,
        signed: true,
        partial: { by: ['cost_source', 'previous_cost_source'], bound: false },
      },
      { ...metric('cost_change_ratio', 'Δ %', 'pct', true), signed: true },
      metric('cost_source', 'Cost src', 'text'),
      { ...metric('previous_cost_source', 'Prev src', 'text'), csvLast: true },
      { ...metric('projected_total_tokens', 'Proj. tokens', 'int'), csvLast: true },
      metric('sessions', 'Sessions', 'int'),
      metric('active_days', 'Days', 'int'),
      { ...metric('unpriced_requests', 'Unpriced', 'int'), csvLast: true },
      { ...metric('unpriced_tokens', 'Unpriced tok', 'int'), csvLast: true },
      ...GRAIN_COLUMNS,
    ],
    rows: [],
    notes,
  };
  for (const m of r.months) {
    spend.rows.push({ month: m.month, breakdown: 'total', key: 'all', ...m.totals });
    for (const k of r.breakdowns) {
      for (const row of m[`by_${k}`] ?? [])
        spend.rows.push({ ...row, month: m.month, breakdown: k, key: row[k] as string });
    }
  }
  const sessions: Dataset = {
    title: 'Top sessions by cost',
    columns: [
      { field: 'month', label: 'Month', kind: 'key', narrow: true },
      metric('rank', '#', 'int', true),
      { field: 'harness', label: 'Harness', kind: 'key', narrow: true },
      { field: 'session', label: 'Session', kind: 'key', narrow: true },
      { field: 'project', label: 'Project', kind: 'key' },
      metric('models', 'Models', 'text'),
      metric('prompts', 'Prompts', 'int', true),
      metric('tool_calls', 'Tools', 'int', true),
      metric('requests', 'Reqs', 'int'),
      metric('total_tokens', 'Tokens', 'int', true),
      { ...metric('cost_usd', 'Cost', 'usd', true), partial: COST_PARTIAL },
      metric('cost_source', 'Cost src', 'text'),
      metric('first_ts', 'First', 'time'),
      metric('last_ts', 'Last', 'time'),
    ],
    rows: r.months.flatMap((m) => m.top_sessions.map((s) => ({ month: m.month, ...s }))),
    timezone: r.timezone,
  };
  const days: Dataset = {
    title: 'Highest-spend days',
    columns: [
      { field: 'month', label: 'Month', kind: 'key', narrow: true },
      metric('rank', '#', 'int', true),
      { field: 'day', label: 'Day', kind: 'key', narrow: true },
      metric('requests', 'Reqs', 'int', true),
      metric('sessions', 'Sessions', 'int'),
      metric('total_tokens', 'Tokens', 'int', true),
      { ...metric('cost_usd', 'Cost', 'usd', true), partial: COST_PARTIAL },
      metric('cost_source', 'Cost src', 'text'),
    ],
    rows: r.months.flatMap((m) => m.top_days.map((d) => ({ month: m.month, ...d }))),
  };
  const shares: Dataset = {
    title: 'Share of cost by token kind',
    columns: [
      { field: 'month', label: 'Month', kind: 'key', narrow: true },
      metric('priced_cost_usd', 'Priced', 'usd', true),
      metric('input_share', 'Input', 'pct', true),
      metric('cache_read_share', 'Cache rd', 'pct', true),
      metric('cache_write_share', 'Cache wr', 'pct', true),
      metric('output_share', 'Output', 'pct', true),
      metric('unattributed_share', 'Unattr.', 'pct', true),
      metric('exact', 'Exact', 'text'),
    ],
    rows: r.months.map((m) =>
      m.cost_shares
        ? { month: m.month, ...m.cost_shares, exact: m.cost_shares.exact ? 'yes' : 'no' }
        : { month: m.month },
    ),
    notes: [
      'Shares are recovered from the per-response costs (rates fitted per month, harness, provider and model); "—" where no response has a cost yet.',
    ],
  };
  return [spend, sessions, days, shares];
}
