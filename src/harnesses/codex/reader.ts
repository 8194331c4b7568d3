// One rollout being read: the state the record handlers share (CodexState,
// carried across appends), the responses found so far, and the moves every
// handler makes — emitting a response (or keeping a token_count pending for
// its record), switching between the file's own records and a copied
// thread's (lineage.ts), and counting units of work.
import type { SourceLocation, UsageEvent, WorkUnitKind } from '../../core/types.js';
import type { ExtractSink } from '../types.js';
import { BURST_MS, freshLineage, OWN, ownerAt, turnTime, type LineageState } from './lineage.js';
import { RateLimitReader } from './rate-limits.js';
import { RULE } from './rules.js';
import { rememberTotal, type CodexState } from './state.js';
import { normalize, ZERO, type Tokens } from './usage.js';

/** A token_count delta not yet emitted: its token_usage_record may still follow. */
export interface Pending {
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

export class RolloutReader {
  readonly lin: LineageState;
  /** A token_count counted but not yet emitted (its record may follow). */
  pending: Pending | null = null;
  /** token_count.rate_limits: the plan's limit figures (rate-limits.ts), the file's own lines only. */
  readonly limits: RateLimitReader;
  private readonly out: UsageEvent[] = [];
  /** Responses before the first model-naming record (they take the next one's model). */
  private readonly noModel: UsageEvent[] = [];
  /** Responses before the first cwd. */
  private readonly noProject: UsageEvent[] = [];
  /** Tool calls between two other records (a response's calls, before its usage line): one row. */
  private tools: { line: number; ts: number; n: number } | null = null;

  constructor(
    readonly file: string,
    /** The rollout id, '-' for a thread's original file. */
    readonly rollout: string,
    readonly sink: ExtractSink,
    readonly st: CodexState,
  ) {
    this.lin = st.lineage ??= freshLineage();
    this.limits = new RateLimitReader(file);
  }

  /**
   * The key of the response at cumulative position `total`: a copied response is keyed as its
   * own thread's file keys it (README "Lineage: copied history"), so the store keeps one whichever
   * file is read first; the file's own responses by this thread and rollout.
   */
  keyAt(total: number): string {
    const e = this.st.epoch ? `e${this.st.epoch}` : '';
    return this.lin.origin !== null
      ? `codex:${this.lin.origin}:-:${e}@${total}`
      : `codex:${this.st.threadId}:${this.rollout}:${e}@${total}`;
  }

  /** The thread whose key space a record read now is in. */
  keyOwner(): string {
    return this.lin.origin ?? this.st.threadId;
  }

  /**
   * Own responses belong to the session: a sub-agent's, to the root of its tree. Units of work stay
   * on the thread (linked to its parent by a session fact, as reports attribute them).
   */
  private ownSession(): string {
    return this.st.root ?? this.st.threadId;
  }

  private projectNow(cwd: string | null): string | null {
    return this.st.subagent ? (this.st.parentCwd ?? this.st.metaCwd) : (cwd ?? this.st.metaCwd);
  }

  /** A usage line's time: its own timestamp, else the previous line's (warned); null = unusable. */
  usageTime(ts: number | null, at: SourceLocation): number | null {
    if (ts !== null) return ts;
    if (this.st.lastTs === null) {
      this.sink.warn('response without a usable timestamp skipped', at);
      return null;
    }
    this.sink.warn('response without a usable timestamp dated by the previous line', at);
    return this.st.lastTs;
  }

  /** A response about to be emitted (or kept pending for its record) at the current state. */
  pend(total: Tokens, delta: Tokens | null, line: number, ts: number | null, model: string | null): Pending {
    return {
      total,
      delta,
      key: this.keyAt(total.total),
      line,
      ts,
      model,
      cwd: this.st.cwd,
      origin: this.lin.origin,
      tier: this.st.tier ?? null,
    };
  }

