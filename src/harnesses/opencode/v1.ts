// OpenCode 1.x tables (a database no 2.x build has opened) → usage events.
// Read whole ONLY when the database has no 2.x tables: on upgraded installs the
// 1.x tables are pre-import copies (contract gotcha), read only for the
// messages 2.x imported (v2.ts: an imported row counts as its 1.x message).
//
// A 1.x assistant `message` may span several model steps: its `cost` is the
// sum over steps but its `tokens` are the LAST step's only. Each step's own
// usage is a `step-finish` part, so a message with step-finish parts counts
// one request per part; a message without any counts its own usage once.
//
// Session.fork (1.x) copies every message and part of the source under new
// ids, keeping the message's data (time, model, tokens, cost): a response is
// therefore known by what a copy keeps (README "Forks (1.x)"), and a message
// that started before its session was created is a copy.
import { digest128 } from '../../core/digest.js';
import { parseTimestamp } from '../../core/numbers.js';
import type { SourceLocation, UsageEvent } from '../../core/types.js';
import type { SqliteDb } from '../../io/sqlite.js';
import type { ExtractSink } from '../types.js';
import { columnNames } from './tables.js';
import { RULE } from './rules.js';
import {
  addUsage,
  isObject,
  parseJson,
  readUsage,
  tokenSum,
  usageEvent,
  writtenTokens,
  zeroUsage,
  type OcUsage,
} from './usage.js';
import { readSessions, residualEvent } from './sessions.js';

const MESSAGES_SQL = `
  SELECT id, session_id, time_created,
    CASE WHEN json_valid(data) THEN json_object(
      'role', data -> '$.role',
      'time', data -> '$.time',
      'tokens', data -> '$.tokens',
      'tokens_type', json_type(data, '$.tokens'),
      'cost', data -> '$.cost',
      'modelID', data -> '$.modelID',
      'providerID', data -> '$.providerID',
      'cwd', data -> '$.path.cwd'
    ) END AS u
  FROM message
  /*only*/
  ORDER BY session_id, time_created, id`;

const STEP_PARTS_SQL = `
  SELECT id, message_id, time_created,
    CASE WHEN json_valid(data) THEN json_object('tokens', data -> '$.tokens', 'tokens_type', json_type(data, '$.tokens'), 'cost', data -> '$.cost') END AS u
  FROM part
  WHERE CASE WHEN json_valid(data) THEN data ->> '$.type' END = 'step-finish' /*only*/
  ORDER BY message_id, id`;

/** The 1.x messages a 2.x import carried over: same id, now an assistant row of session_message. */
const IMPORTED = `id IN (SELECT id FROM session_message WHERE type = 'assistant')`;

interface StepPart {
  id: string;
  ts: number | null;
  tokens: unknown;
  cost: unknown;
}

/**
 * A 1.x response's identity: what Session.fork copies unchanged — the
 * message's start time, model and provider, the step's place in it and its
 * usage (tokscale#511 keys copied history the same way). A copy and its
 * original get the same key, so the store counts one of them.
 */
function responseKey(
  created: number,
  model: string | null,
  provider: string | null,
  step: number | null,
  u: OcUsage,
): string {
  return `v1:${digest128(JSON.stringify([created, model, provider, step, u.input, u.output, u.reasoning, u.cacheRead, u.cacheWrite, u.cost]))}`;
}

/**
 * Each 1.x assistant message's events (empty: it counts nothing), by message
 * id. `imported`: only the messages a 2.x import carried over.
 */
