// Codex rollout → usage events. Rules from the contract entry `codex` (usage,
// gotchas, linking); README.md beside this file lists each rule and choice.
//
// Two usage sources share one cumulative scale (the thread total):
// - token_usage_record: exact usage of one response, plus thread_token_usage
//   (the thread total after it). Preferred wherever present.
// - event_msg token_count: only a cumulative total (info.total_token_usage).
//   A response's usage is the difference from the previous real total.
// A token_count and the record of the same response land on the same total,
// so each response is counted once whichever comes first, and both get the
// same dedupe key (thread, rollout, position on the total) — stable when the
// file is compressed, archived or re-read.
import { scanJsonlFile, scanJsonlZstFile } from '../../io/jsonl.js';
import { notAnObject, parseTimestamp } from '../../core/numbers.js';
import type { SourceLocation, UsageEvent } from '../../core/types.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { parseRolloutName } from './paths.js';
import { minus, normalize, plus, readTokens, sameTokens, type Tokens } from './usage.js';
import { RateLimitReader } from './rate-limits.js';
import { headUnit, UNIT_HEAD_BYTES, unitKindOf } from './units.js';
import { extractThreadNames } from './thread-names.js';
import type { WorkUnitKind } from '../../core/types.js';
import { basename } from 'node:path';

/** Only lines containing one of these can matter; the rest (messages, tool output, images) are never parsed. */
const MARKERS = ['"session_meta"', '"turn_context"', '"token_count"', '"token_usage_record"', '"task_started"', '"turn_started"', '"thread_rolled_back"'];

/** How many recent response ids / cumulative positions are remembered (kept small: they ride in ResumePoint.state). */
const RECENT_RESPONSES = 256;
const RECENT_TOTALS = 256;

/** Everything carried across appends of a plain .jsonl (ResumePoint.state). JSON-serializable. */
export interface CodexState {
  v: 1;
  threadId: string;
  /** Line 1 (the file's own session_meta) has been read. */
  metaSeen: boolean;
  metaCwd: string | null;
  /** session_meta.model_provider (e.g. "openai"), passed on to pricing. */
  provider?: string | null;
  /** Sub-agent thread: its spend goes to the parent's project. */
  subagent: boolean;
  /** Records with ordinal below this are inherited parent context. */
  subagentStart: number | null;
  /** cwd of the last inherited turn_context: the parent's project. */
  parentCwd: string | null;
  /** Legacy fork: still inside the block of records copied from the parent. */
  inForkCopy: boolean;
  /** Legacy fork creation time: copied records carry earlier (original) timestamps. */
  forkCreatedTs: number | null;
  model: string | null;
  cwd: string | null;
  contextWindow: number | null;
  /** Last real cumulative thread total; null = not known yet (file continues another rollout via history_base). */
  last: Tokens | null;
  /** Bumped whenever the cumulative total goes down, so positions reused after a reset get new keys. */
  epoch: number;
  recentTotals: number[];
  recentResponses: string[];
  /** A record counted before its token_count: that token_count must not count again. */
  afterRecord: { base: number | null; usage: number; c: number | null } | null;
  lastTs: number | null;
}

/** A token_count delta not yet emitted: its token_usage_record may still follow. */
interface Pending {
  total: Tokens;
  /** Usage of the response; null when the starting total is unknown. */
  delta: Tokens | null;
  key: string;
  line: number;
  ts: number | null;
  model: string | null;
  cwd: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const posInt = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);
const nonNegInt = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

function pushBounded<T>(arr: T[], v: T, max: number): void {
  arr.push(v);
  if (arr.length > max) arr.splice(0, arr.length - max);
}

/** SessionSource is externally tagged: a sub-agent is {"subagent": ...}. */
function isSubagentSource(source: unknown): boolean {
  return source !== null && typeof source === 'object' && 'subagent' in (source as object);
}

function freshState(threadId: string): CodexState {
  return {
    v: 1,
    threadId,
    metaSeen: false,
    metaCwd: null,
    subagent: false,
    subagentStart: null,
    parentCwd: null,
    inForkCopy: false,
    forkCreatedTs: null,
    model: null,
    cwd: null,
    contextWindow: null,
    last: { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0, total: 0, reportedTotal: 0 },
    epoch: 0,
    recentTotals: [],
    recentResponses: [],
    afterRecord: null,
    lastTs: null,
  };
}

function restoredState(raw: unknown): CodexState | null {
  if (raw === null || typeof raw !== 'object') return null;
  const s = raw as CodexState;
  return s.v === 1 && typeof s.threadId === 'string' && Array.isArray(s.recentTotals) ? s : null;
}

