// Cursor Agent store.db → context-window rows. Cursor persists NO billed
// usage and no cost (contract `usage`: token_details is occupancy at a
// checkpoint, the per-turn TurnEndedUpdate tokens are never written), so this
// extractor emits ContextRow objects only — never a UsageEvent. Rules: see
// README.md beside this file.
import { existsSync } from 'node:fs';
import { readRegularBytes } from '../../io/regular-file.js';
import { dirname, join } from 'node:path';
import type { ContextRow, WorkUnit } from '../../core/types.js';
import { openSqliteReadOnly, type SqliteDb } from '../../io/sqlite.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { countStaleRoots } from './census.js';
import { BlobGraph, epochMs, type StateSummary } from './graph.js';
import { projectForWorkspace } from './paths.js';

export const COUNTERS = {
  chats: 'chats',
  subagents: 'subagents',
  liveRoots: 'live roots',
  staleRoots: 'stale roots ignored',
} as const;

/** The fields of meta row '0' tx-usage reads (contract record `meta / '0'`). */
export interface ChatMeta {
  agentId: string | null;
  latestRootBlobId: string;
  createdAt: number | null;
  lastUsedModel: string | null;
  /** Set when the store belongs to a subagent run with its own store. */
  parentAgentId: string | null;
  /** The chat's name (its title); 'New Agent' until named, '<name> (forked)' for a fork. */
  name: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** meta row '0': hex of UTF-8 JSON. Plain JSON is accepted too. Null (with a warning) when unusable. */
export function readMeta(db: SqliteDb, file: string, sink: ExtractSink): ChatMeta | null {
  const at = { file, row: "meta '0'" };
  let raw: unknown;
  try {
    raw = db.prepare("SELECT value FROM meta WHERE key = '0'").pluck().get();
  } catch (e) {
    sink.warn(`no meta table: ${(e as Error).message}`, at);
    return null;
  }
  if (raw === undefined || raw === null) {
    sink.warn('meta row missing; chat listed without a conversation', at);
    return null;
  }
  let text = Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw);
  text = text.trim();
  if (!text.startsWith('{')) {
    if (!/^(?:[0-9a-fA-F]{2})+$/.test(text)) {
      sink.warn('meta value is neither hex-encoded JSON nor JSON; chat listed without a conversation', at);
      return null;
    }
    text = Buffer.from(text, 'hex').toString('utf8');
  }
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    sink.warn('meta value does not decode to JSON; chat listed without a conversation', at);
    return null;
  }
  if (!obj || typeof obj !== 'object') {
    sink.warn('meta value is not a JSON object; chat listed without a conversation', at);
    return null;
  }
  const m = obj as Record<string, unknown>;
  let root = typeof m.latestRootBlobId === 'string' ? m.latestRootBlobId.trim().toLowerCase() : '';
  if (root && !/^[0-9a-f]{64}$/.test(root)) {
    sink.warn('meta.latestRootBlobId is not a 64-hex blob id; chat listed without a conversation', at);
    root = '';
  }
  const info =
    m.subagentInfo && typeof m.subagentInfo === 'object' ? (m.subagentInfo as Record<string, unknown>) : null;
  return {
    agentId: str(m.agentId),
    latestRootBlobId: root,
    createdAt: typeof m.createdAt === 'number' ? epochMs(m.createdAt) : null,
    lastUsedModel: str(m.lastUsedModel),
    parentAgentId: info ? str(info.parentAgentId) : null,
    name: str(m.name),
  };
}

/** `cwd` from the chat's meta.json sidecar, or null (with a warning when the file exists but is unusable). */
export function readSidecarCwd(dbPath: string, sink: ExtractSink): string | null {
  const file = join(dirname(dbPath), 'meta.json');
  if (!existsSync(file)) return null;
  try {
    const obj = JSON.parse(readRegularBytes(file, 1 << 20).toString('utf8')) as unknown;
    if (obj && typeof obj === 'object') return str((obj as Record<string, unknown>).cwd);
    sink.warn('meta.json is not a JSON object; project taken from the folder name', { file });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    sink.warn(
      `meta.json unreadable (${err.code === 'ENOTREG' ? err.message : (err.code ?? 'invalid JSON')}); project taken from the folder name`,
      { file },
    );
  }
  return null;
}

/** Cursor's name of a chat nobody named yet: no title. */
const DEFAULT_NAME = 'New Agent';

/**
 * The units of work of one row's turns (README "Units of work"): a person's
 * prompt (a subagent's turns are its parent's tasks), the turn's end when it
 * completed, its tool-call steps. A fork's copies (`(forked)` chats) lose to
 * the original chat's.
 */
function emitUnits(
  sink: ExtractSink,
  session: string,
  s: StateSummary | null,
  o: { subagent: boolean; rank: number; fallbackTs: number | null },
): void {
  for (const t of s?.turnUnits ?? []) {
    const ts = t.started ?? t.completed ?? o.fallbackTs;
    if (ts === null) continue;
    const unit = (kind: WorkUnit['kind'], at: number, count = 1) =>
      sink.unit({
        harness: 'cursor-agent',
        session_id: session,
        kind,
        dedupe_key: t.key,
        dedupe_rank: o.rank,
        ts: at,
        count,
      });
    if (t.person) unit(o.subagent ? 'subagent_task' : 'prompt', ts);
    if (t.completed !== null) unit('turn', t.completed);
    if (t.tools > 0) unit('tool_call', ts, t.tools);
  }
}

