// Each Codex record handler on its own (src/harnesses/codex/: session-meta.ts,
// turn-records.ts, token-count.ts, usage-record.ts), given typed records and a
// reader over an in-memory sink: no file, no scanner. Expected figures are
// worked out by hand from the tokens given (uncached input = input − cached −
// cache write). The whole extractor is tested on real rollouts in
// codex-extract.test.ts and codex-lineage.test.ts.
import { describe, expect, it } from 'vitest';
import type { SessionFact, SourceLocation, UsageEvent } from '../../src/core/types.js';
import type { ExtractSink } from '../../src/harnesses/types.js';
import { RolloutReader } from '../../src/harnesses/codex/reader.js';
import { rolloutLine, type SessionMeta, type TokenCountInfo } from '../../src/harnesses/codex/records.js';
import { onSessionMeta } from '../../src/harnesses/codex/session-meta.js';
import { freshState } from '../../src/harnesses/codex/state.js';
import { onTokenCount } from '../../src/harnesses/codex/token-count.js';
import { onRollback, onTaskStarted, onThreadSettings, onTurnContext } from '../../src/harnesses/codex/turn-records.js';
import { onUsageRecord, type UsageRecord } from '../../src/harnesses/codex/usage-record.js';
import type { Tokens } from '../../src/harnesses/codex/usage.js';
import { uuidV7 } from '../../fixtures/codex/rollout.js';

const FILE = '/codex/rollout.jsonl';
const THREAD = '0199aaaa-0000-7000-8000-00000000c0de';
const PARENT = '0199aaaa-0000-7000-8000-00000000aaaa';
const T = Date.UTC(2026, 2, 1, 12);

interface Recorded {
  events: UsageEvent[];
  facts: SessionFact[];
  warnings: string[];
  skips: string[];
  counts: Record<string, number>;
}

function reader(rollout = '-') {
  const rec: Recorded = { events: [], facts: [], warnings: [], skips: [], counts: {} };
  const at = (l: SourceLocation) => `${l.line}`;
  const sink: ExtractSink = {
    event: (e) => void rec.events.push(e),
    sessionEstimate: () => {},
    context: () => {},
    unit: () => {},
    sessionFact: (f) => void rec.facts.push(f),
    warn: (m, l) => void rec.warnings.push(`${at(l)}: ${m}`),
    skip: (m, l) => void rec.skips.push(`${at(l)}: ${m}`),
    count: (name, n = 1) => void (rec.counts[name] = (rec.counts[name] ?? 0) + n),
  };
  const r = new RolloutReader(FILE, rollout, sink, freshState(THREAD));
  /** Ends the read: what the sink got. */
  const done = () => {
    r.flush();
    r.handOver();
    return rec;
  };
  return { r, rec, done };
}

/** A TokenUsage: input includes cached tokens; total = input + output. */
const tok = (input: number, cached: number, output: number, reasoning = 0): Tokens => ({
  input,
  cached,
  cacheWrite: 0,
  output,
  reasoning,
  total: input + output,
  reportedTotal: input + output,
});
const total = (
  t: Tokens,
  o: { last?: Tokens | null; window?: number | null; model?: string | null } = {},
): TokenCountInfo => ({
  kind: 'total',
  total: t,
  last: o.last ?? null,
  contextWindow: o.window ?? null,
  model: o.model ?? null,
});
const meta = (m: Partial<SessionMeta>): SessionMeta => ({
  id: null,
  root: null,
  created: null,
  cwd: null,
  provider: null,
  subagent: false,
  historyStart: null,
  parent: null,
  forkedFrom: null,
  historyBase: false,
  ...m,
});
const record = (o: Partial<UsageRecord>): UsageRecord => ({
  type: 'token_usage_record',
  turnId: undefined,
  usage: null,
  usageIs: null,
  thread: null,
  responseId: null,
  ...o,
});
const used = (t: Tokens) => ({ tokens: t, invalid: [] as string[] });
const figures = (e: UsageEvent) => [e.input_tokens, e.cache_read_tokens, e.output_tokens];

