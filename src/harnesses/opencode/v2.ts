// OpenCode 2.x tables → usage events (contract `opencode`; rules in README.md):
//   session_message rows of type assistant (one model step each) and compaction
//   (one request each), plus one residual event per session for the part of
//   its running totals (session_v2.cost / tokens_*) that no row still holds.
import { parseTimestamp } from '../../core/numbers.js';
import type { SourceLocation, UsageEvent } from '../../core/types.js';
import type { SqliteDb } from '../../io/sqlite.js';
import type { ExtractSink } from '../types.js';
import { tableNames } from './tables.js';
import {
  addUsage,
  hasUsage,
  isObject,
  modelRef,
  parseJson,
  readUsage,
  usageEvent,
  writtenTokens,
  zeroUsage,
  type OcUsage,
} from './usage.js';
import { readUnitsV2, type WorkRead } from './units.js';
import { readV1Messages } from './v1.js';
import { RULE } from './rules.js';
import { isForkCopy, readSessions, residualEvent, type SessionInfo } from './sessions.js';

/**
 * linking/forks: a fork physically copies the source's settled rows up to the
 * boundary with new ids `msg_<forkEventSuffix>_<seq>` and the SAME seq; the
 * fork's own rows get seqs above the last copied one. Returns, per fork, the
 * last copied seq as far as the source still shows it (null when the boundary
 * row is gone, e.g. reverted in the source afterwards).
 */
export function lastCopiedSeqs(db: SqliteDb, sessions: Map<string, SessionInfo>): Map<string, number | null> {
  const out = new Map<string, number | null>();
  const boundarySeq = db.prepare('SELECT seq FROM session_message WHERE session_id = ? AND id = ?').pluck();
  const lastBefore = db.prepare('SELECT max(seq) FROM session_message WHERE session_id = ? AND seq < ?').pluck();
  const lastThrough = db.prepare('SELECT max(seq) FROM session_message WHERE session_id = ? AND seq <= ?').pluck();
  for (const s of sessions.values()) {
    if (!s.forkOf || !s.boundary) continue;
    const seq = boundarySeq.get(s.forkOf, s.boundary.messageID) as number | undefined;
    if (typeof seq !== 'number') {
      out.set(s.id, null);
      continue;
    }
    const last = (s.boundary.type === 'before' ? lastBefore : lastThrough).get(s.forkOf, seq) as number | null;
    out.set(s.id, typeof last === 'number' ? last : null);
  }
  return out;
}

// Only the few usage fields are pulled out of `data` (rows also hold prompt
// text, tool output and base64 attachments, which are never read into JS).
// json_valid guards every extraction: one malformed row must not abort the query.
const ROWS_SQL = `
  SELECT id, session_id, type, seq, time_created,
    CASE WHEN json_valid(data) THEN json_object(
      'time', data -> '$.time',
      'status', data -> '$.status',
      'cost', data -> '$.cost',
      'tokens', data -> '$.tokens',
      'tokens_type', json_type(data, '$.tokens'),
      'model', data -> '$.model',
      'error', json_type(data, '$.error')
    ) END AS u
  FROM session_message
  WHERE type IN ('assistant', 'compaction')
  ORDER BY session_id, seq`;

interface RowFields {
  time?: unknown;
  status?: unknown;
  cost?: unknown;
  tokens?: unknown;
  /** json_type of data.tokens: NULL when the field is absent (see writtenTokens). */
  tokens_type?: unknown;
  model?: unknown;
  error?: unknown;
}

/** Why a row counts nothing, or null when it is one billed request. */
function notCountedReason(type: string, d: RowFields): string | null {
  const tokensOrCost = hasUsage(d.tokens, d.cost);
  if (type === 'assistant') {
    const completed = isObject(d.time) && typeof d.time.completed === 'number';
    const failedWithUsage = d.error !== null && d.error !== undefined && d.error !== 'null' && tokensOrCost;
    // A row without time.completed is in flight or crashed; any usage it still
    // shows belongs to an earlier, failed attempt (step.started on a retry does
    // not reset tokens) and is covered by the session totals (residual).
    if (!completed && !failedWithUsage) return 'assistant step in flight or interrupted (no time.completed)';
    if (!tokensOrCost) return 'assistant step ended without usage';
    return null;
  }
  if (d.status === 'completed') return null;
  if (d.status === 'failed') return tokensOrCost ? null : 'failed compaction without usage';
  return 'compaction still running';
}

