// Each usage-bearing record of a source, with what it was counted as: the
// extractor's own account of the source (trace.ts), matched record by record
// with what the store decided for it (queries/explain_rows.sql): the row the
// store bills for each response, and what that row adds to a report of the
// window. Nothing here knows a harness: rule names come from the extractors
// (UsageEvent.rule, skip reasons), verdicts from the store's dedupe.
import { basename } from 'node:path';
import type { Grain, SourceLocation, UsageEvent } from '../core/types.js';
import { metricsOf, type CostSource, type Metrics, type TemplateRow } from '../report/summary-rows.js';
import type { TraceEntry } from './trace.js';
import type { UnitCost } from '../pricing/engine.js';

/**
 * What a counted record's computed cost is made of (JSON `price_breakdown`):
 * per priced category its tokens (or requests, searches), the rate in USD
 * per million at that response's tier, and their product; and the sum. A
 * billing tier or regional multiple (priority, data residency) is not in the
 * categories: then the sum differs from `computed_cost_usd`, which the store
 * holds.
 */
export interface PriceBreakdown {
  categories: { category: UnitCost['unit']; tokens: number; usd_per_mtok: number; usd: number }[];
  sum_usd: number;
}

/** What a record is, as `explain` lists it. */
export type RecordKind = 'usage' | 'split line' | 'skipped' | 'warning' | 'unparsable' | 'stored';

/** One listed record: where it is, what it was counted as and by which rule, and what it added. */
export interface ExplainRecord extends Omit<Metrics, 'cost_source'> {
  line: number | null;
  /** The database row, as the harness names it, where the record has no line. */
  row: string | null;
  /** The response's identity (dedupe key), for usage records. */
  key: string | null;
  record: RecordKind;
  /** True when it added to the totals (the billed row of its response, in the window). */
  counted: boolean;
  counted_as: string;
  /** The harness README rule (or skip reason) behind it; null for rows known only from the store. */
  rule: string | null;
  session_id: string | null;
  model: string | null;
  timestamp: string | null;
  /** The tokens the record carries (input + cache read + cache write + output), whether or not it added them. */
  record_tokens: number | null;
  /** What a usage record was made from (core/types.ts GRAINS): `response`, or a session's totals (`session`, `snapshot`); null for other records. */
  grain: Grain | null;
  /** Where its response is counted, when not here. */
  counted_at: { path: string; line: number | null; session_id: string } | null;
  /** As in a report row; null when the record added nothing. */
  cost_source: CostSource | null;
  /** explain.ts PriceBreakdown: what a counted record's computed cost is made of (null: not counted, no price, or no prices given). */
  price_breakdown?: PriceBreakdown | null;
}

/** The store's row of a source, with the billed row of its response (explain_rows.sql). */
type StoredRow = TemplateRow;

/** What a record that adds nothing adds. */
const NOTHING = {
  requests: 0,
  input_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: 0,
  reasoning_tokens: 0,
  total_tokens: 0,
  cost_usd: 0,
  cost_source: null,
  computed_cost_usd: 0,
  recorded_cost_usd: 0,
  unpriced_requests: 0,
  unpriced_tokens: 0,
} as const;

export interface LabelInput {
  sourceKey: string;
  /** The extractor's account, or null when the source was not read (its file is gone). */
  trace: TraceEntry[] | null;
  stored: StoredRow[];
  /** Only this session's records (a session id was asked for). */
  session: string | null;
  /** Every response of the source is of that session: its skips and warnings are the session's too. */
  onlySession: boolean;
}