describe('records.ts: a parsed line read into its typed record', () => {
  it('session_meta: a sub-agent named only in source.subagent.thread_spawn, whatever its payload', () => {
    const l = rolloutLine({
      timestamp: '2026-03-01T12:00:00.000Z',
      type: 'session_meta',
      payload: { id: THREAD, source: { subagent: { thread_spawn: { parent_thread_id: PARENT } } } },
    });
    expect(l?.ts).toBe(T);
    expect(l?.record).toEqual({ type: 'session_meta', meta: meta({ id: THREAD, subagent: true, parent: PARENT }) });
    // A session_meta whose payload is not an object is still a session_meta (line 1 is then unreadable).
    expect(rolloutLine({ type: 'session_meta', payload: 'x' })?.record).toEqual({ type: 'session_meta', meta: null });
  });

  it('token_count: what is wrong with info is named; last_token_usage above the total is not used', () => {
    const info = (i: unknown) =>
      (
        rolloutLine({ type: 'event_msg', payload: { type: 'token_count', info: i } })?.record as {
          info: TokenCountInfo;
        }
      ).info;
    expect(info(null)).toEqual({ kind: 'rate-limits-only' });
    expect(info([1])).toEqual({ kind: 'not-an-object', field: 'info', is: 'a list' });
    expect(info({ total_token_usage: 'x' })).toEqual({
      kind: 'not-an-object',
      field: 'info.total_token_usage',
      is: 'a string',
    });
    expect(info({})).toEqual({ kind: 'no-total' });
    expect(info({ total_token_usage: { input_tokens: 'many' } })).toMatchObject({ kind: 'invalid-total' });
    const t = { input_tokens: 100, output_tokens: 10, total_tokens: 110 };
    expect(
      info({ total_token_usage: t, last_token_usage: { input_tokens: 500, output_tokens: 0 }, model: 'gpt-5' }),
    ).toMatchObject({ kind: 'total', last: null, model: 'gpt-5' });
  });

  it('a record type no rule reads has no record; a payload that is not an object, no line', () => {
    expect(rolloutLine({ type: 'response_item', payload: { type: 'function_call' } })).toMatchObject({
      record: null,
      unit: 'tool_call',
    });
    expect(rolloutLine({ type: 'event_msg', payload: null })).toBeNull();
  });
});

describe('session_meta (session-meta.ts)', () => {
  it('line 1: the thread, its project and provider; a sub-agent links its parent and belongs to the root', () => {
    const { r } = reader();
    onSessionMeta(
      r,
      meta({ id: THREAD, cwd: '/p', provider: 'openai', subagent: true, parent: PARENT, root: PARENT, created: T }),
      1,
      T + 5,
    );
    expect(r.st).toMatchObject({
      threadId: THREAD,
      metaCwd: '/p',
      provider: 'openai',
      subagent: true,
      root: PARENT,
      forkCreatedTs: T,
      metaSeen: true,
    });
    expect(r.lin.origin).toBeNull();
  });

  it('line 1 with forked_from_id: the records after it are the parent’s copy, from an unknown total', () => {
    const { r } = reader();
    onSessionMeta(r, meta({ id: THREAD, forkedFrom: PARENT }), 1, T);
    expect(r.lin.origin).toBe(PARENT);
    expect(r.st.last).toBeNull();
    expect(r.st.forkCreatedTs).toBe(T); // no payload timestamp: the line's
  });

  it('line 1 with history_base: totals continue an unknown inherited prefix; nothing is a copy', () => {
    const { r } = reader();
    onSessionMeta(r, meta({ id: THREAD, historyBase: true, forkedFrom: PARENT }), 1, T);
    expect(r.st.last).toBeNull();
    expect(r.lin.origin).toBeNull();
  });

  it('a copied header starts that thread’s records at 0; the file’s own header again ends the copy', () => {
    const { r, rec } = reader();
    onSessionMeta(r, meta({ id: THREAD }), 1, T);
    onSessionMeta(r, meta({ id: PARENT, created: T - 86_400_000, root: PARENT }), 2, T);
    expect(r.lin.origin).toBe(PARENT);
    expect(r.st.last?.total).toBe(0);
    expect(r.lin.headers).toEqual([{ id: PARENT, created: T - 86_400_000, root: PARENT, seen: true }]);
    onSessionMeta(r, meta({ id: THREAD }), 9, T);
    expect(r.lin).toMatchObject({ origin: null, done: true });
    expect(rec.counts["copy ended by the fork's own session_meta written again after the copy"]).toBe(1);
    expect(rec.skips).toEqual([
      '2: session_meta copied from another rollout (only the first line describes the file)',
      '9: session_meta copied from another rollout (only the first line describes the file)',
    ]);
  });
});