function span(times: number[]): { first: number | null; last: number | null } {
  if (!times.length) return { first: null, last: null };
  return { first: Math.min(...times), last: Math.max(...times) };
}

function row(
  session: string,
  project: string | null,
  model: string | null,
  s: StateSummary | null,
  times: number[],
): ContextRow {
  const { first, last } = span([...times, ...(s?.times ?? [])]);
  return {
    harness: 'cursor-agent',
    session,
    project,
    model,
    turns: s?.turns ?? 0,
    latest_used_tokens: s?.latest_used_tokens ?? null,
    max_tokens: s?.max_tokens ?? null,
    peak_used_tokens: s?.peak_used_tokens ?? null,
    first_ts: first,
    last_ts: last,
  };
}

export async function extractCursor(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  const file = source.path;
  const chatId = source.meta?.chatId || 'unknown';
  const workspace = source.meta?.workspace ?? '';
  for (const name of Object.values(COUNTERS)) sink.count(name, 0);

  // Project: meta.json cwd, else the workspace folder's md5 matched against
  // cwds known from other harnesses, else `unknown (<md5>)`. ACP sessions have
  // no md5 folder: their project is meta.json cwd or unknown (null).
  const cwd = readSidecarCwd(file, sink);
  const project = cwd ?? (workspace ? projectForWorkspace(workspace, opts.knownProjects) : null);

  const handle = openSqliteReadOnly(file, opts.tmpDir);
  try {
    // A store another process holds locked was read from a snapshot copy (src/io/sqlite.ts): say so.
    if (handle.copyReason === 'locked')
      sink.warn('database is locked by another connection; read a private snapshot copy of it', { file });
    const db = handle.db;
    const meta = readMeta(db, file, sink);
    const graph = new BlobGraph(db, file, sink);
    // A store of its own for a subagent run (meta.subagentInfo) is an entry
    // `<parentAgentId>/<chatId>`, like the subagents inside a parent store.
    const session = meta?.parentAgentId ? `${meta.parentAgentId}/${chatId}` : chatId;
    sink.count(meta?.parentAgentId ? COUNTERS.subagents : COUNTERS.chats);
    const baseTimes = meta?.createdAt != null ? [meta.createdAt] : [];
    const model = meta?.lastUsedModel ?? null;
    const rank = meta?.name?.endsWith(' (forked)') ? 1 : 0;
    const fallbackTs = meta?.createdAt ?? null;
    // Title: the chat's name (the meta row's `name`), unless still the default; a subagent store names its parent.
    const name = meta?.name && meta.name !== DEFAULT_NAME ? meta.name : null;
    if (name !== null || meta?.parentAgentId) {
      sink.sessionFact({
        harness: 'cursor-agent',
        session_id: session,
        title: name,
        title_rank: 0,
        parent_session_id: meta?.parentAgentId ?? null,
        seq: 0,
      });
    }

    const rootId = meta?.latestRootBlobId ?? '';
    const root = rootId ? graph.root(rootId) : null;
    if (!root) {
      // latestRootBlobId '' (never checkpointed), or a root we could not read: 0 turns, no occupancy.
      sink.context(row(session, project, model, null, baseTimes));
    } else {
      const summary = graph.summarize(root, rootId, 'latest root');
      sink.context(row(session, project, model, summary, baseTimes));
      emitUnits(sink, session, summary, { subagent: meta?.parentAgentId != null, rank, fallbackTs });
      for (const sub of graph.subagents(root, rootId)) {
        sink.count(COUNTERS.subagents);
        const state = sub.state.conversation_state;
        const ancestors = new Set([rootId]);
        const summary = state ? graph.summarize(state, sub.blob, `subagent ${sub.id}`, ancestors) : null;
        const times = [epochMs(sub.state.created_timestamp_ms), epochMs(sub.state.last_used_timestamp_ms)].filter(
          (t): t is number => t !== null,
        );
        // Model: the subagent's own model_id; the parent's lastUsedModel may be another model, so it is not borrowed.
        const subSession = `${chatId}/${sub.id}`;
        sink.context(row(subSession, project, sub.state.model_id || null, summary, times));
        emitUnits(sink, subSession, summary, { subagent: true, rank, fallbackTs: times[0] ?? fallbackTs });
        sink.sessionFact({
          harness: 'cursor-agent',
          session_id: subSession,
          title: null,
          title_rank: 0,
          parent_session_id: session,
          seq: 0,
        });
      }
    }
    sink.count(COUNTERS.liveRoots, graph.liveRoots.size);
    try {
      sink.count(COUNTERS.staleRoots, countStaleRoots(db, graph.reachable));
    } catch (e) {
      sink.warn(`stale-root census stopped: ${(e as Error).message}`, { file, row: 'blobs' });
    }
  } finally {
    handle.close();
  }
  return null;
}
