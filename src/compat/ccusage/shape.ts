// tx-usage's report rows in ccusage 20's JSON shapes (`ccusage daily --json`
// and the others, as ccusage 20.0.24 writes them). The figures are the
// summary report's (queries/summary.sql, grouped by period, harness and
// model): here they are only added up per period, agent and model (tokens
// as integers, costs in 1e-10 USD) and renamed. README "Coming from ccusage"
// documents the shapes, the fields added and how an unknown cost is written.
import { e10ToUsd, usdToE10 } from '../../core/money.js';
import type { CostSource, Row } from '../../report/summary-rows.js';
import { agentOf } from './agents.js';

export type Period = 'daily' | 'weekly' | 'monthly' | 'session';
type Json = Record<string, unknown>;

/** One group's figures, added exactly. */
interface Sum {
  requests: number;
  input: number;
  output: number;
  cacheCreate: number;
  cacheRead: number;
  reasoning: number;
  total: number;
  costE10: bigint;
  sources: Set<CostSource>;
  unpricedRequests: number;
  unpricedTokens: number;
  sessionGrainTokens: number;
}

const emptySum = (): Sum => ({
  requests: 0,
  input: 0,
  output: 0,
  cacheCreate: 0,
  cacheRead: 0,
  reasoning: 0,
  total: 0,
  costE10: 0n,
  sources: new Set(),
  unpricedRequests: 0,
  unpricedTokens: 0,
  sessionGrainTokens: 0,
});
const n = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

function add(s: Sum, r: Row): void {
  s.requests += n(r.requests);
  s.input += n(r.input_tokens);
  s.output += n(r.output_tokens);
  s.cacheCreate += n(r.cache_write_tokens);
  s.cacheRead += n(r.cache_read_tokens);
  s.reasoning += n(r.reasoning_tokens);
  s.total += n(r.total_tokens);
  // cost_usd is e10ToUsd of the query's exact sum: back to 1e-10 USD exactly.
  if (r.cost_usd !== null && r.cost_usd !== undefined) s.costE10 += usdToE10(Number(r.cost_usd));
  s.sources.add(r.cost_source as CostSource);
  s.unpricedRequests += n(r.unpriced_requests);
  s.unpricedTokens += n(r.unpriced_tokens);
  s.sessionGrainTokens += n(r.session_grain_tokens);
}

/** The cost source of a group from its parts' (summary-rows.ts costSource, over the parts). */
function sourceOf(sources: Set<CostSource>): CostSource {
  const s = [...sources];
  if (!s.length || s.every((x) => x === 'none')) return 'none';
  if (s.some((x) => x === 'none' || x === 'partial')) return 'partial';
  if (s.length === 1) return s[0]!;
  return 'mixed';
}

/** `costPartial`: some response of the group has no price, so the cost (`totalCost`, `cost`, `costUSD`) covers only the priced ones (0 when none is priced). */
const partial = (s: Sum) => s.unpricedRequests > 0 || s.unpricedTokens > 0 || sourceOf(s.sources) === 'none';

/** ccusage's token fields, then its cost, then what tx-usage adds. */
function figures(s: Sum, cost: boolean, costKey = 'totalCost'): Json {
  const o: Json = {
    inputTokens: s.input,
    outputTokens: s.output,
    cacheCreationTokens: s.cacheCreate,
    cacheReadTokens: s.cacheRead,
    totalTokens: s.total,
  };
  if (cost) o[costKey] = e10ToUsd(s.costE10)!;
  return { ...o, ...added(s, cost) };
}

/** The fields tx-usage adds to ccusage's (never in place of one). */
function added(s: Sum, cost: boolean): Json {
  const o: Json = { requests: s.requests, reasoningTokens: s.reasoning };
  if (cost)
    Object.assign(o, {
      costSource: sourceOf(s.sources),
      costPartial: partial(s),
      unpricedRequests: s.unpricedRequests,
      unpricedTokens: s.unpricedTokens,
    });
  o.sessionGrainTokens = s.sessionGrainTokens;
  return o;
}

/** Groups rows by a key, in first-seen order. */
function groupBy(rows: Row[], key: (r: Row) => string): Map<string, Row[]> {
  const m = new Map<string, Row[]>();
  for (const r of rows) {
    const k = key(r);
    (m.get(k) ?? m.set(k, []).get(k)!).push(r);
  }
  return m;
}

function sumOf(rows: Row[]): Sum {
  const s = emptySum();
  for (const r of rows) add(s, r);
  return s;
}