describe('session_meta: copied headers of the thread id alone (lineage.ts)', () => {
  it('the turns of a copy go to the newest thread created before them, its creation read from its UUIDv7 id', () => {
    const DAY = 86_400_000;
    const root = uuidV7(T - 2 * DAY, 1);
    const sub = uuidV7(T - DAY, 2);
    const { r, rec } = reader();
    onSessionMeta(r, meta({ id: THREAD, forkedFrom: sub, created: T }), 1, T);
    onSessionMeta(r, meta({ id: sub }), 2, T);
    onSessionMeta(r, meta({ id: root }), 3, T);
    expect(r.lin.origin).toBe(root);
    r.onTurn(uuidV7(T - 2 * DAY + 60_000, 9), null); // the root's turn
    expect(r.lin.origin).toBe(root);
    r.onTurn(uuidV7(T - DAY + 60_000, 9), null); // the sub-agent's own turn, copied
    expect(r.lin.origin).toBe(sub);
    r.onTurn(uuidV7(T + 60_000, 9), null); // the file's own
    expect(r.lin).toMatchObject({ origin: null, done: true });
    expect(rec.counts["copy ended by the fork's own first turn (turn_id time)"]).toBe(1);
  });

  it('a header of the id alone seen again goes on from where that thread was, not from 0', () => {
    const { r } = reader();
    onSessionMeta(r, meta({ id: THREAD }), 1, T);
    onSessionMeta(r, meta({ id: PARENT }), 2, T);
    onTokenCount(r, total(tok(1000, 0, 100)), 3, T);
    onSessionMeta(r, meta({ id: PARENT }), 4, T);
    expect(r.st.last?.total).toBe(1100);
  });
});

describe('turn_context, task_started, thread_settings_applied, thread_rolled_back (turn-records.ts)', () => {
  it('turn_context: a response before the first model and cwd takes them', () => {
    const { r, done } = reader();
    onSessionMeta(r, meta({ id: THREAD }), 1, T);
    onTokenCount(r, total(tok(1000, 200, 100)), 2, T + 1);
    onTokenCount(r, total(tok(2000, 200, 200)), 3, T + 2); // emits the first (no record of it followed)
    onTurnContext(r, { model: 'gpt-5', cwd: '/work' }, false);
    const [e] = done().events;
    expect([e!.model, e!.project]).toEqual(['gpt-5', '/work']);
  });

  it('turn_context: a sub-agent’s inherited one names its parent’s project, which its own responses go to', () => {
    const { r, done } = reader();
    onSessionMeta(r, meta({ id: THREAD, subagent: true, parent: PARENT, cwd: '/child' }), 1, T);
    onTurnContext(r, { model: 'gpt-5', cwd: '/parent' }, true);
    onTurnContext(r, { model: 'o4-mini', cwd: '/child/worktree' }, false);
    onTokenCount(r, total(tok(1000, 0, 10)), 3, T + 1);
    const [e] = done().events;
    expect([e!.model, e!.project, e!.session_id]).toEqual(['o4-mini', '/parent', PARENT]);
  });

  it('task_started sets the context window an overflow total is recognised by', () => {
    const { r, rec } = reader();
    onTaskStarted(r, { contextWindow: 1100 });
    onTaskStarted(r, { contextWindow: null });
    onTokenCount(r, total(tok(1000, 0, 100)), 2, T);
    expect(rec.skips).toEqual(['2: synthesized context-window-overflow total (not provider usage)']);
  });

  it('thread_settings_applied: priority (or its legacy "fast") marks the responses after it until another tier', () => {
    const { r, done } = reader();
    onThreadSettings(r, { model: 'gpt-5', priority: true });
    onTokenCount(r, total(tok(100, 0, 10)), 2, T);
    onThreadSettings(r, { model: null, priority: false });
    onTokenCount(r, total(tok(300, 0, 20)), 3, T + 1);
    onThreadSettings(r, null);
    const events = done().events;
    expect(events.map((e) => [e.model, e.billing_kind ?? null])).toEqual([
      ['gpt-5', 'priority'],
      ['gpt-5', null],
    ]);
  });

  it('thread_rolled_back keeps the spend, and is counted only when the file’s own', () => {
    const { r, rec } = reader();
    onRollback(r, true);
    onRollback(r, false);
    expect(rec.counts['thread_rolled_back (spend kept)']).toBe(1);
  });
});