  remember(total: number): void {
    rememberTotal(this.st, total);
  }

  emit(t: Tokens, p: Omit<Pending, 'total' | 'delta'>, via: 'record' | 'token_count', rule?: string): void {
    const { st, lin, sink } = this;
    const at = { file: this.file, line: p.line };
    if (p.ts === null) return; // already warned by usageTime
    const n = normalize(t);
    if (n.inconsistent)
      sink.warn('input_tokens smaller than cached + cache-write tokens; uncached input counted as 0', at);
    const copy = p.origin;
    const header = copy !== null ? lin.headers.find((h) => h.id === copy) : undefined;
    const ev: UsageEvent = {
      harness: 'codex',
      // A copy stands for its thread's response (kept only when that thread's file is not read).
      session_id: copy === null ? this.ownSession() : (header?.root ?? (st.subagent ? this.ownSession() : copy)),
      project: copy === null ? this.projectNow(p.cwd) : (p.cwd ?? st.metaCwd),
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
      source_file: this.file,
      source_line: p.line,
      rule: copy !== null ? RULE.copied : (rule ?? (via === 'record' ? RULE.record : RULE.tokenCount)),
    };
    // Priority processing (thread_settings_applied.service_tier) is a billing category of its own (src/pricing).
    if (p.tier === 'priority') ev.billing_kind = 'priority';
    if (ev.model === null) this.noModel.push(ev);
    if (ev.project === null) this.noProject.push(ev);
    if (copy !== null) {
      sink.count(`responses copied from thread ${copy}`);
    } else {
      lin.done = true; // own responses have begun: no copy block can start after them
      sink.count('own responses');
      sink.count(via === 'record' ? 'responses from token_usage_record' : 'responses from token_count totals');
    }
    this.out.push(ev);
  }

  /** Emits the pending token_count: no record of it followed. */
  flushPending(): void {
    if (!this.pending) return;
    const p = this.pending;
    this.pending = null;
    if (!p.delta) {
      this.sink.skip(
        'first token_count after an unknown total without a usable last_token_usage: taken as the starting total',
        { file: this.file, line: p.line },
      );
      return;
    }
    if (p.delta.total === 0) {
      // Only possible when some fields went down (clamped to 0, warned): nothing billed is left.
      this.sink.skip('token_count adding no tokens after its fields went down', { file: this.file, line: p.line });
      return;
    }
    this.st.lastTc = { c: p.total.total, usage: p.delta.total };
    this.emit(p.delta, p, 'token_count', p.rule);
  }

  /** The model from here on; responses before the first model-naming record take it. */
  useModel(model: string): void {
    this.st.model = model;
    for (const e of this.noModel.splice(0)) e.model = model;
    if (this.pending && this.pending.model === null) this.pending.model = model;
  }

  /** The cwd from here on; responses before the first cwd take it. */
  useCwd(cwd: string): void {
    this.st.cwd = cwd;
    for (const e of this.noProject.splice(0)) e.project = this.projectNow(cwd);
  }

  /**
   * Starts reading the records of `origin` (null: the file's own). Totals go
   * on from the last one (`fresh`: a copied session_meta, where that
   * thread's own file starts at 0); positions restart their epochs, as in
   * that thread's file.
   */
  switchTo(origin: string | null, fresh: boolean): void {
    this.flushPending();
    if (fresh) this.st.last = { ...ZERO };
    this.st.epoch = 0;
    this.st.recentTotals = [];
    this.st.afterRecord = null;
    this.lin.origin = origin;
  }

  /** The copy block is over: what follows is the file's own (`reason` shown in `tx-usage sources`). */
  endCopy(reason: string): void {
    if (this.lin.done || this.lin.origin === null) return;
    this.switchTo(null, false);
    this.lin.done = true;
    this.sink.count(`copy ended by ${reason}`);
  }

