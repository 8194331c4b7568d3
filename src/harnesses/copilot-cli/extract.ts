// GitHub Copilot CLI's session-store.db → usage events: one per
// `assistant_usage_events` row, the model call it records (README.md beside
// this file has every rule and its evidence). The database is opened only
// through openSqliteReadOnly: never written, checkpointed or migrated, and
// nothing is created beside it.
import { checkTokenCount, parseTimestamp } from '../../core/numbers.js';
import type { SessionFact, UsageEvent, WorkUnit } from '../../core/types.js';
import { readSqliteSnapshot, type SqliteDb } from '../../io/sqlite.js';
import { columnNames, pick, tableNames } from '../opencode/tables.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { RULE } from './rules.js';

/** The columns a row cannot be counted without (README "Shape"). */
const REQUIRED = ['id', 'session_id', 'model', 'input_tokens', 'output_tokens'];
const TOKEN_COLUMNS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
] as const;
/** billing_kind of a call whose AI credits Copilot recorded (request_units holds them). */
export const CREDITS_KIND = 'ai-credits';

interface Row {
  id: unknown;
  session_id: unknown;
  turn_index: unknown;
  model: unknown;
  input_tokens: unknown;
  output_tokens: unknown;
  cache_read_tokens: unknown;
  cache_write_tokens: unknown;
  reasoning_tokens: unknown;
  total_nano_aiu: unknown;
  created_at: unknown;
}

interface Read {
  events: UsageEvent[];
  units: WorkUnit[];
  facts: SessionFact[];
}

const text = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' || typeof v === 'bigint' ? String(v) : null;
const num = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v);

interface SessionRow {
  project: string | null;
  title: string | null;
  created: number | null;
}

function readSessions(db: SqliteDb, tables: Set<string>): Map<string, SessionRow> {
  const out = new Map<string, SessionRow>();
  if (!tables.has('sessions')) return out;
  const cols = columnNames(db, 'sessions');
  if (!cols.has('id')) return out;
  for (const r of db
    .prepare(`SELECT ${pick(cols, ['id', 'cwd', 'repository', 'summary', 'created_at'])} FROM sessions`)
    .iterate() as Iterable<Record<string, unknown>>) {
    const id = text(r.id);
    if (id === null) continue;
    // README "Project": the folder the session ran in, else its repository.
    out.set(id, {
      project: text(r.cwd) ?? text(r.repository),
      title: text(r.summary),
      created: parseTimestamp(r.created_at),
    });
  }
  return out;
}