export interface Labelled {
  records: ExplainRecord[];
  /** The stored rows that added to the totals (each once), for summing as the report sums. */
  added: StoredRow[];
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const modelName = (m: unknown) => (typeof m === 'string' && m ? m : 'an unnamed model');

function blank(at: SourceLocation | null, record: RecordKind, counted_as: string, rule: string | null): ExplainRecord {
  return {
    line: at?.line ?? null,
    row: at?.row ?? null,
    key: null,
    record,
    counted: false,
    counted_as,
    rule,
    session_id: null,
    model: null,
    timestamp: null,
    record_tokens: null,
    grain: null,
    counted_at: null,
    ...NOTHING,
  };
}

/** What a row made from a session's totals is counted as: it is no one response (the report marks its figures). */
function sessionGrainWhat(grain: string, requests: number, model: unknown): string {
  const what = grain === 'session' ? 'session total' : 'session counters since the last reading';
  return `${what} of ${modelName(model)}${requests > 0 ? ` (${requests} request${requests === 1 ? '' : 's'})` : ''}`;
}

/** What the store made of a row: counted here, outside the window, or counted at another record. */
function storeVerdict(
  s: StoredRow,
  sourceKey: string,
): Pick<ExplainRecord, 'counted' | 'counted_as' | 'counted_at'> & { adds: boolean } {
  const requests = Number(s.requests ?? 0);
  if (s.billed === true) {
    if (s.in_window !== true)
      return { adds: false, counted: false, counted_as: `outside the window (${s.local_day})`, counted_at: null };
    const what =
      s.grain === 'session' || s.grain === 'snapshot'
        ? sessionGrainWhat(String(s.grain), requests, s.model)
        : requests === 1
          ? `response of ${modelName(s.model)}`
          : requests === 0
            ? `usage of ${modelName(s.model)} without a request of its own`
            : `${requests} responses of ${modelName(s.model)}`;
    return { adds: true, counted: true, counted_as: what, counted_at: null };
  }
  if (s.billed_file === null || s.billed_file === undefined)
    return {
      adds: false,
      counted: false,
      counted_as: 'not billed (the store holds no billed row for its response)',
      counted_at: null,
    };
  const at = { path: String(s.billed_file), line: num(s.billed_line), session_id: String(s.billed_session) };
  const place = at.line === null ? basename(at.path) : `${basename(at.path)}:${at.line}`;
  // A copy into another session (a fork) says whose response it is, even when its original is in the same database.
  if (s.billed_source_key === sourceKey && at.session_id === s.session_id) {
    return {
      adds: false,
      counted: false,
      counted_as: at.line === null ? 'repeat of another record of this source' : `repeat of line ${at.line}`,
      counted_at: at,
    };
  }
  if (at.session_id !== s.session_id)
    return {
      adds: false,
      counted: false,
      counted_as: `copy of ${at.session_id}'s response, counted in ${place}`,
      counted_at: at,
    };
  return { adds: false, counted: false, counted_as: `the same response as ${place}, counted there`, counted_at: at };
}

function usageRecord(
  s: StoredRow | undefined,
  sourceKey: string,
  fields: Pick<
    ExplainRecord,
    'line' | 'key' | 'record' | 'rule' | 'session_id' | 'model' | 'timestamp' | 'record_tokens' | 'grain'
  >,
  added: StoredRow[],
): ExplainRecord {
  const base = { row: null, ...fields };
  if (!s)
    return {
      ...base,
      counted: false,
      counted_as: 'not in the store (the source changed after it was read?)',
      counted_at: null,
      ...NOTHING,
    };
  const v = storeVerdict(s, sourceKey);
  if (!v.adds) return { ...base, counted: v.counted, counted_as: v.counted_as, counted_at: v.counted_at, ...NOTHING };
  added.push(s);
  return { ...base, counted: true, counted_as: v.counted_as, counted_at: null, ...metricsOf(s) };
}

/** What a record of a usage event shows of it: place, identity, session, model, time and its tokens. */
function eventFields(
  e: UsageEvent,
): Pick<ExplainRecord, 'line' | 'key' | 'session_id' | 'model' | 'timestamp' | 'record_tokens' | 'grain'> {
  return {
    line: e.source_line,
    key: e.dedupe_key,
    session_id: e.session_id,
    model: e.model,
    timestamp: iso(e.ts),
    record_tokens: e.input_tokens + e.cache_read_tokens + e.cache_write_tokens + e.output_tokens,
    grain: e.grain ?? 'response',
  };
}

/** The record's fields in the documented order (README, `tx-usage explain`), whatever order they were set in. */
function documented(r: ExplainRecord): ExplainRecord {
  const {
    line,
    row,
    key,
    record,
    counted,
    counted_as,
    rule,
    counted_at,
    session_id,
    model,
    timestamp,
    record_tokens,
    grain,
  } = r;
  const {
    requests,
    input_tokens,
    cache_read_tokens,
    cache_write_tokens,
    output_tokens,
    reasoning_tokens,
    total_tokens,
  } = r;
  const { cost_usd, cost_source, computed_cost_usd, recorded_cost_usd, unpriced_requests, unpriced_tokens } = r;
  return {
    line,
    row,
    key,
    record,
    counted,
    counted_as,
    rule,
    counted_at,
    session_id,
    model,
    timestamp,
    record_tokens,
    grain,
    requests,
    input_tokens,
    cache_read_tokens,
    cache_write_tokens,
    output_tokens,
    reasoning_tokens,
    total_tokens,
    cost_usd,
    cost_source,
    computed_cost_usd,
    recorded_cost_usd,
    unpriced_requests,
    unpriced_tokens,
  };
}

/** Orders records by line (records without one keep the extractor's order, after them). */
function inOrder(list: { rec: ExplainRecord; seq: number }[]): ExplainRecord[] {
  return list
    .sort((a, b) => (a.rec.line ?? Infinity) - (b.rec.line ?? Infinity) || a.seq - b.seq)
    .map((x) => documented(x.rec));
}

export function labelRecords(inp: LabelInput): Labelled {
  const added: StoredRow[] = [];
  const out: { rec: ExplainRecord; seq: number }[] = [];
  // Stored rows by response and line: an event takes the row written for it.
  const byKeyLine = new Map<string, StoredRow[]>();
  const keyLine = (key: string, line: number | null) => `${key}\u0000${line ?? ''}`;
  for (const s of inp.stored) {
    const k = keyLine(String(s.dedupe_key), num(s.source_line));
    const list = byKeyLine.get(k);
    if (list) list.push(s);
    else byKeyLine.set(k, [s]);
  }
  const trace = inp.trace ?? [];
  const wanted = (e: UsageEvent) => inp.session === null || e.session_id === inp.session;
  // The line each emitted response is at, for its split lines.
  const emittedAt = new Map<string, number | null>();
  for (const t of trace) if (t.kind === 'event') emittedAt.set(t.event.dedupe_key, t.event.source_line);
  const placeKnown = inp.session === null || inp.onlySession;
  for (const t of trace) {
    switch (t.kind) {
      case 'event': {
        const e = t.event;
        if (!wanted(e)) break;
        const s = byKeyLine.get(keyLine(e.dedupe_key, e.source_line))?.shift();
        out.push({
          rec: usageRecord(s, inp.sourceKey, { ...eventFields(e), record: 'usage', rule: e.rule ?? null }, added),
          seq: t.seq,
        });
        break;
      }
      case 'merged': {
        const e = t.folded;
        if (!wanted(e)) break;
        const into = emittedAt.get(e.dedupe_key);
        const what = into != null ? `split line of line ${into}` : `split line of response ${e.dedupe_key}`;
        out.push({ rec: { ...blank(null, 'split line', what, t.rule), ...eventFields(e) }, seq: t.seq });
        break;
      }
      case 'skipped':
        if (placeKnown) out.push({ rec: blank(t.at, 'skipped', 'not counted', t.reason), seq: t.seq });
        break;
      case 'warning':
        if (placeKnown) out.push({ rec: blank(t.at, 'warning', 'warning', t.message), seq: t.seq });
        break;
      case 'unparsable':
        if (placeKnown) out.push({ rec: blank(t.at, 'unparsable', 'unparsable', 'Bad input'), seq: t.seq });
        break;
      default:
        t satisfies never;
    }
  }
  // Rows the store holds that this read did not give (the source changed since, or it is gone): as the store has them.
  let seq = trace.length;
  for (const list of byKeyLine.values()) {
    for (const s of list) {
      const line = num(s.source_line);
      const fields = {
        line,
        key: String(s.dedupe_key),
        record: 'stored' as const,
        rule: null,
        session_id: String(s.session_id),
        model: (s.model as string | null) ?? null,
        timestamp: iso(num(s.ts_ms)),
        record_tokens: num(s.row_total_tokens),
        grain: (s.grain as Grain | null) ?? 'response',
      };
      out.push({ rec: usageRecord(s, inp.sourceKey, fields, added), seq: seq++ });
    }
  }
  return { records: inOrder(out), added };
}
