// ZCode's database → usage events: one per `model_usage` row, the request
// it records (README.md beside this file has every rule and its evidence).
// The database is opened only through openSqliteReadOnly: never written,
// checkpointed or migrated, and nothing is created beside it.
import { checkTokenCount, parseTimestamp } from '../../core/numbers.js';
import type { UsageEvent, WorkUnit } from '../../core/types.js';
import { readSqliteSnapshot, type SqliteDb } from '../../io/sqlite.js';
import { columnNames, pick, tableNames } from '../opencode/tables.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { RULE } from './rules.js';

/** Statuses a request ends in; a `running` row is updated in place when it completes. */
const ENDED = new Set(['completed', 'cancelled', 'canceled', 'error', 'failed', 'aborted']);
const TOKEN_COLUMNS = [
  'input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
] as const;

interface Row {
  id: unknown;
  session_id: unknown;
  turn_id: unknown;
  model_id: unknown;
  status: unknown;
  started_at: unknown;
  completed_at: unknown;
  computed_total_tokens: unknown;
  tool_call_count: unknown;
  input_tokens: unknown;
  output_tokens: unknown;
  reasoning_tokens: unknown;
  cache_creation_input_tokens: unknown;
  cache_read_input_tokens: unknown;
}

interface Read {
  events: UsageEvent[];
  units: WorkUnit[];
}

const text = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' || typeof v === 'bigint' ? String(v) : null;
const num = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v);

function readAll(db: SqliteDb, file: string, sink: ExtractSink): Read {
  const out: Read = { events: [], units: [] };
  const tables = tableNames(db);
  if (!tables.has('model_usage')) {
    sink.warn('no model_usage table (not a ZCode database, or one from before it recorded usage); nothing read', {
      file,
    });
    return out;
  }
  const cols = columnNames(db, 'model_usage');
  const missing = ['id', 'input_tokens', 'output_tokens'].filter((c) => !cols.has(c));
  if (missing.length) {
    sink.warn(`model_usage has no ${missing.join(', ')} column; nothing read`, { file });
    return out;
  }
  // The project of a session: its folder (session.directory), where the table has one.
  const projects = new Map<string, string>();
  if (tables.has('session')) {
    const sc = columnNames(db, 'session');
    if (sc.has('id') && sc.has('directory')) {
      for (const r of db.prepare('SELECT id, directory FROM session').iterate() as Iterable<{
        id: unknown;
        directory: unknown;
      }>) {
        const id = text(r.id);
        const dir = text(r.directory);
        if (id !== null && dir !== null) projects.set(id, dir);
      }
    }
  }
  const sql = `SELECT rowid AS rid, ${pick(cols, ['id', 'session_id', 'turn_id', 'model_id', 'status', 'started_at', 'completed_at', 'computed_total_tokens', 'tool_call_count', ...TOKEN_COLUMNS])} FROM model_usage ORDER BY rowid`;
  const turns = new Map<string, { session: string; ts: number }>();
  for (const r of db.prepare(sql).iterate() as Iterable<Row & { rid: number }>) {
    const id = text(r.id);
    const at = { file, row: `model_usage ${id ?? `rowid ${r.rid}`}` };
    if (id === null) {
      sink.warn('model_usage row without an id skipped', at);
      continue;
    }
    const status = text(r.status)?.toLowerCase() ?? null;
    if (status !== null && !ENDED.has(status)) {
      // README "What counts": written when the request starts, completed in place.
      sink.skip(`request ${status} (counted once it ends)`, at);
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
    const reasoning = tok('reasoning_tokens');
    const cacheWrite = tok('cache_creation_input_tokens');
    const cacheRead = tok('cache_read_input_tokens');
    if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, at);
    if (input + output + cacheRead + cacheWrite === 0) {
      // README "What counts": failed and cancelled attempts record zeros.
      sink.skip('request with no tokens (a failed or cancelled attempt)', at);
      continue;
    }
    const ts = parseTimestamp(num(r.completed_at)) ?? parseTimestamp(num(r.started_at));
    if (ts === null) {
      sink.warn('model_usage row without a usable completed_at or started_at skipped', at);
      continue;
    }
    // input_tokens includes both cache buckets (README "Tokens").
    const fresh = input - cacheRead - cacheWrite;
    if (fresh < 0) sink.count('zcode: input smaller than its cache reads and writes (uncached input taken as 0)');
    const total = num(r.computed_total_tokens);
    if (typeof total === 'number' && total !== input + output)
      sink.count('zcode: computed_total_tokens is not input + output (a schema change?)');
    if (reasoning > output) sink.count('zcode: reasoning larger than output (output kept as recorded)');
    const session = text(r.session_id) ?? 'unknown';
    out.events.push({
      harness: 'zcode',
      session_id: session,
      project: projects.get(session) ?? null,
      model: text(r.model_id),
      provider: null,
      ts,
      dedupe_key: `zcode:${id}`,
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
      rule: RULE.request,
    });
    const tools = num(r.tool_call_count);
    if (typeof tools === 'number' && Number.isInteger(tools) && tools > 0)
      out.units.push({
        harness: 'zcode',
        session_id: session,
        kind: 'tool_call',
        dedupe_key: `zcode:${id}`,
        dedupe_rank: 0,
        ts,
        count: tools,
      });
    const turn = text(r.turn_id);
    if (turn !== null) {
      const t = turns.get(turn);
      if (!t || ts < t.ts) turns.set(turn, { session, ts });
    }
  }
  // A turn groups the requests of one prompt (README "Units of work"): at its first request's time.
  for (const [turn, t] of turns)
    out.units.push({
      harness: 'zcode',
      session_id: t.session,
      kind: 'turn',
      dedupe_key: `zcode:${turn}`,
      dedupe_rank: 0,
      ts: t.ts,
      count: 1,
    });
  return out;
}

export async function extractZcode(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  readSqliteSnapshot(source.path, opts.tmpDir, sink, (db) => readAll(db, source.path, sink));
  return null;
}