function readAll(db: SqliteDb, file: string, sink: ExtractSink): Read {
  const out: Read = { events: [], units: [], facts: [] };
  const tables = tableNames(db);
  if (!tables.has('assistant_usage_events')) {
    sink.warn(
      'no assistant_usage_events table (not a Copilot CLI session store, or one from before it recorded usage); nothing read',
      { file },
    );
    return out;
  }
  const cols = columnNames(db, 'assistant_usage_events');
  const missing = REQUIRED.filter((c) => !cols.has(c));
  if (missing.length) {
    sink.warn(`assistant_usage_events has no ${missing.join(', ')} column; nothing read`, { file });
    return out;
  }
  const sessions = readSessions(db, tables);
  for (const [id, s] of sessions)
    if (s.title !== null)
      out.facts.push({
        harness: 'copilot-cli',
        session_id: id,
        title: s.title,
        title_rank: 0,
        parent_session_id: null,
        seq: 0,
      });
  // Prompts (README "Units of work"): one per `turns` row, at its time.
  if (tables.has('turns')) {
    const tc = columnNames(db, 'turns');
    if (tc.has('session_id') && tc.has('turn_index')) {
      for (const r of db
        .prepare(`SELECT ${pick(tc, ['session_id', 'turn_index', 'timestamp'])} FROM turns`)
        .iterate() as Iterable<Record<string, unknown>>) {
        const session = text(r.session_id);
        const ts = parseTimestamp(num(r.timestamp)) ?? (session ? sessions.get(session)?.created : null) ?? null;
        if (session === null || ts === null) continue;
        out.units.push({
          harness: 'copilot-cli',
          session_id: session,
          kind: 'prompt',
          dedupe_key: `copilot:${session}:turn:${String(num(r.turn_index))}`,
          dedupe_rank: 0,
          ts,
          count: 1,
        });
      }
    }
  }
  const sql = `SELECT ${pick(cols, ['id', 'session_id', 'turn_index', 'model', ...TOKEN_COLUMNS, 'total_nano_aiu', 'created_at'])} FROM assistant_usage_events ORDER BY session_id, id`;
  let lastSession: string | null = null;
  let lastTs: number | null = null;
  for (const r of db.prepare(sql).iterate() as Iterable<Row>) {
    const id = text(r.id);
    const at = { file, row: `assistant_usage_events ${id ?? '?'}` };
    const session = text(r.session_id);
    if (id === null || session === null) {
      sink.warn('assistant_usage_events row without an id or session_id skipped', at);
      continue;
    }
    const invalid: string[] = [];
    const tok = (c: (typeof TOKEN_COLUMNS)[number]) => {
      const v = num(r[c]);
      const ck = checkTokenCount(v === null ? undefined : v);
      if (!ck.ok) invalid.push(`${c} ${ck.reason}`);
      return ck.value;
    };
    const input = tok('input_tokens');
    const output = tok('output_tokens');
    const cacheRead = tok('cache_read_tokens');
    const cacheWrite = tok('cache_write_tokens');
    const reasoning = tok('reasoning_tokens');
    if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, at);
    if (lastSession !== session) lastTs = null;
    lastSession = session;
    // README "Time": created_at (zoneless is UTC); missing: the session's previous call, else its start.
    const ts: number | null = parseTimestamp(num(r.created_at)) ?? lastTs ?? sessions.get(session)?.created ?? null;
    if (ts === null) {
      sink.warn(
        'assistant_usage_events row without a usable created_at (nor an earlier call or session start to place it) skipped',
        at,
      );
      continue;
    }
    lastTs = ts;
    // README "Tokens": input_tokens includes cache reads and writes; reasoning is inside output.
    const fresh = input - cacheRead - cacheWrite;
    if (fresh < 0) sink.count('copilot-cli: input smaller than its cache reads and writes (uncached input taken as 0)');
    if (reasoning > output) sink.count('copilot-cli: reasoning larger than output (output kept as recorded)');
    const nano = num(r.total_nano_aiu);
    // README "Cost": AI credits (1 credit = 1e9 nano-AIU), not USD: kept beside the token price, never as it.
    const credits = typeof nano === 'number' && Number.isFinite(nano) && nano >= 0 ? nano / 1e9 : null;
    const model = text(r.model);
    out.events.push({
      harness: 'copilot-cli',
      session_id: session,
      project: sessions.get(session)?.project ?? null,
      model,
      provider: null,
      ts,
      // README "Identity": AUTOINCREMENT ids restart when the store is made anew; the time tells such rows apart.
      dedupe_key: `copilot:${session}:${id}:${text(r.created_at) ?? ''}`,
      dedupe_rank: 0,
      requests: 1,
      input_tokens: Math.max(fresh, 0),
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      cache_write_5m_tokens: null,
      cache_write_1h_tokens: null,
      output_tokens: output,
      reasoning_tokens: Math.min(reasoning, output),
      recorded_cost_usd: null,
      source_file: file,
      source_line: null,
      billing_kind: credits === null ? null : CREDITS_KIND,
      request_units: credits,
      rule: RULE.call,
    });
  }
  return out;
}

export async function extractCopilot(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  readSqliteSnapshot(source.path, opts.tmpDir, sink, (db) => readAll(db, source.path, sink));
  return null;
}