describe('token_count (token-count.ts)', () => {
  it('each response is the delta of two real totals; a repeat adds nothing', () => {
    const { r, done } = reader();
    onTokenCount(r, total(tok(1000, 200, 100)), 2, T);
    onTokenCount(r, total(tok(1000, 200, 100)), 3, T + 1);
    onTokenCount(r, total(tok(3000, 1700, 150)), 4, T + 2);
    const rec = done();
    // 1000 − 200 cached = 800 uncached; then (3000 − 1000) − (1700 − 200) = 500 uncached, 1500 cached, 50 out.
    expect(rec.events.map(figures)).toEqual([
      [800, 200, 100],
      [500, 1500, 50],
    ]);
    expect(rec.events.map((e) => [e.dedupe_key, e.dedupe_rank, e.rule])).toEqual([
      [`codex:${THREAD}:-:@1100`, 1, 'event_msg token_count'],
      [`codex:${THREAD}:-:@3150`, 1, 'event_msg token_count'],
    ]);
    expect(rec.skips).toEqual(['3: token_count repeating an unchanged total']);
  });

  it('what is not a total is named: a rate-limit update, a total that is not an object, invalid fields', () => {
    const { r, done } = reader();
    onTokenCount(r, { kind: 'rate-limits-only' }, 2, T);
    onTokenCount(r, { kind: 'not-an-object', field: 'info', is: 'a string' }, 3, T);
    onTokenCount(r, { kind: 'no-total' }, 4, T);
    onTokenCount(r, { kind: 'invalid-total', fields: ['input_tokens'] }, 5, T);
    const rec = done();
    expect(rec.events).toEqual([]);
    expect(rec.skips).toEqual([
      '2: token_count without info (rate-limit update only)',
      '4: token_count without total_token_usage',
    ]);
    expect(rec.warnings).toEqual([
      '3: token_count info is a string, not an object; not counted',
      '5: cumulative total with invalid field(s) ignored: input_tokens',
    ]);
  });

  it('a total that goes back to a position seen is a rewind; one that restarts counts its last_token_usage, under a new epoch', () => {
    const { r, done } = reader();
    onTokenCount(r, total(tok(1000, 0, 100)), 2, T);
    onTokenCount(r, total(tok(2000, 0, 200)), 3, T + 1);
    onTokenCount(r, total(tok(1000, 0, 100)), 4, T + 2); // back to 1100, seen: nothing new
    onTokenCount(r, total(tok(400, 100, 40), { last: tok(400, 100, 40) }), 5, T + 3); // restarted below
    onTokenCount(r, total(tok(300, 0, 30)), 6, T + 4); // down again, no last_token_usage
    const rec = done();
    expect(rec.events.map((e) => [e.dedupe_key, e.rule, ...figures(e)])).toEqual([
      [`codex:${THREAD}:-:@1100`, 'event_msg token_count', 1000, 0, 100],
      [`codex:${THREAD}:-:@2200`, 'event_msg token_count', 1000, 0, 100],
      [`codex:${THREAD}:-:e2@440`, 'Totals that go down', 300, 100, 40],
    ]);
    expect(rec.skips).toEqual([
      '4: cumulative total went back to an earlier value (no new usage)',
      '6: cumulative total restarted without a usable last_token_usage',
    ]);
  });

  it('an unknown starting total (history_base): the first response is its last_token_usage', () => {
    const { r, done } = reader();
    r.st.last = null;
    onTokenCount(r, total(tok(5000, 4000, 300), { last: tok(1000, 900, 50) }), 2, T);
    expect(done().events.map(figures)).toEqual([[100, 900, 50]]);
  });

  it('a line without a timestamp is dated by the previous line, or skipped when there is none', () => {
    const { r, done } = reader();
    onTokenCount(r, total(tok(100, 0, 10)), 2, null);
    r.st.lastTs = T;
    onTokenCount(r, total(tok(300, 0, 20)), 3, null);
    const rec = done();
    expect(rec.events.map((e) => [e.source_line, e.ts])).toEqual([[3, T]]);
    expect(rec.warnings).toEqual([
      '2: response without a usable timestamp skipped',
      '3: response without a usable timestamp dated by the previous line',
    ]);
  });
});

