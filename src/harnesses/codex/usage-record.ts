// token_usage_record: the exact usage of one response, and the thread total
// after it (README "What counts": token_usage_record, "Never both",
// auto-compaction request). Preferred to the token_count of the same
// response wherever present; both get the same key.
import type { SourceLocation } from '../../core/types.js';
import type { Pending, RolloutReader } from './reader.js';
import type { CodexRecord } from './records.js';
import { RULE } from './rules.js';
import { pushBounded, RECENT_RESPONSES } from './state.js';
import { plus } from './usage.js';

export type UsageRecord = Extract<CodexRecord, { type: 'token_usage_record' }>;

export function onUsageRecord(r: RolloutReader, rec: UsageRecord, line: number, rawTs: number | null): void {
  const { st, sink } = r;
  const at: SourceLocation = { file: r.file, line };
  const u = rec.usage;
  if (!u) {
    sink.warn(
      rec.usageIs
        ? `token_usage_record usage is ${rec.usageIs}, not an object; not counted`
        : 'token_usage_record without usage ignored',
      at,
    );
    return;
  }
  if (u.invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${u.invalid.join(', ')}`, at);
  const { thread, responseId: rid } = rec;
  const replayed =
    thread !== null && st.last !== null && thread.total < st.last.total && st.recentTotals.includes(thread.total);
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
  const ts = r.usageTime(rawTs, at);
  const pd = r.pending as Pending | null;
  const keyOwner = r.keyOwner();
  if (
    pd &&
    ((thread && thread.total === pd.total.total && (!pd.delta || pd.delta.total === usage.total)) ||
      (!thread && pd.delta && pd.delta.total === usage.total))
  ) {
    // Its token_count came first: the record replaces that delta.
    r.pending = null;
    st.afterRecord = null;
    sink.skip('token_count already counted by its token_usage_record', { file: r.file, line: pd.line });
  } else if (
    thread &&
    st.last !== null &&
    thread.total === st.last.total &&
    usage.total > 0 &&
    rid &&
    !(lastTc?.c === thread.total && lastTc.usage === usage.total)
  ) {
    // A request the thread total never took in (the auto-compaction
    // request, openai/codex#47003): its own response, keyed by its id so it
    // never shares the key of the response before it.
    r.flushPending();
    sink.count('requests outside the thread total (auto-compaction)');
    r.emit(
      usage,
      { ...r.pend(thread, null, line, ts, st.model), key: `codex:${keyOwner}:resp:${rid}` },
      'record',
      RULE.autoCompaction,
    );
    return;
  } else {
    r.flushPending();
    const base = st.last;
    if (thread) {
      if (base && thread.total < base.total) st.epoch++;
      st.last = thread;
    } else if (base) {
      st.last = plus(base, usage);
    }
    // Record before its token_count: remember it so that token_count adds nothing.
    st.afterRecord =
      !thread || !base || thread.total > base.total
        ? { base: base ? base.total : null, usage: usage.total, c: thread ? thread.total : null }
        : null;
  }
  if (thread) r.remember(thread.total);
  const key = thread
    ? r.keyAt(thread.total)
    : rid
      ? `codex:${keyOwner}:resp:${rid}`
      : `codex:${keyOwner}:${r.lin.origin !== null ? '-' : r.rollout}:line:${line}`;
  r.emit(usage, { ...r.pend(thread ?? usage, null, line, ts, st.model), key }, 'record');
}
