// Hermes Agent's state.db → usage events of grain `session` (README.md
// beside this file has every rule and its evidence): Hermes keeps no
// per-call usage, only each session's cumulative counters (`sessions`,
// the main loop) and per-route counters (`session_model_usage`, which alone
// holds auxiliary calls: task <> ''). Each session is one row from its
// `sessions` counters and one per auxiliary route: the two are disjoint.
// A re-read replaces them (the counters are snapshots, keyed by session).
// The database is opened only through readSqliteSnapshot: never written,
// checkpointed or migrated, and nothing is created beside it.
import { checkCost, checkTokenCount } from '../../core/numbers.js';
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

const TOKENS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
] as const;
const text = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' || typeof v === 'bigint' ? String(v) : null;
const num = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v);

/** Epoch seconds (REAL) → ms; null when absent or implausible. */
function seconds(v: unknown): number | null {
  const n = num(v);
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 946684800 || n > 4102444800) return null;
  return Math.floor(n * 1000);
}

/** README "Cost": what Hermes recorded as the session's (or route's) USD cost; null: priced by model. */
function recordedCost(r: Record<string, unknown>): number | null {
  const actual = checkCost(num(r.actual_cost_usd));
  if (actual !== null) return actual;
  // Included in a subscription, and Hermes knows by what: a known $0. `included` with source `none` is not.
  const source = text(r.cost_source);
  if (text(r.cost_status) === 'included' && source !== null && source !== 'none') return 0;
  return null;
}

