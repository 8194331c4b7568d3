// A parsed rollout line, read into the typed record the extractor's handlers
// take (one handler per record type: session-meta.ts, turn-records.ts,
// token-count.ts, usage-record.ts). Only this module touches the parsed JSON:
// it narrows every field a rule reads (a string, a count, a TokenUsage) and
// names what is wrong with a field the rules must report (contract `codex`,
// README "Bad input"); it decides nothing.
import { notAnObject, parseTimestamp } from '../../core/numbers.js';
import type { WorkUnitKind } from '../../core/types.js';
import { readTokens, type Tokens } from './usage.js';
import { unitKindOf } from './units.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object';
export const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
export const posInt = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);
const nonNegInt = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

/** A session_meta payload: the file's own header on line 1, a copied thread's header after it. */
export interface SessionMeta {
  /** The thread id. */
  id: string | null;
  /** session_id: the root thread of the session tree. */
  root: string | null;
  /** The thread's creation time (payload.timestamp). */
  created: number | null;
  cwd: string | null;
  /** model_provider (e.g. "openai"). */
  provider: string | null;
  /** A sub-agent's thread: source {"subagent": …}, parent_thread_id, or thread_source "subagent". */
  subagent: boolean;
  /** subagent_history_start_ordinal: records below it are inherited parent context. */
  historyStart: number | null;
  /** The thread that spawned it: parent_thread_id, else source.subagent.thread_spawn.parent_thread_id. */
  parent: string | null;
  forkedFrom: string | null;
  /** history_base: the inherited prefix stays in another rollout. */
  historyBase: boolean;
}

/** What a token_count's `info` holds. */
export type TokenCountInfo =
  /** info null or absent: a rate-limit update only. */
  | { kind: 'rate-limits-only' }
  /** info, or its total, is not an object (a string, a list, null): named, not passed over. */
  | { kind: 'not-an-object'; field: 'info' | 'info.total_token_usage'; is: string }
  | { kind: 'no-total' }
  /** A cumulative total with fields of the wrong type (a bogus baseline would poison later deltas). */
  | { kind: 'invalid-total'; fields: string[] }
  | {
      kind: 'total';
      total: Tokens;
      /** last_token_usage when valid, above 0 and not above the total; else null. */
      last: Tokens | null;
      /** model_context_window on the event. */
      contextWindow: number | null;
      /** The model the event names (newer builds). */
      model: string | null;
    };

export type CodexRecord =
  | { type: 'session_meta'; meta: SessionMeta | null }
  | { type: 'turn_context'; turnId: unknown; model: string | null; cwd: string | null }
  /** event_msg task_started (alias turn_started). */
  | { type: 'task_started'; turnId: unknown; startedAt: unknown; contextWindow: number | null }
  /** event_msg thread_settings_applied; settings null when thread_settings is not an object. */
  | { type: 'thread_settings'; settings: { model: string | null; priority: boolean } | null }
  | { type: 'thread_rolled_back' }
  | { type: 'token_count'; info: TokenCountInfo; rateLimits: unknown }
  | {
      type: 'token_usage_record';
      turnId: unknown;
      /** payload.usage read; null when absent or not an object (`usageIs` says which). */
      usage: { tokens: Tokens; invalid: string[] } | null;
      usageIs: string | null;
      /** thread_token_usage when valid: the thread total after this response. */
      thread: Tokens | null;
      responseId: string | null;
    };

/** A parsed line: its time and ordinal, the unit of work it stands for, and the record a usage rule reads (null: none). */
export interface RolloutLine {
  ts: number | null;
  ordinal: number | null;
  unit: WorkUnitKind | 'user' | null;
  record: CodexRecord | null;
}