const modelOf = (r: Row) => String(r.model ?? 'unknown');

/** ccusage's `modelBreakdowns`: per model, highest cost first; `missingPricing: true` where some response of the model has no price. */
function modelBreakdowns(rows: Row[], cost: boolean): Json[] {
  const out = [...groupBy(rows, modelOf)].map(([model, rs]) => {
    const s = sumOf(rs);
    const o: Json = {
      modelName: model,
      inputTokens: s.input,
      outputTokens: s.output,
      cacheCreationTokens: s.cacheCreate,
      cacheReadTokens: s.cacheRead,
    };
    if (cost) {
      o.cost = e10ToUsd(s.costE10)!;
      if (partial(s)) o.missingPricing = true;
    }
    return { o: { ...o, ...added(s, cost) }, e10: s.costE10 };
  });
  out.sort((a, b) => (a.e10 === b.e10 ? 0 : a.e10 > b.e10 ? -1 : 1));
  return out.map((x) => x.o);
}

const modelsUsed = (rows: Row[]) => [...new Set(rows.map(modelOf))].sort();

/** Monday (unified reports, most agents) or Sunday (`ccusage claude weekly`) of a day's week. */
export function weekStart(day: string, startsOn: 0 | 1): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() - startsOn + 7) % 7));
  return d.toISOString().slice(0, 10);
}

/** A row's period: its day, week start, month, or session id. */
export function periodOf(period: Period, r: Row, weekStartsOn: 0 | 1 = 1): string {
  if (period === 'session') return String(r.session);
  const day = String(r.day);
  if (period === 'weekly') return weekStart(day, weekStartsOn);
  if (period === 'monthly') return day.slice(0, 7);
  return day;
}

export interface ShapeOptions {
  cost: boolean;
  byAgent: boolean;
  order: 'asc' | 'desc';
}

/** ccusage's `totals`: its token fields and cost, `unpricedModels` (models with a response without a price), and tx-usage's additions. */
export function totalsOf(rows: Row[], cost: boolean): Json {
  const s = sumOf(rows);
  const unpriced = [...groupBy(rows, modelOf)]
    .filter(([, rs]) => partial(sumOf(rs)))
    .map(([m]) => m)
    .sort();
  const f = figures(s, cost);
  const o: Json = {
    inputTokens: f.inputTokens,
    outputTokens: f.outputTokens,
    cacheCreationTokens: f.cacheCreationTokens,
    cacheReadTokens: f.cacheReadTokens,
    totalTokens: f.totalTokens,
  };
  if (cost) o.totalCost = f.totalCost;
  o.unpricedModels = unpriced;
  return { ...o, ...added(s, cost) };
}

/** Session facts (report/session-view.ts) as ccusage's session metadata. */
function sessionMeta(rows: Row[]): Json {
  const last = rows
    .map((r) => r.last_activity)
    .filter((v): v is string => typeof v === 'string')
    .sort()
    .at(-1);
  const first = rows
    .map((r) => r.first_activity)
    .filter((v): v is string => typeof v === 'string')
    .sort()[0];
  const project = rows.map((r) => r.project).find((v): v is string => typeof v === 'string');
  const m: Json = {};
  if (last) m.lastActivity = new Date(last).toISOString();
  if (first) m.firstActivity = new Date(first).toISOString();
  if (project) m.projectPath = project;
  m.reasoningOutputTokens = rows.reduce((x, r) => x + n(r.reasoning_tokens), 0);
  return m;
}

function order<T>(xs: T[], o: ShapeOptions['order']): T[] {
  return o === 'desc' ? xs.reverse() : xs;
}

/**
 * The unified report (`ccusage daily|weekly|monthly --json`): one row per
 * period, agent "all", `metadata.agents`; `--by-agent` adds `agents` (one
 * row per agent). `session`: one row per session and agent, highest cost first.
 */