export async function extractCodex(source: SourceRef, sink: ExtractSink, opts: ExtractOptions): Promise<ResumePoint | null> {
  if (source.meta?.role === 'thread-names') return extractThreadNames(source, sink, opts);
  const file = source.path;
  const name = parseRolloutName(basename(file));
  const rolloutId = source.meta?.rolloutId ?? name.rolloutId;
  const fileThreadId = source.meta?.threadId ?? name.threadId ?? rolloutId;
  // Without our own state a resume cannot know the thread's totals: read the
  // file again from the start (same dedupe keys, so nothing counts twice).
  const restored = opts.resume ? restoredState(opts.resume.state) : null;
  const resume = restored ? opts.resume : null;
  const st: CodexState = restored ?? freshState(fileThreadId);
  const rollout = rolloutId || '-';
  const keyAt = (total: number) => `codex:${st.threadId}:${rollout}:${st.epoch ? `e${st.epoch}` : ''}@${total}`;

  const out: UsageEvent[] = [];
  const noModel: UsageEvent[] = [];
  const noProject: UsageEvent[] = [];
  let pending: Pending | null = null;
  // token_count.rate_limits: the plan's limit figures (rate-limits.ts), the file's own lines only.
  const limits = new RateLimitReader(file);

  const remember = (total: number) => {
    if (st.recentTotals[st.recentTotals.length - 1] !== total) pushBounded(st.recentTotals, total, RECENT_TOTALS);
  };

  const projectNow = (cwd: string | null): string | null => (st.subagent ? st.parentCwd ?? st.metaCwd : cwd ?? st.metaCwd);

  /** A usage line's time: its own timestamp, else the previous line's (warned); null = unusable. */
  const usageTime = (ts: number | null, at: SourceLocation): number | null => {
    if (ts !== null) return ts;
    if (st.lastTs === null) {
      sink.warn('response without a usable timestamp skipped', at);
      return null;
    }
    sink.warn('response without a usable timestamp dated by the previous line', at);
    return st.lastTs;
  };

  const emit = (t: Tokens, when: number | null, line: number, key: string, model: string | null, cwd: string | null, via: string) => {
    const at = { file, line };
    if (when === null) return; // already warned by usageTime
    const n = normalize(t);
    if (n.inconsistent) sink.warn('input_tokens smaller than cached + cache-write tokens; uncached input counted as 0', at);
    const ev: UsageEvent = {
      harness: 'codex',
      session_id: st.threadId,
      project: projectNow(cwd),
      model,
      provider: st.provider ?? null,
      ts: when,
      dedupe_key: key,
      dedupe_rank: via === 'record' ? 0 : 1,
      requests: 1,
      input_tokens: n.input,
      cache_read_tokens: n.cacheRead,
      cache_write_tokens: n.cacheWrite,
      cache_write_5m_tokens: null,
      cache_write_1h_tokens: null,
      output_tokens: n.output,
      reasoning_tokens: n.reasoning,
      recorded_cost_usd: null, // Codex records no money anywhere (rate_limits is a plan snapshot)
      source_file: file,
      source_line: line,
    };
    if (ev.model === null) noModel.push(ev);
    if (ev.project === null) noProject.push(ev);
    sink.count(via === 'record' ? 'responses from token_usage_record' : 'responses from token_count totals');
    out.push(ev);
  };

  const flushPending = () => {
    if (!pending) return;
    const p = pending;
    pending = null;
    if (!p.delta) {
      sink.skip('first token_count of a rollout continuing another (history_base): taken as the starting total', { file, line: p.line });
      return;
    }
    if (p.delta.total === 0) return;
    emit(p.delta, p.ts, p.line, p.key, p.model, p.cwd, 'token_count');
  };

  /** True for records that are inherited copies (sub-agent parent context, legacy fork copies): they add nothing. */
  const inherited = (ordinal: unknown, ts: number | null): boolean => {
    if (st.subagentStart !== null && typeof ordinal === 'number' && ordinal < st.subagentStart) return true;
    if (st.inForkCopy) {
      if (ts !== null && st.forkCreatedTs !== null && ts >= st.forkCreatedTs) {
        st.inForkCopy = false; // first record written by the fork itself: the copy block is over
        return false;
      }
      return true;
    }
    return false;
  };

  /**
   * A unit of work (units.ts) at `line`: none for inherited records; a
   * sub-agent thread's user messages are its parent's tasks. Keyed by thread,
   * rollout and line, which compression and archiving keep.
   */
  // Tool calls between two other records (a response's calls, before its
  // usage line) go as one row: keyed by the first call's line, counting all.
  let tools: { line: number; ts: number; n: number } | null = null;
  const flushTools = () => {
    if (!tools) return;
    sink.unit({ harness: 'codex', session_id: st.threadId, kind: 'tool_call', dedupe_key: `codex:${st.threadId}:${rollout}:L${tools.line}`, dedupe_rank: 0, ts: tools.ts, count: tools.n });
    tools = null;
  };
  const countUnit = (kind: WorkUnitKind | 'user', ts: number | null, ordinal: number | null, line: number) => {
    if (inherited(ordinal, ts)) return;
    const when = ts ?? st.lastTs;
    if (ts !== null) st.lastTs = ts;
    if (when === null) return;
    if (kind === 'tool_call') {
      if (tools) tools.n++;
      else tools = { line, ts: when, n: 1 };
      return;
    }
    flushTools();
    const k: WorkUnitKind = kind === 'user' ? (st.subagent ? 'subagent_task' : 'prompt') : kind;
    sink.unit({ harness: 'codex', session_id: st.threadId, kind: k, dedupe_key: `codex:${st.threadId}:${rollout}:L${line}`, dedupe_rank: 0, ts: when, count: 1 });
  };

  const onSessionMeta = (p: any, line: number, ts: number | null, at: SourceLocation) => {
    // Only the first line describes the file; later session_meta lines are
    // copies from a legacy fork's parent (contract: session_meta.when).
    if (line !== 1 || st.metaSeen) {
      sink.skip('session_meta copied from another rollout (only the first line describes the file)', at);
      return;
    }
    st.metaSeen = true;
    if (!p || typeof p !== 'object') return;
    st.threadId = str(p.id) ?? st.threadId;
    st.metaCwd = str(p.cwd);
    st.provider = str(p.model_provider);
    st.subagent = isSubagentSource(p.source) || str(p.parent_thread_id) !== null || p.thread_source === 'subagent';
    st.subagentStart = nonNegInt(p.subagent_history_start_ordinal);
    // A sub-agent's own thread is linked to the thread that spawned it (its prompts are attributed there).
    const spawn = p.source && typeof p.source === 'object' ? p.source.subagent?.thread_spawn : null;
    const parent = str(p.parent_thread_id) ?? (spawn && typeof spawn === 'object' ? str(spawn.parent_thread_id) : null);
    if (parent) sink.sessionFact({ harness: 'codex', session_id: st.threadId, title: null, title_rank: 0, parent_session_id: parent, seq: line });
    if (p.history_base && typeof p.history_base === 'object') {
      // Fork/revert: the inherited prefix stays in the other rollout (not
      // copied, not counted here); this file's totals continue from it.
      st.last = null;
    } else if (str(p.forked_from_id)) {
      st.inForkCopy = true;
      st.forkCreatedTs = parseTimestamp(p.timestamp) ?? ts;
    }
  };

  const onTurnContext = (p: any, isInherited: boolean) => {
    if (!p || typeof p !== 'object') return;
    const model = str(p.model);
    const cwd = str(p.cwd);
    if (isInherited && st.subagent && cwd) st.parentCwd = cwd;
    if (model) {
      st.model = model;
      // Responses before the first turn_context take the next one's model.
      for (const e of noModel.splice(0)) e.model = model;
      if (pending && pending.model === null) pending.model = model;
    }
    if (cwd) {
      st.cwd = cwd;
      for (const e of noProject.splice(0)) e.project = projectNow(cwd);
    }
  };

  const onTokenCount = (p: any, line: number, rawTs: number | null, isInherited: boolean, at: SourceLocation) => {
    const info = p.info;
    if (info === null || info === undefined) {
      sink.skip('token_count without info (rate-limit update only)', at);
      return;
    }
    const read = typeof info === 'object' ? readTokens(info.total_token_usage) : null;
    if (!read) {
      // info, or its total, that is not an object (a string, a list, null): named, not passed over.
      const bad: [string, string | null] = notAnObject(info) ? ['info', notAnObject(info)] : ['info.total_token_usage', info.total_token_usage === undefined ? null : notAnObject(info.total_token_usage)];
      if (bad[1]) sink.warn(`token_count ${bad[0]} is ${bad[1]}, not an object; not counted`, at);
      else sink.skip('token_count without total_token_usage', at);
      return;
    }
    if (read.invalid.length) {
      sink.warn(`cumulative total with invalid field(s) ignored: ${read.invalid.join(', ')}`, at);
      return;
    }
    const total = read.tokens;
    const window = posInt(info.model_context_window) ?? st.contextWindow;
    if (window !== null && total.reportedTotal === window) {
      // After a context-window overflow Codex fills the total up to the
      // window: not provider usage. The next real event's delta is taken from
      // the last real total, which is left unchanged here.
      sink.skip('synthesized context-window-overflow total (not provider usage)', at);
      return;
    }
    if (isInherited) {
      st.last = total;
      remember(total.total);
      sink.skip('token_count inherited from a parent rollout', at);
      return;
    }
    const ar = st.afterRecord;
    st.afterRecord = null;
    if (ar && (ar.c === total.total || (ar.base !== null && total.total - ar.base === ar.usage))) {
      if (st.last === null || total.total > st.last.total) st.last = total;
      remember(total.total);
      sink.skip('token_count already counted by its token_usage_record', at);
      return;
    }
    if (st.last === null) {
      flushPending();
      pending = { total, delta: null, key: keyAt(total.total), line, ts: usageTime(rawTs, at), model: st.model, cwd: st.cwd };
      st.last = total;
      remember(total.total);
      return;
    }
    if (total.total === st.last.total) {
      // Events repeat the same total (e.g. with a rate-limit update): no new
      // usage. Summing last_token_usage instead would count every repeat.
      sink.skip('token_count repeating an unchanged total', at);
      return;
    }
    flushPending();
    if (total.total < st.last.total) {
      // The total went down: a rewind to an earlier state or a restarted
      // counter. Positions may be reused from here on: new key epoch.
      st.epoch++;
      const seen = st.recentTotals.includes(total.total);
      st.last = total;
      remember(total.total);
      if (seen) {
        sink.skip('cumulative total went back to an earlier value (no new usage)', at);
        return;
      }
      const lu = typeof info === 'object' ? readTokens(info.last_token_usage) : null;
      if (!lu || lu.invalid.length || lu.tokens.total === 0 || lu.tokens.total > total.total) {
        sink.skip('cumulative total restarted without a usable last_token_usage', at);
        return;
      }
      sink.count('cumulative total restarts');
      pending = { total, delta: lu.tokens, key: keyAt(total.total), line, ts: usageTime(rawTs, at), model: st.model, cwd: st.cwd };
      return;
    }
    const lu = typeof info === 'object' ? readTokens(info.last_token_usage) : null;
    if (st.last.total > 0 && lu && !lu.invalid.length && sameTokens(lu.tokens, total)) {
      // The thread total equals this one response: a counter that started
      // again from 0 (above the old total, so it did not show as a drop).
      st.epoch++;
      sink.count('cumulative total restarts');
      pending = { total, delta: total, key: keyAt(total.total), line, ts: usageTime(rawTs, at), model: st.model, cwd: st.cwd };
      st.last = total;
      remember(total.total);
      return;
    }
    const { tokens: delta, clamped } = minus(total, st.last);
    if (clamped) sink.warn('cumulative total went down in some field(s); those count as 0 for this response', at);
    pending = { total, delta, key: keyAt(total.total), line, ts: usageTime(rawTs, at), model: st.model, cwd: st.cwd };
    st.last = total;
    remember(total.total);
  };

  const onUsageRecord = (p: any, line: number, rawTs: number | null, isInherited: boolean, at: SourceLocation) => {
    const u = readTokens(p.usage);
    if (!u) {
      const notObject = p.usage === undefined ? null : notAnObject(p.usage);
      sink.warn(notObject ? `token_usage_record usage is ${notObject}, not an object; not counted` : 'token_usage_record without usage ignored', at);
      return;
    }
    if (u.invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${u.invalid.join(', ')}`, at);
    const cr = readTokens(p.thread_token_usage);
    const thread = cr && !cr.invalid.length ? cr.tokens : null;
    if (isInherited) {
      if (thread) {
        st.last = thread;
        remember(thread.total);
      }
      sink.skip('token_usage_record inherited from a parent rollout', at);
      return;
    }
    const rid = str(p.response_id);
    const replayed = thread !== null && st.last !== null && thread.total < st.last.total && st.recentTotals.includes(thread.total);
    if ((rid && st.recentResponses.includes(rid)) || replayed) {
      // The same response written again (adjacent, or later: its thread total
      // is one this file already passed).
      sink.skip('duplicate token_usage_record (same response_id)', at);
      return;
    }
    if (rid) pushBounded(st.recentResponses, rid, RECENT_RESPONSES);
    const usage = u.tokens;
    const ts = usageTime(rawTs, at);
    const pend = pending as Pending | null;
    if (pend && ((thread && thread.total === pend.total.total) || (pend.delta && pend.delta.total === usage.total))) {
      // Its token_count came first: the record replaces that delta.
      pending = null;
      st.afterRecord = null;
      sink.skip('token_count already counted by its token_usage_record', { file, line: pend.line });
    } else {
      flushPending();
      const base = st.last;
      if (thread) {
        if (base && thread.total < base.total) st.epoch++;
        st.last = thread;
      } else if (base) {
        st.last = plus(base, usage);
      }
      // Record before its token_count: remember it so that token_count adds nothing.
      st.afterRecord = !thread || !base || thread.total > base.total ? { base: base ? base.total : null, usage: usage.total, c: thread ? thread.total : null } : null;
    }
    if (thread) remember(thread.total);
    const key = thread ? keyAt(thread.total) : rid ? `codex:${st.threadId}:resp:${rid}` : `codex:${st.threadId}:${rollout}:line:${line}`;
    emit(usage, ts, line, key, st.model, st.cwd, 'record');
  };

  let parsedLines = 0;
  const handle = (rec: any, line: number) => {
    parsedLines++;
    const at = { file, line };
    const ts = parseTimestamp(rec.timestamp);
    const p = rec.payload;
    if (rec.type === 'session_meta') {
      onSessionMeta(p, line, ts, at);
      if (ts !== null) st.lastTs = ts;
      return;
    }
    if (!p || typeof p !== 'object') return;
    // A unit whose line also held a marker string (e.g. a tool call whose arguments mention token_count).
    const unit = unitKindOf(rec.type, p.type, p.item && typeof p.item === 'object' ? p.item.type : null);
    if (unit) countUnit(unit, ts, typeof rec.ordinal === 'number' ? rec.ordinal : null, line);
    else flushTools(); // a usage line (or other parsed record) ends the response's calls
    let kind: 'turn_context' | 'token_count' | 'record' | 'task_started' | 'rollback' | null = null;
    if (rec.type === 'turn_context') kind = 'turn_context';
    else if (rec.type === 'token_usage_record') kind = 'record';
    else if (rec.type === 'event_msg') {
      if (p.type === 'token_count') kind = 'token_count';
      else if (p.type === 'task_started' || p.type === 'turn_started') kind = 'task_started';
      else if (p.type === 'thread_rolled_back') kind = 'rollback';
    }
    if (kind === null) return; // a marker string inside some other record
    const isInherited = inherited(rec.ordinal, ts);
    switch (kind) {
      case 'turn_context':
        onTurnContext(p, isInherited);
        break;
      case 'task_started': {
        const w = posInt(p.model_context_window);
        if (w !== null) st.contextWindow = w;
        break;
      }
      case 'rollback':
        // Rolled-back turns leave the model's context, not the bill.
        if (!isInherited) sink.count('thread_rolled_back (spend kept)');
        break;
      case 'token_count':
        if (!isInherited && ts !== null) limits.observe(p.rate_limits, ts, line, st.threadId);
        onTokenCount(p, line, ts, isInherited, at);
        break;
      case 'record':
        onUsageRecord(p, line, ts, isInherited, at);
        break;
      default:
        kind satisfies never;
    }
    if (ts !== null) st.lastTs = ts;
  };

  // Lines without a marker: units of work counted from their first bytes (units.ts), never parsed.
  const unmarkedHead = {
    bytes: UNIT_HEAD_BYTES,
    check: (buf: Buffer, start: number, end: number, line: number) => {
      const u = headUnit(buf, start, end);
      if (u) countUnit(u.kind, u.ts, u.ordinal, line);
      return false;
    },
  };
  let point: ResumePoint | null = null;
  if (source.kind === 'jsonl.zst') {
    await scanJsonlZstFile(file, { markers: MARKERS, unmarkedHead }, sink, handle);
  } else {
    point = await scanJsonlFile(file, { markers: MARKERS, resume, unmarkedHead }, sink, handle);
  }
  flushPending();
  flushTools();
  if (!st.metaSeen && parsedLines > 0) sink.warn('first line is not a readable session_meta; thread id taken from the file name', { file, line: 1 });
  for (const e of out) sink.event(e);
  if (sink.rateLimit) limits.flush((r) => sink.rateLimit!(r), st.threadId);
  return point ? { ...point, state: st } : null;
}
