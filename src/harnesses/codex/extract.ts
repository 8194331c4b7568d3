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
import { minus, normalize, plus, readTokens, sameTokens, ZERO, type Tokens } from './usage.js';
import { RateLimitReader } from './rate-limits.js';
import { headUnit, UNIT_HEAD_BYTES, unitKindOf } from './units.js';
import { extractThreadNames } from './thread-names.js';
import { addHeader, BURST_MS, freshLineage, OWN, ownerAt, turnTime, type LineageState } from './lineage.js';
import type { WorkUnitKind } from '../../core/types.js';
import { basename } from 'node:path';

/** Only lines containing one of these can matter; the rest (messages, tool output, images) are never parsed. */
const MARKERS = ['"session_meta"', '"turn_context"', '"token_count"', '"token_usage_record"', '"task_started"', '"turn_started"', '"thread_rolled_back"', '"thread_settings_applied"'];

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
  /** Legacy fork: still inside the block of records copied from the parent (v1 states only; see `lineage`). */
  inForkCopy: boolean;
  /** The file's own creation time (session_meta.payload.timestamp, else its line's). */
  forkCreatedTs: number | null;
  /** session_meta.session_id: the root thread of the session tree, which own responses are attributed to. */
  root?: string | null;
  /** Copied history: whose records are being read (lineage.ts). Absent in v1 states. */
  lineage?: LineageState;
  /** service_tier of the latest thread_settings_applied: "priority" (legacy "fast") bills at the priority rate. */
  tier?: 'priority' | null;
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
  /** The last token_count counted (its total and usage): its record may come in the next run. */
  lastTc?: { c: number; usage: number } | null;
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
  /** The README rule that counts it, when not the plain delta of two totals (a restarted counter). */
  rule?: string;
  /** Thread whose copied record this is (lineage.ts); null = the file's own. */
  origin: string | null;
  tier: 'priority' | null;
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
    root: null,
    lineage: freshLineage(),
    tier: null,
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
  if (s.v !== 1 || typeof s.threadId !== 'string' || !Array.isArray(s.recentTotals)) return null;
  if (!s.lineage) {
    // A state written before the lineage rule: a file still inside a legacy
    // copy block is read again from the start; any other continues as its own.
    if (s.inForkCopy) return null;
    s.lineage = { ...freshLineage(), done: true };
  }
  return s;
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
  const lin: LineageState = (st.lineage ??= freshLineage());
  // A copied response is keyed as its own thread's file keys it (README
  // "Lineage: copied history"), so the store keeps one whichever file is read
  // first; the file's own responses by this thread and rollout.
  const keyAt = (total: number) => {
    const e = st.epoch ? `e${st.epoch}` : '';
    return lin.origin !== null ? `codex:${lin.origin}:-:${e}@${total}` : `codex:${st.threadId}:${rollout}:${e}@${total}`;
  };
  /**
   * Own responses belong to the session: a sub-agent's, to the root of its tree. Units of work stay
   * on the thread (linked to its parent by a session fact, as reports attribute them).
   */
  const ownSession = () => st.root ?? st.threadId;

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

  /** A response about to be emitted (or kept pending for its record) at the current state. */
  const pend = (total: Tokens, delta: Tokens | null, line: number, ts: number | null, model: string | null): Pending => ({
    total,
    delta,
    key: keyAt(total.total),
    line,
    ts,
    model,
    cwd: st.cwd,
    origin: lin.origin,
    tier: st.tier ?? null,
  });

  const emit = (t: Tokens, p: Omit<Pending, 'total' | 'delta'>, via: 'record' | 'token_count', rule?: string) => {
    const at = { file, line: p.line };
    if (p.ts === null) return; // already warned by usageTime
    const n = normalize(t);
    if (n.inconsistent) sink.warn('input_tokens smaller than cached + cache-write tokens; uncached input counted as 0', at);
    const copy = p.origin;
    const header = copy !== null ? lin.headers.find((h) => h.id === copy) : undefined;
    const ev: UsageEvent = {
      harness: 'codex',
      // A copy stands for its thread's response (kept only when that thread's file is not read).
      session_id: copy === null ? ownSession() : header?.root ?? (st.subagent ? ownSession() : copy),
      project: copy === null ? projectNow(p.cwd) : p.cwd ?? st.metaCwd,
      model: p.model,
      provider: st.provider ?? null,
      ts: p.ts,
      dedupe_key: p.key,
      // Originals before copies: a record (0) before its token_count (1); copies that kept the
      // original's timestamp 2 and 3, re-stamped copies 4 and 5 (only those can be dated inside a
      // report's window while their original's file is left unread: Harness.copyRankFrom).
      dedupe_rank: (via === 'record' ? 0 : 1) + (copy === null ? 0 : lin.stamps === 'original' ? 2 : 4),
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
      source_line: p.line,
      rule: copy !== null ? 'Lineage: copied history' : rule ?? (via === 'record' ? 'token_usage_record' : 'event_msg token_count'),
    };
    // Priority processing (thread_settings_applied.service_tier) is a billing category of its own (src/pricing).
    if (p.tier === 'priority') ev.billing_kind = 'priority';
    if (ev.model === null) noModel.push(ev);
    if (ev.project === null) noProject.push(ev);
    if (copy !== null) {
      sink.count(`responses copied from thread ${copy}`);
    } else {
      lin.done = true; // own responses have begun: no copy block can start after them
      sink.count('own responses');
      sink.count(via === 'record' ? 'responses from token_usage_record' : 'responses from token_count totals');
    }
    out.push(ev);
  };

  const flushPending = () => {
    if (!pending) return;
    const p = pending;
    pending = null;
    if (!p.delta) {
      sink.skip('first token_count after an unknown total without a usable last_token_usage: taken as the starting total', { file, line: p.line });
      return;
    }
    if (p.delta.total === 0) {
      // Only possible when some fields went down (clamped to 0, warned): nothing billed is left.
      sink.skip('token_count adding no tokens after its fields went down', { file, line: p.line });
      return;
    }
    st.lastTc = { c: p.total.total, usage: p.delta.total };
    emit(p.delta, p, 'token_count', p.rule);
  };

  /**
   * Starts reading the records of `origin` (null: the file's own). Totals go
   * on from the last one (`fresh`: a copied session_meta, where that
   * thread's own file starts at 0); positions restart their epochs, as in
   * that thread's file.
   */
  const switchTo = (origin: string | null, fresh: boolean) => {
    flushPending();
    if (fresh) st.last = { ...ZERO };
    st.epoch = 0;
    st.recentTotals = [];
    st.afterRecord = null;
    lin.origin = origin;
  };
  /** The copy block is over: what follows is the file's own (`reason` shown in `tx-usage sources`). */
  const endCopy = (reason: string) => {
    if (lin.done || lin.origin === null) return;
    switchTo(null, false);
    lin.done = true;
    sink.count(`copy ended by ${reason}`);
  };

  /** A turn began (turn_id / started_at): its thread is the newest of the lineage that existed then. */
  const onTurn = (turnId: unknown, startedAt: unknown) => {
    if (st.subagentStart !== null || lin.done || lin.origin === null) return;
    const t = turnTime(turnId, startedAt);
    if (t === null) return;
    const o = ownerAt(lin, st.forkCreatedTs, t);
    if (o === OWN) endCopy(typeof turnId === 'string' && turnTime(turnId, null) !== null ? "the fork's own first turn (turn_id time)" : "the fork's own first turn (task_started.started_at)");
    else if (o !== null && o !== lin.origin) switchTo(o, false);
  };

  /** Whose record this is: the thread it was copied from, or null for the file's own. */
  const classify = (ordinal: unknown, ts: number | null): string | null => {
    // The first dated line of a copy tells how it is dated: well before the
    // fork's creation = original timestamps (line times then date it too).
    if (ts !== null && lin.origin !== null && !lin.done) lin.stamps ??= st.forkCreatedTs !== null && ts < st.forkCreatedTs - BURST_MS ? 'original' : 'restamped';
    if (st.subagentStart !== null) {
      if (typeof ordinal !== 'number') return null;
      if (ordinal < st.subagentStart) return lin.origin;
      endCopy('the ordinal reaching subagent_history_start_ordinal');
      return null;
    }
    if (lin.done || lin.origin === null) return null;
    if (ts !== null) {
      // A copy that kept its original timestamps: each line is dated by them.
      if (lin.stamps === 'original') {
        const o = ownerAt(lin, st.forkCreatedTs, ts);
        if (o === OWN) {
          endCopy('the first record dated at or after the fork was created (original timestamps)');
          return null;
        }
        if (o !== null && o !== lin.origin) switchTo(o, false);
      }
    }
    return lin.origin;
  };

  /**
   * A unit of work (units.ts) at `line`: none for copied records; a
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
    if (classify(ordinal, ts) !== null) return;
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

  /** A session_meta after line 1: a copied header naming the thread whose records follow, or this thread's own again. */
  const onCopiedMeta = (p: any, at: SourceLocation) => {
    sink.skip('session_meta copied from another rollout (only the first line describes the file)', at);
    const id = p && typeof p === 'object' ? str(p.id) : null;
    if (id === null || lin.done) return;
    if (id === st.threadId) {
      endCopy("the fork's own session_meta written again after the copy");
      return;
    }
    const known = lin.headers.some((h) => h.id === id && h.created !== null);
    addHeader(lin, { id, created: parseTimestamp(p.timestamp), root: str(p.session_id) });
    const h = lin.headers.find((x) => x.id === id)!;
    if (h.created === null) Object.assign(h, { created: parseTimestamp(p.timestamp), root: str(p.session_id) });
    // First sight: that thread's own file starts here, at 0. Again: its own records go on.
    switchTo(id, !known);
  };

  const onSessionMeta = (p: any, line: number, ts: number | null, at: SourceLocation) => {
    // Only the first line describes the file; later session_meta lines are
    // copies from an ancestor (contract: session_meta.when), or the fork's own again.
    if (line !== 1 || st.metaSeen) {
      onCopiedMeta(p, at);
      return;
    }
    st.metaSeen = true;
    if (!p || typeof p !== 'object') return;
    st.threadId = str(p.id) ?? st.threadId;
    st.metaCwd = str(p.cwd);
    st.provider = str(p.model_provider);
    st.forkCreatedTs = parseTimestamp(p.timestamp) ?? ts;
    st.subagent = isSubagentSource(p.source) || str(p.parent_thread_id) !== null || p.thread_source === 'subagent';
    st.subagentStart = nonNegInt(p.subagent_history_start_ordinal);
    // A sub-agent's own thread is linked to the thread that spawned it (its prompts are attributed there).
    const spawn = p.source && typeof p.source === 'object' ? p.source.subagent?.thread_spawn : null;
    const parent = str(p.parent_thread_id) ?? (spawn && typeof spawn === 'object' ? str(spawn.parent_thread_id) : null);
    if (parent) sink.sessionFact({ harness: 'codex', session_id: st.threadId, title: null, title_rank: 0, parent_session_id: parent, seq: line });
    // session_meta.session_id is the root thread of the tree (contract); a sub-agent's spend belongs there.
    if (st.subagent) {
      const root = str(p.session_id);
      st.root = root !== null && root !== st.threadId ? root : parent ?? st.threadId;
    }
    const from = str(p.forked_from_id);
    if (p.history_base && typeof p.history_base === 'object') {
      // Fork/revert: the inherited prefix stays in the other rollout (not
      // copied, not counted here); this file's totals continue from it.
      st.last = null;
    } else if (from !== null || (st.subagentStart !== null && parent !== null)) {
      // The records after this line may be copies of the parent's (or a
      // sub-agent's inherited context): keyed by the parent until a
      // boundary. A copy may start anywhere in the parent's history (its
      // last turns), so its first total's last_token_usage is its response.
      const copyOf = (from ?? parent)!;
      addHeader(lin, { id: copyOf, created: null, root: null });
      lin.origin = copyOf;
      st.last = null;
    }
  };

  const useModel = (model: string) => {
    st.model = model;
    // Responses before the first model-naming record take the next one's model.
    for (const e of noModel.splice(0)) e.model = model;
    if (pending && pending.model === null) pending.model = model;
  };

  const onTurnContext = (p: any, copied: boolean) => {
    if (!p || typeof p !== 'object') return;
    const model = str(p.model);
    const cwd = str(p.cwd);
    if (copied && st.subagent && cwd) st.parentCwd = cwd;
    if (model) useModel(model);
    if (cwd) {
      st.cwd = cwd;
      for (const e of noProject.splice(0)) e.project = projectNow(cwd);
    }
  };

  /** thread_settings_applied: the thread's model and service tier from here on. */
  const onSettings = (p: any) => {
    const s = p.thread_settings;
    if (!s || typeof s !== 'object') return;
    const model = str(s.model);
    if (model) useModel(model);
    // "fast" is the legacy spelling of priority processing (ccusage#996); the
    // response's own service_tier echo is not read (it reports default/auto).
    st.tier = s.service_tier === 'priority' || s.service_tier === 'fast' ? 'priority' : null;
  };

  const onTokenCount = (p: any, line: number, rawTs: number | null, at: SourceLocation) => {
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
    // The model the event names (newer builds) is this response's.
    const model = str(info.model) ?? st.model;
    const ar = st.afterRecord;
    st.afterRecord = null;
    if (ar && (ar.c === total.total || (ar.base !== null && total.total - ar.base === ar.usage))) {
      if (st.last === null || total.total > st.last.total) st.last = total;
      remember(total.total);
      sink.skip('token_count already counted by its token_usage_record', at);
      return;
    }
    const lu = typeof info === 'object' ? readTokens(info.last_token_usage) : null;
    const last = lu && !lu.invalid.length && lu.tokens.total > 0 && lu.tokens.total <= total.total ? lu.tokens : null;
    if (st.last === null) {
      // The total before this one is unknown (history_base; a copy that
      // starts in its thread's last turns): this response is its
      // last_token_usage, and the total before it total − last.
      flushPending();
      pending = pend(total, last, line, usageTime(rawTs, at), model);
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
      if (!last) {
        sink.skip('cumulative total restarted without a usable last_token_usage', at);
        return;
      }
      sink.count('cumulative total restarts');
      pending = { ...pend(total, last, line, usageTime(rawTs, at), model), rule: 'Totals that go down' };
      return;
    }
    if (st.last.total > 0 && last && sameTokens(last, total)) {
      // The thread total equals this one response: a counter that started
      // again from 0 (above the old total, so it did not show as a drop).
      st.epoch++;
      sink.count('cumulative total restarts');
      pending = { ...pend(total, total, line, usageTime(rawTs, at), model), rule: 'Totals that go down' };
      st.last = total;
      remember(total.total);
      return;
    }
    const { tokens: delta, clamped } = minus(total, st.last);
    if (clamped) sink.warn('cumulative total went down in some field(s); those count as 0 for this response', at);
    pending = pend(total, delta, line, usageTime(rawTs, at), model);
    st.last = total;
    remember(total.total);
  };

  const onUsageRecord = (p: any, line: number, rawTs: number | null, at: SourceLocation) => {
    const u = readTokens(p.usage);
    if (!u) {
      const notObject = p.usage === undefined ? null : notAnObject(p.usage);
      sink.warn(notObject ? `token_usage_record usage is ${notObject}, not an object; not counted` : 'token_usage_record without usage ignored', at);
      return;
    }
    if (u.invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${u.invalid.join(', ')}`, at);
    const cr = readTokens(p.thread_token_usage);
    const thread = cr && !cr.invalid.length ? cr.tokens : null;
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
    const lastTc = st.lastTc;
    st.lastTc = null;
    const ts = usageTime(rawTs, at);
    const pd = pending as Pending | null;
    const keyOwner = lin.origin ?? st.threadId;
    if (pd && ((thread && thread.total === pd.total.total && (!pd.delta || pd.delta.total === usage.total)) || (!thread && pd.delta && pd.delta.total === usage.total))) {
      // Its token_count came first: the record replaces that delta.
      pending = null;
      st.afterRecord = null;
      sink.skip('token_count already counted by its token_usage_record', { file, line: pd.line });
    } else if (thread && st.last !== null && thread.total === st.last.total && usage.total > 0 && rid && !(lastTc?.c === thread.total && lastTc.usage === usage.total)) {
      // A request the thread total never took in (the auto-compaction
      // request, openai/codex#47003): its own response, keyed by its id so it
      // never shares the key of the response before it.
      flushPending();
      sink.count('requests outside the thread total (auto-compaction)');
      emit(usage, { ...pend(thread, null, line, ts, st.model), key: `codex:${keyOwner}:resp:${rid}` }, 'record', 'Auto-compaction request');
      return;
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
    const key = thread ? keyAt(thread.total) : rid ? `codex:${keyOwner}:resp:${rid}` : `codex:${keyOwner}:${lin.origin !== null ? '-' : rollout}:line:${line}`;
    emit(usage, { ...pend(thread ?? usage, null, line, ts, st.model), key }, 'record');
  };

  let parsedLines = 0;
  const handle = (rec: any, line: number) => {
    parsedLines++;
    const at = { file, line };
    const ts = parseTimestamp(rec.timestamp);
    const p = rec.payload;
    if (rec.type === 'session_meta') {
      if (line !== 1 && lin.origin !== null && !lin.done && ts !== null) classify(rec.ordinal, ts);
      onSessionMeta(p, line, ts, at);
      if (ts !== null) st.lastTs = ts;
      return;
    }
    if (!p || typeof p !== 'object') return;
    let kind: 'turn_context' | 'token_count' | 'record' | 'task_started' | 'rollback' | 'settings' | null = null;
    if (rec.type === 'turn_context') kind = 'turn_context';
    else if (rec.type === 'token_usage_record') kind = 'record';
    else if (rec.type === 'event_msg') {
      if (p.type === 'token_count') kind = 'token_count';
      else if (p.type === 'task_started' || p.type === 'turn_started') kind = 'task_started';
      else if (p.type === 'thread_rolled_back') kind = 'rollback';
      else if (p.type === 'thread_settings_applied') kind = 'settings';
    }
    // A turn's start tells whose records follow (lineage.ts), before this one is classified.
    if (kind === 'task_started') onTurn(p.turn_id, p.started_at);
    else if (kind === 'turn_context' || kind === 'record') onTurn(p.turn_id, null);
    // A unit whose line also held a marker string (e.g. a tool call whose arguments mention token_count).
    const unit = unitKindOf(rec.type, p.type, p.item && typeof p.item === 'object' ? p.item.type : null);
    if (unit) countUnit(unit, ts, typeof rec.ordinal === 'number' ? rec.ordinal : null, line);
    else flushTools(); // a usage line (or other parsed record) ends the response's calls
    if (kind === null) return; // a marker string inside some other record
    const copied = classify(rec.ordinal, ts) !== null;
    switch (kind) {
      case 'turn_context':
        onTurnContext(p, copied);
        break;
      case 'task_started': {
        const w = posInt(p.model_context_window);
        if (w !== null) st.contextWindow = w;
        break;
      }
      case 'settings':
        onSettings(p);
        break;
      case 'rollback':
        // Rolled-back turns leave the model's context, not the bill.
        if (!copied) sink.count('thread_rolled_back (spend kept)');
        break;
      case 'token_count':
        if (!copied && ts !== null) limits.observe(p.rate_limits, ts, line, st.threadId);
        onTokenCount(p, line, ts, at);
        break;
      case 'record':
        onUsageRecord(p, line, ts, at);
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
