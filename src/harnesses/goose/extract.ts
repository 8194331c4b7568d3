// Goose's sessions.db → usage events (README.md beside this file has every
// rule and its evidence): one `response` row per `usage_ledger` row (schema
// 15+), one `session` row per `carried_forward` ledger row, and one `session`
// row per session for what its `accumulated_*` totals hold beyond its ledger
// rows (all of them in a database from before the ledger). The ledger, the
// `accumulated_*` columns and the messages' metadata count the same tokens:
// only the first two are read, and the second only for what the first lacks.
// The database is opened only through readSqliteSnapshot: never written,
// checkpointed or migrated, and nothing is created beside it.
import { checkCost, checkTokenCount, parseTimestamp } from '../../core/numbers.js';
import type { SessionFact, UsageEvent, WorkUnit } from '../../core/types.js';
import { readSqliteSnapshot, type SqliteDb } from '../../io/sqlite.js';
import { columnNames, pick, tableNames } from '../opencode/tables.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { RULE } from './rules.js';

interface Read {
  events: UsageEvent[];
  units: WorkUnit[];
  facts: SessionFact[];
}

interface Session {
  model: string | null;
  provider: string | null;
  project: string | null;
  /** sessions.created_at (tells sessions of one id in two databases apart). */
  created: string;
  /** updated_at, else created_at (epoch ms): where a residual goes when the session has no message. */
  updated: number | null;
  /** accumulated_* (null: column absent, cache only from schema 14). */
  acc: { input: number; output: number; cacheRead: number | null; cacheWrite: number | null };
  /** Σ of its ledger rows (carried_forward ones included: they hold accumulated usage too). */
  ledger: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Its assistant messages' times (epoch ms), ascending: where usage held only as totals is placed. */
  replies: number[];
  /** Its last message's time (epoch ms), or null. */
  lastMessage: number | null;
}

const text = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' || typeof v === 'bigint' ? String(v) : null;
const num = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v);

/** A message's created_timestamp: seconds, or ms above 1e10 (goose's MILLISECOND_TIMESTAMP_THRESHOLD). */
function messageTime(v: unknown): number | null {
  const n = num(v);
  if (typeof n !== 'number' || !Number.isFinite(n)) return null;
  return parseTimestamp(n > 1e10 ? n : n * 1000);
}

function modelOf(json: unknown): string | null {
  if (typeof json !== 'string') return null;
  try {
    const m = (JSON.parse(json) as { model_name?: unknown } | null)?.model_name;
    return text(m);
  } catch {
    return null;
  }
}

