// OpenCode units of work and session facts, read in SQL like the
// usage (only a few JSON paths of `data`; prompt text, tool output and
// attachments never reach JS). Rules (contract `opencode`, README.md):
// - 2.x prompts: session_message rows of type `user` (typed prompts); in a
//   child session (session_v2.parent_id set, made by the subagent tool) the
//   user rows are the parent agent's task: subagent tasks. `synthetic`,
//   `system`, `skill` and `shell` rows are not prompts.
// - 2.x turns: `idle` rows (contract concept turn-end: the session went idle).
// - 2.x tool calls: the `tool` content blocks of assistant rows (a call and
//   its result are one block), counted with their row.
// - fork copies (rows copied into a fork) count nothing, as for usage; so do
//   rows that started before their session existed (1.x Session.fork copies,
//   imported or not: README "Forks (1.x)").
// - titles: session_v2.title; parent: session_v2.parent_id.
// - 1.x-only databases: `message` rows of role user are prompts (each also a
//   turn: 1.x records no turn ends), `part` rows of type tool are tool calls.
import { parseTimestamp } from '../../core/numbers.js';
import type { SessionFact, WorkUnit } from '../../core/types.js';
import type { SqliteDb } from '../../io/sqlite.js';
import { isObject, parseJson } from './usage.js';
import { isForkCopy, type SessionInfo } from './sessions.js';

/** What one database's units-of-work queries found (emitted with its usage, once every query succeeded). */
export interface WorkRead {
  units: WorkUnit[];
  facts: SessionFact[];
}

const UNITS_SQL = `
  SELECT id, session_id, type, seq, time_created,
    CASE WHEN json_valid(data) THEN json_object(
      'created', data -> '$.time.created',
      'tools', CASE WHEN type = 'assistant'
                 THEN (SELECT count(*) FROM json_each(data, '$.content') WHERE json_extract(value, '$.type') = 'tool')
                 ELSE 0 END
    ) END AS u
  FROM session_message
  WHERE type IN ('user', 'idle', 'assistant')
  ORDER BY session_id, seq`;

export function readUnitsV2(
  db: SqliteDb,
  sessions: Map<string, SessionInfo>,
  copied: Map<string, number | null>,
  work: WorkRead,
): void {
  for (const r of db.prepare(UNITS_SQL).iterate() as Iterable<Record<string, unknown>>) {
    const d = parseJson(r.u);
    if (!isObject(d)) continue; // unparsable data: already warned about by the usage query
    const id = String(r.id);
    const sessionId = String(r.session_id);
    const s = sessions.get(sessionId);
    if (s?.forkOf && isForkCopy(id, Number(r.seq), copied.get(s.id))) continue;
    const ts = parseTimestamp(d.created) ?? parseTimestamp(r.time_created);
    if (ts === null || (s?.ts != null && ts < s.ts)) continue;
    const unit = (kind: WorkUnit['kind'], count = 1) =>
      work.units.push({
        harness: 'opencode',
        session_id: sessionId,
        kind,
        dedupe_key: `msg:${id}`,
        dedupe_rank: 0,
        ts,
        count,
      });
    if (r.type === 'user') unit(s?.parentId ? 'subagent_task' : 'prompt');
    else if (r.type === 'idle') unit('turn');
    else if (typeof d.tools === 'number' && d.tools > 0) unit('tool_call', d.tools);
  }
  for (const s of sessions.values()) {
    if (s.title !== null || s.parentId !== null)
      work.facts.push({
        harness: 'opencode',
        session_id: s.id,
        title: s.title?.trim() ?? null,
        title_rank: 0,
        parent_session_id: s.parentId,
        seq: 0,
      });
  }
}

const V1_MESSAGES_SQL = `
  SELECT id, session_id, time_created,
    CASE WHEN json_valid(data) THEN json_object('role', data -> '$.role', 'created', data -> '$.time.created') END AS u
  FROM message`;

const V1_TOOLS_SQL = `
  SELECT message_id, count(*) AS n, min(time_created) AS t
  FROM part
  WHERE CASE WHEN json_valid(data) THEN data ->> '$.type' END = 'tool'
  GROUP BY message_id`;

/** 1.x-only databases: prompts (and their turns), tool parts, titles and parents from the 1.x tables. */
export function readUnitsV1(
  db: SqliteDb,
  layout: { hasSession: boolean; hasPart: boolean },
  sessionCols: Set<string>,
  work: WorkRead,
): void {
  const parents = new Map<string, string>();
  const created = new Map<string, number>();
  if (layout.hasSession) {
    const cols = [
      'id',
      sessionCols.has('title') ? 'title' : 'NULL AS title',
      sessionCols.has('parent_id') ? 'parent_id' : 'NULL AS parent_id',
      sessionCols.has('time_created') ? 'time_created' : 'NULL AS time_created',
    ];
    for (const r of db.prepare(`SELECT ${cols.join(', ')} FROM session`).all() as {
      id: string;
      title: unknown;
      parent_id: unknown;
      time_created: unknown;
    }[]) {
      const t = parseTimestamp(r.time_created);
      if (t !== null) created.set(r.id, t);
      const parent = typeof r.parent_id === 'string' && r.parent_id ? r.parent_id : null;
      if (parent) parents.set(r.id, parent);
      const title = typeof r.title === 'string' ? r.title.trim() : null;
      if (title !== null || parent !== null)
        work.facts.push({
          harness: 'opencode',
          session_id: r.id,
          title,
          title_rank: 0,
          parent_session_id: parent,
          seq: 0,
        });
    }
  }
  const sessionOf = new Map<string, { session: string; ts: number | null }>();
  for (const r of db.prepare(V1_MESSAGES_SQL).iterate() as Iterable<Record<string, unknown>>) {
    const d = parseJson(r.u);
    if (!isObject(d)) continue;
    const id = String(r.id);
    const session = String(r.session_id);
    const ts = parseTimestamp(d.created) ?? parseTimestamp(r.time_created);
    // A Session.fork copy (started before its session existed) counts nothing, as for usage.
    const since = created.get(session);
    if (ts !== null && since !== undefined && ts < since) continue;
    sessionOf.set(id, { session, ts });
    if (d.role !== 'user' || ts === null) continue;
    const kinds = parents.has(session) ? (['subagent_task'] as const) : (['prompt', 'turn'] as const);
    for (const kind of kinds)
      work.units.push({
        harness: 'opencode',
        session_id: session,
        kind,
        dedupe_key: `msg:${id}`,
        dedupe_rank: 0,
        ts,
        count: 1,
      });
  }
  if (!layout.hasPart) return;
  for (const r of db.prepare(V1_TOOLS_SQL).iterate() as Iterable<{ message_id: string; n: number; t: unknown }>) {
    const m = sessionOf.get(r.message_id);
    const ts = m?.ts ?? parseTimestamp(r.t);
    if (!m || ts === null) continue;
    work.units.push({
      harness: 'opencode',
      session_id: m.session,
      kind: 'tool_call',
      dedupe_key: `tools:${r.message_id}`,
      dedupe_rank: 0,
      ts,
      count: Number(r.n),
    });
  }
}