export function unifiedRows(period: Period, rows: Row[], o: ShapeOptions): Json[] {
  if (period === 'session') {
    const groups = [...groupBy(rows, (r) => `${r.harness}\u0000${r.session}`)].map(([, rs]) => {
      const s = sumOf(rs);
      const row: Json = {
        period: String(rs[0]!.session),
        agent: agentOf(String(rs[0]!.harness)),
        ...figures(s, o.cost),
        modelsUsed: modelsUsed(rs),
        modelBreakdowns: modelBreakdowns(rs, o.cost),
        metadata: sessionMeta(rs),
      };
      return { row, s };
    });
    groups.sort((a, b) => (a.s.costE10 === b.s.costE10 ? b.s.total - a.s.total : a.s.costE10 > b.s.costE10 ? -1 : 1));
    return order(
      groups.map((g) => g.row),
      o.order,
    );
  }
  const periods = [...groupBy(rows, (r) => periodOf(period, r))].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return order(
    periods.map(([p, rs]) => {
      const agents = [...groupBy(rs, (r) => agentOf(String(r.harness)))].sort(([a], [b]) => (a < b ? -1 : 1));
      const row: Json = {
        period: p,
        agent: 'all',
        ...figures(sumOf(rs), o.cost),
        modelsUsed: modelsUsed(rs),
        modelBreakdowns: modelBreakdowns(rs, o.cost),
        metadata: { agents: agents.map(([a]) => a) },
      };
      if (o.byAgent)
        row.agents = agents.map(([a, ars]) => ({
          agent: a,
          ...figures(sumOf(ars), o.cost),
          modelsUsed: modelsUsed(ars),
          modelBreakdowns: modelBreakdowns(ars, o.cost),
        }));
      return row;
    }),
    o.order,
  );
}

/** The key of the unified report's list: `daily`, `weekly`, `monthly`, `session`. */
export const UNIFIED_KEY: Record<Period, string> = {
  daily: 'daily',
  weekly: 'weekly',
  monthly: 'monthly',
  session: 'session',
};

/** The per-agent report's list and period field (`ccusage claude daily --json`: `daily[].date`; session: `sessions[].sessionId`). */
export const AGENT_KEYS: Record<Period, { list: string; field: string }> = {
  daily: { list: 'daily', field: 'date' },
  weekly: { list: 'weekly', field: 'week' },
  monthly: { list: 'monthly', field: 'month' },
  session: { list: 'sessions', field: 'sessionId' },
};

/**
 * A per-agent report (`ccusage claude daily --json`): rows keyed `date`,
 * `week` (Claude Code's weeks start on Sunday, the others' on Monday, as
 * ccusage's), `month` or `sessionId`. Codex's rows also carry ccusage's Codex
 * fields (`costUSD`, `reasoningOutputTokens`, `models` per model name).
 */
export function agentRows(agent: string, period: Period, rows: Row[], o: ShapeOptions): Json[] {
  const { field } = AGENT_KEYS[period];
  const codex = agent === 'codex';
  const groups = [...groupBy(rows, (r) => periodOf(period, r, agent === 'claude' ? 0 : 1))].map(([p, rs]) => {
    const s = sumOf(rs);
    const row: Json = {
      [field]: p,
      ...figures(s, o.cost),
      modelsUsed: modelsUsed(rs),
      modelBreakdowns: modelBreakdowns(rs, o.cost),
    };
    if (period === 'session') {
      const m = sessionMeta(rs);
      for (const k of ['projectPath', 'firstActivity', 'lastActivity'] as const) if (m[k] !== undefined) row[k] = m[k];
      if (codex && m.projectPath !== undefined) row.directory = m.projectPath;
    }
    if (codex) {
      if (o.cost) row.costUSD = e10ToUsd(s.costE10)!;
      row.reasoningOutputTokens = s.reasoning;
      row.models = Object.fromEntries(
        [...groupBy(rs, modelOf)].map(([m, mrs]) => {
          const x = sumOf(mrs);
          return [
            m,
            {
              inputTokens: x.input,
              outputTokens: x.output,
              cacheCreationTokens: x.cacheCreate,
              cacheReadTokens: x.cacheRead,
              reasoningOutputTokens: x.reasoning,
              totalTokens: x.total,
              isFallback: false,
            },
          ];
        }),
      );
    }
    return { row, p, s };
  });
  if (period === 'session')
    groups.sort((a, b) => (a.s.costE10 === b.s.costE10 ? b.s.total - a.s.total : a.s.costE10 > b.s.costE10 ? -1 : 1));
  else groups.sort((a, b) => (a.p < b.p ? -1 : a.p > b.p ? 1 : 0));
  return order(
    groups.map((g) => g.row),
    o.order,
  );
}

/** Codex's totals also carry `costUSD` and `reasoningOutputTokens` (ccusage's Codex report). */
export function agentTotals(agent: string, rows: Row[], cost: boolean): Json {
  const t = totalsOf(rows, cost);
  if (agent === 'codex') {
    if (cost) t.costUSD = t.totalCost;
    t.reasoningOutputTokens = t.reasoningTokens;
  }
  return t;
}
