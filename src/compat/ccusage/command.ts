// ccusage 20's commands as tx-usage commands: `daily`, `weekly`, `monthly`,
// `session`, `blocks` (every harness tx-usage reads) and the per-agent ones
// (`tx-usage claude daily`). Each asks tx-usage's own report
// (cli/report.ts answerReport: the summary grouped by day or session,
// harness and model; the blocks report) and writes it in ccusage's JSON
// shape (shape.ts, blocks.ts) or as a table with ccusage's columns.
import type { Runtime } from '../../cli/runtime.js';
import { answerReport, type ReportArgs } from '../../cli/report.js';
import { outputColumns } from '../../core/inputs.js';
import { isValidTimeZone, systemTimeZone, todayIn, UsageError } from '../../report/period.js';
import type { Row } from '../../report/summary-rows.js';
import type { BlocksReport } from '../../live/blocks-report.js';
import type { Column, Dataset } from '../../render/columns.js';
import { renderTable } from '../../render/table.js';
import { renderJson } from '../../render/json.js';
import { printableLines, warningLines } from '../../render/terminal-text.js';
import { harnessOfAgent } from './agents.js';
import {
  agentRows,
  agentTotals,
  AGENT_KEYS,
  totalsOf,
  unifiedRows,
  UNIFIED_KEY,
  weekStart,
  type Period,
  type ShapeOptions,
} from './shape.js';
import { ccusageBlock } from './blocks.js';
import { e10ToUsd } from '../../core/money.js';

/** The options of ccusage 20's reports (`ccusage daily --help` and the others), as parsed. */
export interface CcusageArgs {
  json?: boolean;
  since?: string;
  until?: string;
  timezone?: string;
  last?: string;
  byAgent?: boolean;
  sections?: string;
  cost?: boolean;
  compact?: boolean;
  config?: string;
  all?: boolean;
  offline?: boolean;
  mode?: string;
  order?: string;
  breakdown?: boolean;
  project?: string;
  id?: string;
  active?: boolean;
  recent?: boolean;
  tokenLimit?: string;
  sessionLength?: string;
  /** Per-agent commands: the report (`tx-usage claude daily`: daily). */
  report?: string;
}

export const CCUSAGE_REPORTS = ['daily', 'weekly', 'monthly', 'session', 'blocks'] as const;
type ReportName = (typeof CCUSAGE_REPORTS)[number];

/** Everything before ccusage's first record (ccusage reports all history unless --since is given). */
const ALL_HISTORY = '2000-01-01';

const COST_MODES: Record<string, string> = { auto: 'auto', calculate: 'computed', display: 'recorded' };

function shiftDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - n);
  return d.toISOString().slice(0, 10);
}

/** `--last N`: the first day of the N most recent periods (1: today, this week, this month). */
function lastSince(period: Period, last: string, tz: string, weekStartsOn: 0 | 1): string {
  if (!/^[1-9]\d{0,4}$/.test(last.trim()))
    throw new UsageError(`--last ${JSON.stringify(last)}: expected a positive whole number of periods`);
  const k = Number(last) - 1;
  const today = todayIn(tz);
  if (period === 'weekly') return shiftDays(weekStart(today, weekStartsOn), 7 * k);
  if (period === 'monthly') {
    const d = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
    d.setUTCMonth(d.getUTCMonth() - k);
    return d.toISOString().slice(0, 10);
  }
  return shiftDays(today, k);
}