function readAll(db: SqliteDb, source: SourceRef, sink: ExtractSink): Read {
  const file = source.path;
  const out: Read = { events: [], units: [], facts: [] };
  const tables = tableNames(db);
  if (!tables.has('sessions')) {
    sink.warn('no sessions table (not a Hermes state.db); nothing read', { file });
    return out;
  }
  const profile = source.meta?.profile ?? null;
  // README "Session": a named profile generates its own ids; the same id there is another session.
  const sessionId = (id: string) => (profile ? `${profile}/${id}` : id);
  const cols = columnNames(db, 'sessions');
  const sessions = new Map<string, { model: string | null; provider: string | null; project: string | null }>();
  const sql = `SELECT ${pick(cols, ['id', 'model', 'billing_provider', 'parent_session_id', 'started_at', 'ended_at', 'last_activity_at', 'api_call_count', 'title', 'cwd', 'git_repo_root', 'actual_cost_usd', 'cost_status', 'cost_source', ...TOKENS])} FROM sessions`;
  const row = (r: Record<string, unknown>, at: { file: string; row: string }) => {
    const invalid: string[] = [];
    const t = {} as Record<(typeof TOKENS)[number], number>;
    for (const k of TOKENS) {
      const v = num(r[k]);
      const ck = checkTokenCount(v === null || v === undefined ? undefined : v);
      if (!ck.ok) invalid.push(`${k} ${ck.reason}`);
      t[k] = ck.value;
    }
    if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, at);
    return t;
  };
  for (const r of db.prepare(sql).iterate() as Iterable<Record<string, unknown>>) {
    const raw = text(r.id);
    if (raw === null) continue;
    const id = sessionId(raw);
    const s = {
      model: text(r.model),
      provider: text(r.billing_provider),
      project: text(r.cwd) ?? text(r.git_repo_root),
    };
    sessions.set(raw, s);
    const parent = text(r.parent_session_id);
    if (text(r.title) !== null || parent !== null)
      out.facts.push({
        harness: 'hermes',
        session_id: id,
        title: text(r.title),
        title_rank: 0,
        parent_session_id: parent === null ? null : sessionId(parent),
        seq: 0,
      });
    const at = { file, row: `sessions ${raw}` };
    const t = row(r, at);
    if (t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens === 0) {
      sink.skip('session without tokens', at);
      continue;
    }
    // README "Time": the session's last activity, never its start alone.
    const ts = Math.max(seconds(r.last_activity_at) ?? 0, seconds(r.ended_at) ?? 0, seconds(r.started_at) ?? 0);
    if (ts === 0) {
      sink.warn('session without a usable started_at, ended_at or last_activity_at skipped', at);
      continue;
    }
    if (t.reasoning_tokens > t.output_tokens)
      sink.count('hermes: reasoning larger than output (output kept as recorded)');
    const calls = num(r.api_call_count);
    out.events.push(
      event(file, id, s, ts, t, {
        dedupe_key: `hermes:${profile ?? ''}:${raw}:session`,
        // README "Units of work": api_call_count, where recorded.
        requests: typeof calls === 'number' && Number.isInteger(calls) && calls > 0 ? calls : 0,
        recorded_cost_usd: recordedCost(r),
        rule: RULE.session,
      }),
    );
  }
  if (tables.has('session_model_usage')) {
    const mc = columnNames(db, 'session_model_usage');
    if (mc.has('task') && mc.has('session_id')) {
      const aux = `SELECT ${pick(mc, ['session_id', 'model', 'billing_provider', 'task', 'api_call_count', 'actual_cost_usd', 'cost_status', 'cost_source', 'first_seen', 'last_seen', ...TOKENS])} FROM session_model_usage WHERE task <> '' ORDER BY session_id, task, model`;
      for (const r of db.prepare(aux).iterate() as Iterable<Record<string, unknown>>) {
        const raw = text(r.session_id);
        const task = text(r.task);
        if (raw === null || task === null) continue;
        const at = { file, row: `session_model_usage ${raw} ${task}` };
        const t = row(r, at);
        if (t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens === 0) continue;
        const ts = seconds(r.last_seen) ?? seconds(r.first_seen);
        if (ts === null) {
          sink.warn('auxiliary usage without a usable last_seen skipped', at);
          continue;
        }
        const s = sessions.get(raw);
        const calls = num(r.api_call_count);
        sink.count(`hermes: auxiliary ${task} usage (counted beside the session's own)`);
        out.events.push(
          event(
            file,
            sessionId(raw),
            {
              model: text(r.model) ?? s?.model ?? null,
              provider: text(r.billing_provider) ?? s?.provider ?? null,
              project: s?.project ?? null,
            },
            ts,
            t,
            {
              dedupe_key: `hermes:${profile ?? ''}:${raw}:aux:${task}:${text(r.model) ?? ''}:${text(r.billing_provider) ?? ''}`,
              requests: typeof calls === 'number' && Number.isInteger(calls) && calls > 0 ? calls : 0,
              recorded_cost_usd: recordedCost(r),
              rule: RULE.aux,
            },
          ),
        );
      }
    }
  }
  // README "Units of work": a prompt is a `user` message (tool results are role `tool`), at its time; its text is never read.
  if (tables.has('messages')) {
    const mc = columnNames(db, 'messages');
    if (mc.has('session_id') && mc.has('role') && mc.has('timestamp')) {
      for (const r of db
        .prepare("SELECT id, session_id, timestamp FROM messages WHERE role = 'user'")
        .iterate() as Iterable<Record<string, unknown>>) {
        const raw = text(r.session_id);
        const ts = seconds(r.timestamp);
        if (raw === null || ts === null) continue;
        out.units.push({
          harness: 'hermes',
          session_id: sessionId(raw),
          kind: 'prompt',
          dedupe_key: `hermes:${profile ?? ''}:${raw}:${String(num(r.id))}`,
          dedupe_rank: 0,
          ts,
          count: 1,
        });
      }
    }
  }
  return out;
}

function event(
  file: string,
  session: string,
  s: { model: string | null; provider: string | null; project: string | null },
  ts: number,
  t: Record<(typeof TOKENS)[number], number>,
  f: Pick<UsageEvent, 'dedupe_key' | 'requests' | 'recorded_cost_usd' | 'rule'>,
): UsageEvent {
  return {
    harness: 'hermes',
    session_id: session,
    project: s.project,
    model: s.model,
    provider: s.provider,
    ts,
    dedupe_rank: 0,
    // README "Tokens": input is already exclusive of cache; reasoning is inside output (never added).
    input_tokens: t.input_tokens,
    cache_read_tokens: t.cache_read_tokens,
    cache_write_tokens: t.cache_write_tokens,
    cache_write_5m_tokens: null,
    cache_write_1h_tokens: null,
    output_tokens: t.output_tokens,
    reasoning_tokens: Math.min(t.reasoning_tokens, t.output_tokens),
    source_file: file,
    source_line: null,
    grain: 'session',
    ...f,
  };
}

export async function extractHermes(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  readSqliteSnapshot(source.path, opts.tmpDir, sink, (db) => readAll(db, source, sink));
  return null;
}