describe('token_usage_record (usage-record.ts)', () => {
  it('the record of a token_count read just before it replaces that delta, under the same key', () => {
    const { r, done } = reader();
    onTokenCount(r, total(tok(1000, 200, 100)), 2, T);
    onUsageRecord(
      r,
      record({ usage: used(tok(1000, 200, 100)), thread: tok(1000, 200, 100), responseId: 'resp_1' }),
      3,
      T,
    );
    const rec = done();
    expect(rec.events.map((e) => [e.dedupe_key, e.dedupe_rank, e.rule, e.source_line])).toEqual([
      [`codex:${THREAD}:-:@1100`, 0, 'token_usage_record', 3],
    ]);
    expect(rec.skips).toEqual(['2: token_count already counted by its token_usage_record']);
  });

  it('a record before its token_count: the token_count adds nothing', () => {
    const { r, done } = reader();
    onUsageRecord(
      r,
      record({ usage: used(tok(1000, 200, 100)), thread: tok(1000, 200, 100), responseId: 'resp_1' }),
      2,
      T,
    );
    onTokenCount(r, total(tok(1000, 200, 100)), 3, T);
    const rec = done();
    expect(rec.events).toHaveLength(1);
    expect(rec.skips).toEqual(['3: token_count already counted by its token_usage_record']);
  });

  it('the same response id again, or a thread total this file already passed, is a duplicate', () => {
    const { r, done } = reader();
    onUsageRecord(r, record({ usage: used(tok(1000, 0, 100)), thread: tok(1000, 0, 100), responseId: 'a' }), 2, T);
    onUsageRecord(r, record({ usage: used(tok(500, 0, 50)), thread: tok(1500, 0, 150), responseId: 'b' }), 3, T);
    onUsageRecord(r, record({ usage: used(tok(500, 0, 50)), thread: tok(1500, 0, 150), responseId: 'b' }), 4, T);
    onUsageRecord(r, record({ usage: used(tok(1000, 0, 100)), thread: tok(1000, 0, 100), responseId: 'a2' }), 5, T);
    const rec = done();
    expect(rec.events.map((e) => e.source_line)).toEqual([2, 3]);
    expect(rec.skips).toEqual([
      '4: duplicate token_usage_record (same response_id)',
      '5: duplicate token_usage_record (same response_id)',
    ]);
  });

  it('an auto-compaction request (the thread total does not move) is its own response, keyed by its id', () => {
    const { r, done } = reader();
    onUsageRecord(r, record({ usage: used(tok(1000, 0, 100)), thread: tok(1000, 0, 100), responseId: 'a' }), 2, T);
    onTokenCount(r, total(tok(1000, 0, 100)), 3, T);
    onUsageRecord(
      r,
      record({ usage: used(tok(800, 0, 80)), thread: tok(1000, 0, 100), responseId: 'compact' }),
      4,
      T + 1,
    );
    const rec = done();
    expect(rec.events.map((e) => [e.dedupe_key, e.rule])).toEqual([
      [`codex:${THREAD}:-:@1100`, 'token_usage_record'],
      [`codex:${THREAD}:resp:compact`, 'Auto-compaction request'],
    ]);
    expect(rec.counts['requests outside the thread total (auto-compaction)']).toBe(1);
  });

  it('without a valid thread total: keyed by response id, else by line (in the rollout’s key space)', () => {
    const { r, done } = reader('rb');
    onUsageRecord(r, record({ usage: used(tok(100, 0, 10)), responseId: 'x' }), 2, T);
    onUsageRecord(r, record({ usage: used(tok(100, 0, 10)) }), 3, T);
    expect(done().events.map((e) => e.dedupe_key)).toEqual([`codex:${THREAD}:resp:x`, `codex:${THREAD}:rb:line:3`]);
  });

  it('a record without usage is named; invalid fields count as 0 with a warning', () => {
    const { r, done } = reader();
    onUsageRecord(r, record({}), 2, T);
    onUsageRecord(r, record({ usageIs: 'null' }), 3, T);
    onUsageRecord(
      r,
      record({ usage: { tokens: tok(100, 0, 10), invalid: ['cached_input_tokens'] }, thread: tok(100, 0, 10) }),
      4,
      T,
    );
    const rec = done();
    expect(rec.events).toHaveLength(1);
    expect(rec.warnings).toEqual([
      '2: token_usage_record without usage ignored',
      '3: token_usage_record usage is null, not an object; not counted',
      '4: invalid usage field(s) counted as 0: cached_input_tokens',
    ]);
  });

  it('a copied record is keyed by the thread that made it, as that thread’s own file keys it, and ranked a copy', () => {
    const { r, done } = reader('rb');
    onSessionMeta(r, meta({ id: THREAD, forkedFrom: PARENT, created: T }), 1, T);
    onSessionMeta(r, meta({ id: PARENT, created: T - 86_400_000 }), 2, T);
    r.classify(null, T - 86_400_000 + 60_000); // a line dated by the original: the copy kept its timestamps
    onUsageRecord(
      r,
      record({ usage: used(tok(1000, 0, 100)), thread: tok(1000, 0, 100), responseId: 'p1' }),
      3,
      T - 86_400_000 + 60_000,
    );
    const [e] = done().events;
    expect([e!.dedupe_key, e!.dedupe_rank, e!.rule, e!.session_id]).toEqual([
      `codex:${PARENT}:-:@1100`,
      2,
      'Lineage: copied history',
      PARENT,
    ]);
  });
});