/** Token counters of a row; NULL is goose's "not reported" (0), anything else invalid is warned. */
function counters<K extends string>(
  r: Record<string, unknown>,
  keys: readonly K[],
  warn: (m: string) => void,
): Record<K, number> {
  const out = {} as Record<K, number>;
  const invalid: string[] = [];
  for (const k of keys) {
    const v = num(r[k]);
    const ck = checkTokenCount(v === null || v === undefined ? undefined : v);
    if (!ck.ok) invalid.push(`${k} ${ck.reason}`);
    out[k] = ck.value;
  }
  if (invalid.length) warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`);
  return out;
}

function readSessions(db: SqliteDb, file: string, sink: ExtractSink, out: Read): Map<string, Session> {
  const sessions = new Map<string, Session>();
  const cols = columnNames(db, 'sessions');
  const accCols = [
    'accumulated_input_tokens',
    'accumulated_output_tokens',
    'accumulated_cache_read_tokens',
    'accumulated_cache_write_tokens',
  ] as const;
  const cacheKnown = cols.has('accumulated_cache_read_tokens');
  const sql = `SELECT ${pick(cols, ['id', 'name', 'description', 'working_dir', 'created_at', 'updated_at', 'provider_name', 'model_config_json', 'parent_session_id', ...accCols])} FROM sessions`;
  for (const r of db.prepare(sql).iterate() as Iterable<Record<string, unknown>>) {
    const id = text(r.id);
    if (id === null) continue;
    const acc = counters(r, accCols, (m) => sink.warn(m, { file, row: `sessions ${id}` }));
    sessions.set(id, {
      model: modelOf(r.model_config_json),
      provider: text(r.provider_name),
      project: text(r.working_dir),
      created: text(r.created_at) ?? '',
      // Zoneless `YYYY-MM-DD HH:MM:SS` written by SQLite's CURRENT_TIMESTAMP: UTC.
      updated: parseTimestamp(r.updated_at) ?? parseTimestamp(r.created_at),
      acc: {
        input: acc.accumulated_input_tokens,
        output: acc.accumulated_output_tokens,
        cacheRead: cacheKnown ? acc.accumulated_cache_read_tokens : null,
        cacheWrite: cacheKnown ? acc.accumulated_cache_write_tokens : null,
      },
      ledger: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      replies: [],
      lastMessage: null,
    });
    // Title (README "Session"): the session's name, else its older description; a sub-agent names its parent.
    const title = text(r.name) ?? text(r.description);
    const parent = text(r.parent_session_id);
    if (title !== null || parent !== null)
      out.facts.push({ harness: 'goose', session_id: id, title, title_rank: 0, parent_session_id: parent, seq: 0 });
  }
  return sessions;
}

/** Message times, prompts and tool calls (README "Units of work"); the text is looked at inside SQLite only, never read out. */
function readMessages(db: SqliteDb, sessions: Map<string, Session>, out: Read): void {
  const cols = columnNames(db, 'messages');
  if (!cols.has('session_id') || !cols.has('created_timestamp')) return;
  const json = cols.has('content_json') && cols.has('role');
  const count = (type: string, role: string) =>
    json
      ? `CASE WHEN role = '${role}' AND json_valid(content_json) AND json_type(content_json) = 'array' THEN (SELECT count(*) FROM json_each(content_json) WHERE json_extract(value, '$.type') = '${type}') ELSE 0 END`
      : '0';
  const visible = cols.has('metadata_json')
    ? "CASE WHEN json_valid(metadata_json) THEN json_extract(metadata_json, '$.userVisible') END"
    : 'NULL';
  const sql = `SELECT id, ${pick(cols, ['message_id', 'session_id', 'created_timestamp', 'role'])}, ${count('text', 'user')} AS texts, ${count('toolRequest', 'assistant')} AS tools, ${visible} AS visible FROM messages ORDER BY session_id, created_timestamp, id`;
  for (const r of db.prepare(sql).iterate() as Iterable<Record<string, unknown>>) {
    const session = text(r.session_id);
    const ts = messageTime(r.created_timestamp);
    if (session === null || ts === null) continue;
    const s = sessions.get(session);
    if (s) {
      s.lastMessage = Math.max(s.lastMessage ?? ts, ts);
      if (r.role === 'assistant') s.replies.push(ts);
    }
    const key = `goose:${session}:${text(r.message_id) ?? String(num(r.id))}`;
    // A prompt: a user message with text that the user saw (goose hides its own summaries: userVisible false).
    if (Number(num(r.texts)) > 0 && num(r.visible) !== 0)
      out.units.push({
        harness: 'goose',
        session_id: session,
        kind: 'prompt',
        dedupe_key: key,
        dedupe_rank: 0,
        ts,
        count: 1,
      });
    const tools = Number(num(r.tools));
    if (tools > 0)
      out.units.push({
        harness: 'goose',
        session_id: session,
        kind: 'tool_call',
        dedupe_key: key,
        dedupe_rank: 0,
        ts,
        count: tools,
      });
  }
  for (const s of sessions.values()) s.replies.sort((a, b) => a - b);
}

function event(
  file: string,
  session: string,
  s: Session | undefined,
  fields: Partial<UsageEvent> & Pick<UsageEvent, 'ts' | 'dedupe_key' | 'rule'>,
): UsageEvent {
  return {
    harness: 'goose',
    session_id: session,
    project: s?.project ?? null,
    model: s?.model ?? null,
    provider: s?.provider ?? null,
    dedupe_rank: 0,
    requests: 1,
    input_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cache_write_5m_tokens: null,
    cache_write_1h_tokens: null,
    output_tokens: 0,
    reasoning_tokens: 0,
    recorded_cost_usd: null,
    source_file: file,
    source_line: null,
    ...fields,
  };
}

const LEDGER_TOKENS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'] as const;

function readLedger(db: SqliteDb, file: string, sink: ExtractSink, sessions: Map<string, Session>, out: Read): void {
  const cols = columnNames(db, 'usage_ledger');
  const missing = ['id', 'session_id', 'created_timestamp', 'input_tokens', 'output_tokens'].filter(
    (c) => !cols.has(c),
  );
  if (missing.length) {
    sink.warn(`usage_ledger has no ${missing.join(', ')} column; only the sessions' accumulated totals read`, { file });
    return;
  }
  const sql = `SELECT ${pick(cols, ['id', 'session_id', 'created_timestamp', 'model', ...LEDGER_TOKENS, 'cost', 'cost_source', 'is_compaction'])} FROM usage_ledger ORDER BY session_id, id`;
  for (const r of db.prepare(sql).iterate() as Iterable<Record<string, unknown>>) {
    const id = text(r.id);
    const session = text(r.session_id);
    const at = { file, row: `usage_ledger ${id ?? '?'}` };
    if (id === null || session === null) {
      sink.warn('usage_ledger row without an id or session_id skipped', at);
      continue;
    }
    const t = counters(r, LEDGER_TOKENS, (m) => sink.warn(m, at));
    const s = sessions.get(session);
    // Σ ledger per session, for the residual (README "What counts" 3).
    if (s) {
      s.ledger.input += t.input_tokens;
      s.ledger.output += t.output_tokens;
      s.ledger.cacheRead += t.cache_read_tokens;
      s.ledger.cacheWrite += t.cache_write_tokens;
    }
    // created_timestamp: strftime('%s','now'), epoch seconds.
    const rowTs = messageTime(r.created_timestamp);
    const carried = text(r.cost_source) === 'carried_forward';
    // README "Time": a carried_forward row is usage from before the upgrade, dated at it: placed at the last response before it.
    const ts = carried && rowTs !== null ? (lastBefore(s?.replies ?? [], rowTs) ?? rowTs) : rowTs;
    if (ts === null) {
      sink.warn('usage_ledger row without a usable created_timestamp skipped', at);
      continue;
    }
    if (t.input_tokens + t.output_tokens === 0) {
      sink.skip('ledger row with no tokens', at);
      continue;
    }
    // README "Tokens": input_tokens includes both cache buckets.
    const fresh = t.input_tokens - t.cache_read_tokens - t.cache_write_tokens;
    if (fresh < 0) sink.count('goose: input smaller than its cache reads and writes (uncached input taken as 0)');
    if (num(r.is_compaction) === 1) sink.count('goose: compaction calls (counted as calls)');
    out.events.push(
      event(file, session, s, {
        // README "Model": the call's model; a carried_forward row has none: the session's.
        model: text(r.model) ?? s?.model ?? null,
        ts,
        // README "Identity": ids restart in a database made anew; the time tells such rows apart.
        dedupe_key: `goose:${session}:${id}:${text(r.created_timestamp) ?? ''}`,
        requests: carried ? 0 : 1,
        input_tokens: Math.max(fresh, 0),
        cache_read_tokens: t.cache_read_tokens,
        cache_write_tokens: t.cache_write_tokens,
        output_tokens: t.output_tokens,
        // README "Cost": only a cost the provider reported is the call's price; goose's estimates are not.
        recorded_cost_usd: text(r.cost_source) === 'provider_reported' ? checkCost(num(r.cost)) : null,
        ...(carried ? { grain: 'session' as const, rule: RULE.carried } : { rule: RULE.call }),
      }),
    );
  }
}