/** tx-usage's report arguments from ccusage's. `harness`: a per-agent command's. */
function reportArgs(a: CcusageArgs, harness: string | undefined): ReportArgs & { tz: string } {
  if (a.timezone !== undefined && !isValidTimeZone(a.timezone))
    throw new UsageError(`--timezone ${JSON.stringify(a.timezone)}: not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  const cost = a.mode === undefined ? undefined : COST_MODES[a.mode];
  if (a.mode !== undefined && !cost)
    throw new UsageError(`--mode ${JSON.stringify(a.mode)}: expected auto, calculate or display`);
  if (a.order !== undefined && a.order !== 'asc' && a.order !== 'desc')
    throw new UsageError(`--order ${JSON.stringify(a.order)}: expected asc or desc`);
  const r: ReportArgs & { tz: string } = {
    tz: a.timezone ?? systemTimeZone(),
    format: 'json',
    since: a.since ?? ALL_HISTORY,
  };
  if (a.timezone === undefined) delete (r as { tz?: string }).tz;
  if (a.until !== undefined) r.until = a.until;
  if (cost) r.cost = cost;
  if (harness) r.harness = harness;
  if (a.project !== undefined) r.project = a.project;
  return r as ReportArgs & { tz: string };
}

function shapeOptions(a: CcusageArgs): ShapeOptions {
  return { cost: a.cost !== false, byAgent: a.byAgent === true, order: a.order === 'desc' ? 'desc' : 'asc' };
}

/** Warnings on stderr, as `report` writes them (JSON carries none: ccusage's shape has no place for them). */
function warn(rt: Runtime, warnings: string[]): void {
  if (rt.quiet || !warnings.length) return;
  // The "no harness data found" message is lines of their own (as `report` prints it), not one escaped warning.
  const lines = warnings.filter((w) => w.includes('\n'));
  process.stderr.write(
    lines.map((w) => `${printableLines(w)}\n`).join('') + warningLines(warnings.filter((w) => !w.includes('\n'))),
  );
}

/** The summary's rows grouped by day (or session), harness and model: every figure a ccusage report shows. */
async function summaryRows(
  rt: Runtime,
  a: CcusageArgs,
  period: Period,
  harness: string | undefined,
  weekStartsOn: 0 | 1,
): Promise<{ rows: Row[]; warnings: string[] }> {
  const base = reportArgs(a, harness);
  if (a.last !== undefined && period !== 'session') {
    if (a.since !== undefined) throw new UsageError('--last and --since: choose one');
    base.since = lastSince(period, a.last, base.tz ?? systemTimeZone(), weekStartsOn);
  }
  const by = period === 'session' ? 'session,harness,model' : 'day,harness,model';
  const r = await answerReport(rt, { ...base, name: 'summary', by });
  let rows = ((r.out?.json.rows as Row[] | undefined) ?? []).filter(
    (x) => Number(x.requests) > 0 || Number(x.total_tokens) > 0,
  );
  if (a.id !== undefined) rows = rows.filter((x) => String(x.session) === a.id || String(x.session).startsWith(a.id!));
  return { rows, warnings: r.warnings };
}

/** ccusage's accepted-only options: said once when they change nothing here. */
function acceptedNotes(rt: Runtime, a: CcusageArgs): void {
  if (a.config !== undefined && !rt.quiet)
    process.stderr.write(
      printableLines(
        `tx-usage: --config ${a.config}: ccusage's config file is not read (tx-usage's own config file applies)`,
      ) + '\n',
    );
}

const TABLE_COLUMNS = (first: string, cost: boolean, agentCol: boolean): Column[] => [
  {
    field: 'period',
    label: first,
    kind: 'key',
    narrow: true,
    whole: first !== 'Session',
    ...(first === 'Session' ? { keep: 'ends' as const } : {}),
  },
  ...(agentCol ? [{ field: 'agents', label: 'Agents', kind: 'text' as const, wideDrop: 2 }] : []),
  { field: 'models', label: 'Models', kind: 'text', wideDrop: 1 },
  { field: 'input_tokens', label: 'Input', kind: 'int', narrow: true },
  { field: 'output_tokens', label: 'Output', kind: 'int', narrow: true },
  { field: 'cache_write_tokens', label: 'Cache Create', kind: 'int', narrow: true },
  { field: 'cache_read_tokens', label: 'Cache Read', kind: 'int', narrow: true },
  { field: 'total_tokens', label: 'Total Tokens', kind: 'int', narrow: true },
  ...(cost
    ? [
        {
          field: 'cost_usd',
          label: 'Cost (USD)',
          kind: 'usd' as const,
          narrow: true,
          partial: { by: ['cost_source'], bound: true },
        },
      ]
    : []),
];

/** A ccusage-shaped row as a table row (tx-usage's renderer: `≥$x*` for a partial cost, `—` for an unknown one). */
function tableRow(period: string, r: Record<string, unknown>, agents: string): Record<string, string | number | null> {
  const unknown = r.costSource === 'none';
  return {
    period,
    agents,
    models: ((r.modelsUsed as string[] | undefined) ?? Object.keys((r.models as object | undefined) ?? {})).join(', '),
    input_tokens: r.inputTokens as number,
    output_tokens: r.outputTokens as number,
    cache_write_tokens: r.cacheCreationTokens as number,
    cache_read_tokens: r.cacheReadTokens as number,
    total_tokens: r.totalTokens as number,
    cost_usd: unknown ? null : ((r.totalCost ?? r.cost ?? r.costUSD ?? null) as number | null),
    cost_source: (r.costSource as string | undefined) ?? null,
  };
}

const LABELS: Record<Period, string> = { daily: 'Date', weekly: 'Week', monthly: 'Month', session: 'Session' };
const TITLES: Record<Period, string> = {
  daily: 'Usage per day',
  weekly: 'Usage per week',
  monthly: 'Usage per month',
  session: 'Usage per session',
};

function table(
  rt: Runtime,
  period: Period,
  title: string,
  shaped: Record<string, unknown>[],
  totals: Record<string, unknown>,
  o: ShapeOptions,
  breakdown: boolean,
  field: string,
): string {
  const rows: Record<string, string | number | null>[] = [];
  for (const r of shaped) {
    const agents =
      r.metadata && Array.isArray((r.metadata as { agents?: unknown }).agents)
        ? (r.metadata as { agents: string[] }).agents.join(', ')
        : String(r.agent ?? '');
    rows.push(tableRow(String(r[field]), r, agents));
    if (breakdown)
      for (const m of (r.modelBreakdowns as Record<string, unknown>[]) ?? [])
        rows.push({
          ...tableRow(
            `  └ ${m.modelName}`,
            {
              ...m,
              modelsUsed: [m.modelName],
              totalTokens:
                Number(m.inputTokens) +
                Number(m.outputTokens) +
                Number(m.cacheCreationTokens) +
                Number(m.cacheReadTokens),
            },
            '',
          ),
          agents: '',
        });
  }
  const unpriced = (totals.unpricedModels as string[]) ?? [];
  const d: Dataset = {
    title,
    columns: TABLE_COLUMNS(LABELS[period], o.cost, true),
    rows,
    totals: { ...tableRow('Total', totals, ''), models: '' },
    notes:
      o.cost && unpriced.length
        ? [
            `No price for ${unpriced.join(', ')}: costs marked * cover only the priced responses (≥: at least that much).`,
          ]
        : [],
  };
  return renderTable(d, { width: outputColumns(), color: rt.color, home: rt.home });
}

/** `tx-usage daily|weekly|monthly|session` and `tx-usage AGENT REPORT` for those four. */
async function periodReport(rt: Runtime, a: CcusageArgs, period: Period, agent: string | null): Promise<void> {
  acceptedNotes(rt, a);
  const o = shapeOptions(a);
  const harness = agent === null ? undefined : resolveAgent(agent);
  const weekStartsOn = agent === 'claude' ? 0 : 1;
  const sections = agent === null && a.sections !== undefined ? parseSections(a.sections) : null;
  if (sections) {
    // One document with a list per section and the totals over the window (ccusage --sections).
    const doc: Record<string, unknown> = {};
    let all: Row[] = [];
    const warnings: string[] = [];
    const dayRows = sections.some((s) => s !== 'session') ? await summaryRows(rt, a, 'daily', harness, 1) : null;
    for (const s of sections) {
      const src = s === 'session' ? await summaryRows(rt, a, 'session', harness, 1) : dayRows!;
      if (!all.length) all = src.rows;
      for (const w of src.warnings) if (!warnings.includes(w)) warnings.push(w);
      doc[UNIFIED_KEY[s]] = unifiedRows(s, src.rows, o);
    }
    doc.totals = totalsOf(all, o.cost);
    if (a.json) process.stdout.write(renderJson(doc));
    else
      for (const s of sections)
        process.stdout.write(
          table(
            rt,
            s,
            TITLES[s],
            doc[UNIFIED_KEY[s]] as Record<string, unknown>[],
            doc.totals as Record<string, unknown>,
            o,
            a.breakdown === true,
            'period',
          ),
        );
    warn(rt, warnings);
    return;
  }
  const { rows, warnings } = await summaryRows(rt, a, period, harness, weekStartsOn);
  if (period === 'session' && a.id !== undefined && a.json) {
    process.stdout.write(renderJson(await sessionEntries(rt, a, rows, harness)));
    warn(rt, warnings);
    return;
  }
  let list: Record<string, unknown>[];
  let totals: Record<string, unknown>;
  let key: string;
  let field: string;
  if (agent === null) {
    list = unifiedRows(period, rows, o);
    totals = totalsOf(rows, o.cost);
    key = UNIFIED_KEY[period];
    field = 'period';
  } else {
    list = agentRows(agent, period, rows, o);
    totals = agentTotals(agent, rows, o.cost);
    ({ list: key, field } = AGENT_KEYS[period]);
  }
  if (a.json) process.stdout.write(renderJson({ [key]: list, totals }));
  else
    process.stdout.write(
      table(rt, period, `${TITLES[period]}${agent ? ` (${agent})` : ''}`, list, totals, o, a.breakdown === true, field),
    );
  warn(rt, warnings);
}

/**
 * `session --id ID --json`: ccusage's document for one session, its
 * responses one by one (`entries`) with the session's totals (the summary's
 * figures); `null` when no session has that id, as ccusage writes it. An id
 * prefix that several sessions share is a usage error naming them.
 */
async function sessionEntries(rt: Runtime, a: CcusageArgs, rows: Row[], harness: string | undefined): Promise<unknown> {
  const ids = [...new Set(rows.map((r) => String(r.session)))];
  const exact = ids.includes(a.id!) ? [a.id!] : ids;
  if (exact.length > 1)
    throw new UsageError(
      `--id ${JSON.stringify(a.id)}: ${exact.length} sessions begin so: ${exact.slice(0, 5).join(', ')}${exact.length > 5 ? ', …' : ''}`,
    );
  if (!exact.length) {
    if (!rt.quiet)
      process.stderr.write(printableLines(`tx-usage: no session ${JSON.stringify(a.id)} in the window`) + '\n');
    return null;
  }
  const id = exact[0]!;
  const mine = rows.filter((r) => String(r.session) === id);
  const [{ openReportStore }, { defineReportMacros }, { loadTemplate, runTemplate }, { HARNESS_IDS }] =
    await Promise.all([
      import('../../cli/report.js'),
      import('../../report/macros.js'),
      import('../../report/template.js'),
      import('../../core/types.js'),
    ]);
  // The store was brought up to date by the report just made: found current, nothing read again.
  const { store } = await openReportStore(rt, null);
  let events: Record<string, unknown>[];
  try {
    await defineReportMacros(store.conn);
    const cost = a.mode === undefined ? 'auto' : COST_MODES[a.mode]!;
    events = await runTemplate(store.conn, loadTemplate('ccusage_session_entries'), {
      harnesses: harness ? [harness] : [...HARNESS_IDS],
      project: a.project ?? '',
      cost_mode: cost,
      session: id,
    });
  } finally {
    await store.close();
  }
  const t = totalsOf(mine, a.cost !== false);
  const doc: Record<string, unknown> = { sessionId: id };
  if (a.cost !== false) doc.totalCost = t.totalCost;
  doc.totalTokens = t.totalTokens;
  doc.entries = events.map((e) => {
    const o: Record<string, unknown> = {
      timestamp: new Date(Number(e.ts_ms)).toISOString(),
      model: (e.model as string | null) ?? 'unknown',
      inputTokens: Number(e.input_tokens),
      outputTokens: Number(e.output_tokens),
      cacheCreationTokens: Number(e.cache_write_tokens),
      cacheReadTokens: Number(e.cache_read_tokens),
    };
    if (a.cost !== false) {
      // ccusage's costUSD of an unpriced response is 0; costPartial says it is not a known $0.
      o.costUSD = e10ToUsd(e.cost_e10 as string | null) ?? 0;
      o.costPartial = e.cost_e10 === null;
    }
    return { ...o, harness: e.harness, requests: Number(e.requests), reasoningTokens: Number(e.reasoning_tokens) };
  });
  // The session's figures tx-usage adds, as its session row has them.
  for (const k of [
    'requests',
    'reasoningTokens',
    'costSource',
    'costPartial',
    'unpricedRequests',
    'unpricedTokens',
    'sessionGrainTokens',
  ])
    if (k in t) doc[k] = t[k];
  return doc;
}

function parseSections(v: string): Period[] {
  const items = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const ok: Period[] = ['daily', 'weekly', 'monthly', 'session'];
  if (!items.length) throw new UsageError('--sections needs a value: a comma list of daily, weekly, monthly, session');
  for (const s of items)
    if (!ok.includes(s as Period))
      throw new UsageError(`--sections ${JSON.stringify(s)}: expected a comma list of daily, weekly, monthly, session`);
  return [...new Set(items)] as Period[];
}

function resolveAgent(agent: string): string {
  const h = harnessOfAgent(agent);
  if ('refused' in h) throw new UsageError(h.refused);
  return h.harness;
}

/** ccusage's `-r/--recent`: blocks of the last 3 days, the active one included. */
const RECENT_MS = 3 * 24 * 3_600_000;

/** `tx-usage blocks` and `tx-usage AGENT blocks` (Claude Code's blocks unless the agent names another harness). */
async function blocksCommand(rt: Runtime, a: CcusageArgs, agent: string | null): Promise<void> {
  acceptedNotes(rt, a);
  if (a.sessionLength !== undefined && Number(a.sessionLength) !== 5) {
    throw new UsageError(
      `--session-length ${JSON.stringify(a.sessionLength)}: tx-usage's blocks are the 5-hour windows Anthropic's limits use; only 5 is supported`,
    );
  }
  const harness = agent === null ? undefined : resolveAgent(agent);
  const base = reportArgs(a, harness);
  const r = await answerReport(rt, {
    ...base,
    name: 'blocks',
    ...(a.tokenLimit !== undefined ? { tokenLimit: a.tokenLimit } : {}),
  });
  const rep = r.out?.json as unknown as BlocksReport | undefined;
  if (!rep) {
    warn(rt, r.warnings);
    return;
  }
  const now = Date.parse(rep.now);
  const keep = rep.blocks.map(
    (b) => (a.active ? b.is_active : true) && (a.recent ? b.is_active || Date.parse(b.start) >= now - RECENT_MS : true),
  );
  const idx = rep.blocks.map((_, i) => i).filter((i) => keep[i]);
  if (a.order === 'desc') idx.reverse();
  if (a.json)
    process.stdout.write(renderJson({ blocks: idx.map((i) => ccusageBlock(rep.blocks[i]!, rep.token_limit)) }));
  else {
    const d = r.out!.datasets[0]!;
    // The report's totals are the window's: left out when --active or --recent keeps only some blocks.
    const some = idx.length < rep.blocks.length;
    const { totals, ...rest } = d;
    process.stdout.write(
      renderTable(
        { ...rest, ...(some ? {} : { totals }), rows: idx.map((i) => d.rows[i]!) },
        { width: outputColumns(), color: rt.color, home: rt.home },
      ),
    );
  }
  warn(rt, r.warnings);
}

/** Runs one of ccusage's reports; `agent`: a per-agent command's agent (ccusage's name), else every harness. */
export async function ccusageCommand(rt: Runtime, a: CcusageArgs, name: string, agent: string | null): Promise<void> {
  if (!(CCUSAGE_REPORTS as readonly string[]).includes(name)) {
    throw new UsageError(
      `${agent ? `${agent} ` : ''}${JSON.stringify(name)}: expected one of ${CCUSAGE_REPORTS.join(', ')}`,
    );
  }
  const report = name as ReportName;
  const blockOnly = (['active', 'recent', 'tokenLimit', 'sessionLength'] as const).filter(
    (k) => a[k] !== undefined && a[k] !== false,
  );
  if (report !== 'blocks' && blockOnly.length)
    throw new UsageError(`--${blockOnly[0]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is for blocks`);
  if (report !== 'session' && a.id !== undefined) throw new UsageError('--id is for session');
  if (report === 'blocks') return blocksCommand(rt, a, agent);
  return periodReport(rt, a, report, agent);
}