export function readV1Messages(
  db: SqliteDb,
  file: string,
  layout: { hasSession: boolean; hasPart: boolean },
  sink: ExtractSink,
  imported = false,
): Map<string, UsageEvent[]> {
  const only = (sql: string, column: string) =>
    sql.replace(
      '/*only*/',
      imported ? `${sql.includes('WHERE') ? 'AND' : 'WHERE'} ${IMPORTED.replace('id IN', `${column} IN`)}` : '',
    );
  const sessions = new Map<string, { directory: string | null; created: number | null }>();
  if (layout.hasSession) {
    const cols = columnNames(db, 'session');
    const dir = cols.has('directory') ? 'directory' : 'NULL AS directory';
    const created = cols.has('time_created') ? 'time_created' : 'NULL AS time_created';
    for (const r of db.prepare(`SELECT id, ${dir}, ${created} FROM session`).all() as {
      id: string;
      directory: unknown;
      time_created: unknown;
    }[]) {
      sessions.set(r.id, {
        directory: typeof r.directory === 'string' && r.directory ? r.directory : null,
        created: parseTimestamp(r.time_created),
      });
    }
  }
  const steps = new Map<string, StepPart[]>();
  if (layout.hasPart) {
    for (const r of db.prepare(only(STEP_PARTS_SQL, 'message_id')).iterate() as Iterable<Record<string, unknown>>) {
      const d = parseJson(r.u);
      if (!isObject(d)) continue;
      const list = steps.get(String(r.message_id)) ?? [];
      list.push({ id: String(r.id), ts: parseTimestamp(r.time_created), tokens: writtenTokens(d), cost: d.cost });
      steps.set(String(r.message_id), list);
    }
  }

  const out = new Map<string, UsageEvent[]>();
  let unparsable = 0;
  let firstUnparsable = '';
  for (const r of db.prepare(only(MESSAGES_SQL, 'id')).iterate() as Iterable<Record<string, unknown>>) {
    const id = String(r.id);
    const at: SourceLocation = { file, row: `message ${id}` };
    const d = parseJson(r.u);
    if (!isObject(d)) {
      if (unparsable++ === 0) firstUnparsable = id;
      sink.unparsable?.(at);
      continue;
    }
    if (d.role !== 'assistant') continue;
    const events: UsageEvent[] = [];
    out.set(id, events);
    const sessionId = String(r.session_id);
    const session = sessions.get(sessionId);
    const time = isObject(d.time) ? d.time : {};
    const msgTs = parseTimestamp(time.created) ?? parseTimestamp(r.time_created);
    const model = typeof d.modelID === 'string' && d.modelID ? d.modelID : null;
    const provider = typeof d.providerID === 'string' && d.providerID ? d.providerID : null;
    // Forks (1.x): a message that started before its session existed was copied into it.
    const copy = msgTs !== null && session?.created != null && msgTs < session.created;
    const base = {
      session_id: sessionId,
      project: (typeof d.cwd === 'string' && d.cwd) || session?.directory || null,
      model,
      provider,
      requests: 1,
      source_file: file,
    };
    const event = (ts: number, step: number | null, u: OcUsage, rule: string): UsageEvent => ({
      ...usageEvent(
        {
          ...base,
          ts,
          dedupe_key: responseKey(msgTs ?? ts, model, provider, step, u),
          rule: copy ? RULE.fork1x : rule,
        },
        u,
      ),
      ...(copy ? { dedupe_rank: 1 } : {}),
    });
    const parts = steps.get(id);
    if (parts?.length) {
      for (const [i, p] of parts.entries()) {
        const pat: SourceLocation = { file, row: `part ${p.id}` };
        // A step ends at its part's time; a copied part carries the fork's time, so a copy keeps its message's.
        const ts = copy ? (msgTs ?? p.ts) : (p.ts ?? msgTs);
        if (ts === null) {
          sink.warn('step-finish part without a usable timestamp skipped', pat);
          continue;
        }
        events.push(event(ts, i, readUsage(p.tokens, p.cost, pat, sink, 'data.tokens'), '1.x step-finish part'));
      }
      continue;
    }
    // No step parts: the message's own usage, when it has any (1.x creates
    // assistant messages with zeroed tokens before the first step ends).
    const u = readUsage(writtenTokens(d), d.cost, at, sink, 'data.tokens');
    if (tokenSum(u) === 0 && !u.cost) {
      sink.skip('1.x assistant message without usage', at);
      continue;
    }
    if (msgTs === null) {
      sink.warn('assistant message without a usable timestamp skipped', at);
      continue;
    }
    events.push(event(msgTs, null, u, '1.x message usage'));
  }
  if (unparsable) {
    sink.warn(
      `${unparsable} message row(s) with unparsable data skipped (first: ${firstUnparsable})`,
      { file, row: `message ${firstUnparsable}` },
      { sumsUpUnparsable: true },
    );
  }
  return out;
}

export function extractV1(
  db: SqliteDb,
  file: string,
  layout: { hasSession: boolean; hasPart: boolean },
  sink: ExtractSink,
): UsageEvent[] {
  const events = [...readV1Messages(db, file, layout, sink).values()].flat();
  if (!layout.hasSession) return events;
  // Session totals (1.x since 1.16.0: session.cost and tokens_*, running
  // totals as 2.x keeps them) are never added to the messages: only what
  // they hold beyond the session's own responses (title usage, steps whose
  // usage only the session kept) is a residual, as in 2.x. A fork's totals
  // start at 0, so its copies are not its own.
  const own = new Map<string, OcUsage>();
  for (const e of events) {
    if (e.dedupe_rank !== 0) continue;
    let sum = own.get(e.session_id);
    if (!sum) own.set(e.session_id, (sum = zeroUsage()));
    addUsage(sum, {
      input: e.input_tokens,
      output: e.output_tokens - e.reasoning_tokens,
      reasoning: e.reasoning_tokens,
      cacheRead: e.cache_read_tokens,
      cacheWrite: e.cache_write_tokens,
      cost: e.recorded_cost_usd,
    });
  }
  for (const s of readSessions(db, 'session', file, sink).values()) {
    const ev = residualEvent(s, own.get(s.id) ?? zeroUsage(), file, sink);
    if (ev) events.push(ev);
  }
  return events;
}