/** The latest time in `sorted` strictly before `t`; null when none. */
function lastBefore(sorted: number[], t: number): number | null {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? sorted[lo - 1]! : null;
}

/** What a session's accumulated_* hold beyond its ledger rows (README "What counts" 3): one session-grain row. */
function residuals(file: string, sink: ExtractSink, sessions: Map<string, Session>, out: Read): void {
  for (const [id, s] of sessions) {
    const r = {
      input: Math.max(s.acc.input - s.ledger.input, 0),
      output: Math.max(s.acc.output - s.ledger.output, 0),
      cacheRead: s.acc.cacheRead === null ? 0 : Math.max(s.acc.cacheRead - s.ledger.cacheRead, 0),
      cacheWrite: s.acc.cacheWrite === null ? 0 : Math.max(s.acc.cacheWrite - s.ledger.cacheWrite, 0),
    };
    if (r.input + r.output === 0) continue;
    // README "Time": the last response, else the last message, else updated_at.
    const ts = s.replies.length ? s.replies[s.replies.length - 1]! : (s.lastMessage ?? s.updated);
    const at = { file, row: `sessions ${id}` };
    if (ts === null) {
      sink.warn('session totals without a message time or a usable updated_at skipped', at);
      continue;
    }
    // Before schema 14 the cache split is not recorded: all input counted (and priced) as input.
    if (s.acc.cacheRead === null)
      sink.count('goose: session totals without a cache split (all input counted as input)');
    out.events.push(
      event(file, id, s, {
        ts,
        dedupe_key: `goose:${id}:${s.created}:accumulated`,
        requests: 0,
        input_tokens: Math.max(r.input - r.cacheRead - r.cacheWrite, 0),
        cache_read_tokens: r.cacheRead,
        cache_write_tokens: r.cacheWrite,
        output_tokens: r.output,
        grain: 'session',
        rule: RULE.accumulated,
      }),
    );
  }
}

function readAll(db: SqliteDb, file: string, sink: ExtractSink): Read {
  const out: Read = { events: [], units: [], facts: [] };
  const tables = tableNames(db);
  if (!tables.has('sessions')) {
    sink.warn('no sessions table (not a goose sessions.db); nothing read', { file });
    return out;
  }
  const sessions = readSessions(db, file, sink, out);
  if (tables.has('messages')) readMessages(db, sessions, out);
  if (tables.has('usage_ledger')) readLedger(db, file, sink, sessions, out);
  residuals(file, sink, sessions, out);
  return out;
}

export async function extractGoose(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  readSqliteSnapshot(source.path, opts.tmpDir, sink, (db) => readAll(db, source.path, sink));
  const legacy = Number(source.meta?.legacyJsonl ?? 0);
  // README "Where": goose imported them into this database; reading them too would count them twice.
  if (legacy > 0)
    sink.count('goose: pre-SQLite sessions/*.jsonl beside sessions.db (imported into it; not read)', legacy);
  return null;
}