export function extractV2(
  db: SqliteDb,
  file: string,
  sessionTable: string,
  sink: ExtractSink,
  work: WorkRead,
): UsageEvent[] {
  const sessions = readSessions(db, sessionTable, file, sink);
  // 1.x messages imported in place keep their id (v1-migration.bun.ts) but
  // only their last step's tokens: they count as their 1.x message does
  // (README "1.x turns continued in 2.x").
  const t = tableNames(db);
  const imported = t.has('message')
    ? readV1Messages(db, file, { hasSession: t.has('session'), hasPart: t.has('part') }, sink, true)
    : null;
  const copied = lastCopiedSeqs(db, sessions);
  readUnitsV2(db, sessions, copied, work);
  const rowSums = new Map<string, OcUsage>();
  const events: UsageEvent[] = [];
  let unparsable = 0;
  let firstUnparsable = '';

  for (const r of db.prepare(ROWS_SQL).iterate() as Iterable<Record<string, unknown>>) {
    const id = String(r.id);
    const at: SourceLocation = { file, row: `session_message ${id}` };
    const raw = parseJson(r.u) as RowFields | null;
    const d = raw && { ...raw, tokens: writtenTokens(raw) };
    if (!d) {
      if (unparsable++ === 0) firstUnparsable = id;
      sink.unparsable?.(at);
      continue;
    }
    const sessionId = String(r.session_id);
    const s = sessions.get(sessionId);
    const seq = Number(r.seq);
    if (s?.forkOf && isForkCopy(id, seq, copied.get(s.id))) {
      sink.skip('fork copy of an earlier row (counted in the source session)', at);
      continue;
    }
    const type = String(r.type);
    const asV1 = type === 'assistant' ? imported?.get(id) : undefined;
    if (asV1) {
      events.push(...asV1);
      // The row's own usage (as imported) is what the session totals hold for it.
      let sum = rowSums.get(sessionId);
      if (!sum) rowSums.set(sessionId, (sum = zeroUsage()));
      addUsage(sum, readUsage(d.tokens, d.cost, at, sink, 'data.tokens'));
      continue;
    }
    const reason = notCountedReason(type, d);
    if (reason) {
      sink.skip(reason, at);
      continue;
    }
    const time = isObject(d.time) ? d.time : {};
    // Request start (data.time.created), else the row's column, else its end.
    const ts =
      parseTimestamp(time.created) ?? parseTimestamp(r.time_created) ?? parseTimestamp(time.completed) ?? s?.ts ?? null;
    if (ts === null) {
      sink.warn(`${type} row without a usable timestamp skipped`, at);
      continue;
    }
    const u = readUsage(d.tokens, d.cost, at, sink, 'data.tokens');
    const own = modelRef(d.model);
    events.push(
      usageEvent(
        {
          session_id: sessionId,
          project: s?.directory ?? null,
          model: own.model ?? s?.model ?? null,
          provider: own.model ? own.provider : (s?.provider ?? null),
          ts,
          // Row ids are globally unique and survive imports (opencode-next.db):
          // the same row seen in two databases is one response.
          dedupe_key: `msg:${id}`,
          requests: 1,
          source_file: file,
          rule: type === 'compaction' ? RULE.compaction : RULE.assistant,
        },
        u,
      ),
    );
    let sum = rowSums.get(sessionId);
    if (!sum) rowSums.set(sessionId, (sum = zeroUsage()));
    addUsage(sum, u);
  }
  if (unparsable) {
    sink.warn(
      `${unparsable} session_message row(s) with unparsable data skipped (first: ${firstUnparsable})`,
      { file, row: `session_message ${firstUnparsable}` },
      { sumsUpUnparsable: true },
    );
  }

  for (const s of sessions.values()) {
    const ev = residualEvent(s, rowSums.get(s.id) ?? zeroUsage(), file, sink);
    if (ev) events.push(ev);
  }
  return events;
}