  /** A turn began (turn_id / started_at): its thread is the newest of the lineage that existed then. */
  onTurn(turnId: unknown, startedAt: unknown): void {
    const { st, lin } = this;
    if (st.subagentStart !== null || lin.done || lin.origin === null) return;
    const t = turnTime(turnId, startedAt);
    if (t === null) return;
    const o = ownerAt(lin, st.forkCreatedTs, t);
    if (o === OWN)
      this.endCopy(
        typeof turnId === 'string' && turnTime(turnId, null) !== null
          ? "the fork's own first turn (turn_id time)"
          : "the fork's own first turn (task_started.started_at)",
      );
    else if (o !== null && o !== lin.origin) this.switchTo(o, false);
  }

  /** Whose record this is: the thread it was copied from, or null for the file's own. */
  classify(ordinal: number | null, ts: number | null): string | null {
    const { st, lin } = this;
    // The first dated line of a copy tells how it is dated: well before the
    // fork's creation = original timestamps (line times then date it too).
    if (ts !== null && lin.origin !== null && !lin.done)
      lin.stamps ??= st.forkCreatedTs !== null && ts < st.forkCreatedTs - BURST_MS ? 'original' : 'restamped';
    if (st.subagentStart !== null) {
      if (ordinal === null) return null;
      if (ordinal < st.subagentStart) return lin.origin;
      this.endCopy('the ordinal reaching subagent_history_start_ordinal');
      return null;
    }
    if (lin.done || lin.origin === null) return null;
    // A copy that kept its original timestamps: each line is dated by them.
    if (ts !== null && lin.stamps === 'original') {
      const o = ownerAt(lin, st.forkCreatedTs, ts);
      if (o === OWN) {
        this.endCopy('the first record dated at or after the fork was created (original timestamps)');
        return null;
      }
      if (o !== null && o !== lin.origin) this.switchTo(o, false);
    }
    return lin.origin;
  }

  /** The tool calls gathered since the last other record, as one row keyed by the first call's line. */
  flushTools(): void {
    if (!this.tools) return;
    const { threadId } = this.st;
    this.sink.unit({
      harness: 'codex',
      session_id: threadId,
      kind: 'tool_call',
      dedupe_key: `codex:${threadId}:${this.rollout}:L${this.tools.line}`,
      dedupe_rank: 0,
      ts: this.tools.ts,
      count: this.tools.n,
    });
    this.tools = null;
  }

  /**
   * A unit of work (units.ts) at `line`: none for copied records; a
   * sub-agent thread's user messages are its parent's tasks. Keyed by thread,
   * rollout and line, which compression and archiving keep.
   */
  countUnit(kind: WorkUnitKind | 'user', ts: number | null, ordinal: number | null, line: number): void {
    const { st } = this;
    if (this.classify(ordinal, ts) !== null) return;
    const when = ts ?? st.lastTs;
    if (ts !== null) st.lastTs = ts;
    if (when === null) return;
    if (kind === 'tool_call') {
      if (this.tools) this.tools.n++;
      else this.tools = { line, ts: when, n: 1 };
      return;
    }
    this.flushTools();
    const k: WorkUnitKind = kind === 'user' ? (st.subagent ? 'subagent_task' : 'prompt') : kind;
    this.sink.unit({
      harness: 'codex',
      session_id: st.threadId,
      kind: k,
      dedupe_key: `codex:${st.threadId}:${this.rollout}:L${line}`,
      dedupe_rank: 0,
      ts: when,
      count: 1,
    });
  }

  /** The file is read to its end: the pending token_count and tool calls go out. */
  flush(): void {
    this.flushPending();
    this.flushTools();
  }

  /** Hands the sink every response (their model and project now known) and rate-limit snapshot. */
  handOver(): void {
    const { sink } = this;
    for (const e of this.out) sink.event(e);
    if (sink.rateLimit) this.limits.flush((r) => sink.rateLimit!(r), this.st.threadId);
  }
}