function sessionMetaOf(p: unknown): SessionMeta | null {
  if (!isObj(p)) return null;
  const source = p.source;
  const sub = isObj(source) ? source.subagent : undefined;
  const spawn = isObj(sub) ? sub.thread_spawn : null;
  return {
    id: str(p.id),
    root: str(p.session_id),
    created: parseTimestamp(p.timestamp),
    cwd: str(p.cwd),
    provider: str(p.model_provider),
    // SessionSource is externally tagged: a sub-agent is {"subagent": ...}.
    subagent:
      (isObj(source) && 'subagent' in source) || str(p.parent_thread_id) !== null || p.thread_source === 'subagent',
    historyStart: nonNegInt(p.subagent_history_start_ordinal),
    parent: str(p.parent_thread_id) ?? (isObj(spawn) ? str(spawn.parent_thread_id) : null),
    forkedFrom: str(p.forked_from_id),
    historyBase: isObj(p.history_base),
  };
}

function tokenCountInfo(info: unknown): TokenCountInfo {
  if (info === null || info === undefined) return { kind: 'rate-limits-only' };
  const read = isObj(info) ? readTokens(info.total_token_usage) : null;
  if (!read) {
    const infoIs = notAnObject(info);
    if (infoIs) return { kind: 'not-an-object', field: 'info', is: infoIs };
    const total = (info as Obj).total_token_usage;
    const totalIs = total === undefined ? null : notAnObject(total);
    return totalIs ? { kind: 'not-an-object', field: 'info.total_token_usage', is: totalIs } : { kind: 'no-total' };
  }
  if (read.invalid.length) return { kind: 'invalid-total', fields: read.invalid };
  const i = info as Obj;
  const total = read.tokens;
  const lu = readTokens(i.last_token_usage);
  const last = lu && !lu.invalid.length && lu.tokens.total > 0 && lu.tokens.total <= total.total ? lu.tokens : null;
  return { kind: 'total', total, last, contextWindow: posInt(i.model_context_window), model: str(i.model) };
}

function usageRecordOf(p: Obj): CodexRecord {
  const u = readTokens(p.usage);
  const thread = readTokens(p.thread_token_usage);
  return {
    type: 'token_usage_record',
    turnId: p.turn_id,
    usage: u,
    usageIs: u || p.usage === undefined ? null : notAnObject(p.usage),
    thread: thread && !thread.invalid.length ? thread.tokens : null,
    responseId: str(p.response_id),
  };
}

/** The record of an event_msg the rules read, by its payload type; null for the others. */
function eventOf(p: Obj): CodexRecord | null {
  switch (p.type) {
    case 'token_count':
      return { type: 'token_count', info: tokenCountInfo(p.info), rateLimits: p.rate_limits };
    case 'task_started':
    case 'turn_started':
      return {
        type: 'task_started',
        turnId: p.turn_id,
        startedAt: p.started_at,
        contextWindow: posInt(p.model_context_window),
      };
    case 'thread_rolled_back':
      return { type: 'thread_rolled_back' };
    case 'thread_settings_applied': {
      const s = p.thread_settings;
      // "fast" is the legacy spelling of priority processing (ccusage#996).
      return {
        type: 'thread_settings',
        settings: isObj(s)
          ? { model: str(s.model), priority: s.service_tier === 'priority' || s.service_tier === 'fast' }
          : null,
      };
    }
    default:
      return null;
  }
}

/**
 * The line as the rules read it; null when it holds nothing they read (its
 * payload is not an object). A session_meta is read whatever its payload.
 */
export function rolloutLine(raw: Obj): RolloutLine | null {
  const ts = parseTimestamp(raw.timestamp);
  const ordinal = typeof raw.ordinal === 'number' ? raw.ordinal : null;
  const p = raw.payload;
  if (raw.type === 'session_meta')
    return { ts, ordinal, unit: null, record: { type: 'session_meta', meta: sessionMetaOf(p) } };
  if (!isObj(p)) return null;
  const unit = unitKindOf(raw.type, p.type, isObj(p.item) ? p.item.type : null);
  let record: CodexRecord | null = null;
  if (raw.type === 'turn_context')
    record = { type: 'turn_context', turnId: p.turn_id, model: str(p.model), cwd: str(p.cwd) };
  else if (raw.type === 'token_usage_record') record = usageRecordOf(p);
  else if (raw.type === 'event_msg') record = eventOf(p);
  return { ts, ordinal, unit, record };
}
