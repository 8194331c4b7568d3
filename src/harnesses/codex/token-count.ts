// event_msg token_count: only the thread's cumulative total. A response's
// usage is the difference from the previous real total (README "What
// counts", "Totals that go down", "Never both"). The delta is kept pending:
// the token_usage_record of the same response may follow and replace it.
import type { SourceLocation } from '../../core/types.js';
import type { RolloutReader } from './reader.js';
import type { TokenCountInfo } from './records.js';
import { RULE } from './rules.js';
import { minus, sameTokens } from './usage.js';

export function onTokenCount(r: RolloutReader, info: TokenCountInfo, line: number, rawTs: number | null): void {
  const { st, sink } = r;
  const at: SourceLocation = { file: r.file, line };
  switch (info.kind) {
    case 'rate-limits-only':
      sink.skip('token_count without info (rate-limit update only)', at);
      return;
    case 'not-an-object':
      sink.warn(`token_count ${info.field} is ${info.is}, not an object; not counted`, at);
      return;
    case 'no-total':
      sink.skip('token_count without total_token_usage', at);
      return;
    case 'invalid-total':
      sink.warn(`cumulative total with invalid field(s) ignored: ${info.fields.join(', ')}`, at);
      return;
    case 'total':
      break;
    default:
      info satisfies never;
  }
  const { total, last } = info;
  const window = info.contextWindow ?? st.contextWindow;
  if (window !== null && total.reportedTotal === window) {
    // After a context-window overflow Codex fills the total up to the
    // window: not provider usage. The next real event's delta is taken from
    // the last real total, which is left unchanged here.
    sink.skip('synthesized context-window-overflow total (not provider usage)', at);
    return;
  }
  const model = info.model ?? st.model;
  const ar = st.afterRecord;
  st.afterRecord = null;
  if (ar && (ar.c === total.total || (ar.base !== null && total.total - ar.base === ar.usage))) {
    if (st.last === null || total.total > st.last.total) st.last = total;
    r.remember(total.total);
    sink.skip('token_count already counted by its token_usage_record', at);
    return;
  }
  if (st.last === null) {
    // The total before this one is unknown (history_base; a copy that
    // starts in its thread's last turns): this response is its
    // last_token_usage, and the total before it total − last.
    r.flushPending();
    r.pending = r.pend(total, last, line, r.usageTime(rawTs, at), model);
    st.last = total;
    r.remember(total.total);
    return;
  }
  if (total.total === st.last.total) {
    // Events repeat the same total (e.g. with a rate-limit update): no new
    // usage. Summing last_token_usage instead would count every repeat.
    sink.skip('token_count repeating an unchanged total', at);
    return;
  }
  r.flushPending();
  if (total.total < st.last.total) {
    // The total went down: a rewind to an earlier state or a restarted
    // counter. Positions may be reused from here on: new key epoch.
    st.epoch++;
    const seen = st.recentTotals.includes(total.total);
    st.last = total;
    r.remember(total.total);
    if (seen) {
      sink.skip('cumulative total went back to an earlier value (no new usage)', at);
      return;
    }
    if (!last) {
      sink.skip('cumulative total restarted without a usable last_token_usage', at);
      return;
    }
    sink.count('cumulative total restarts');
    r.pending = { ...r.pend(total, last, line, r.usageTime(rawTs, at), model), rule: RULE.restart };
    return;
  }
  if (st.last.total > 0 && last && sameTokens(last, total)) {
    // The thread total equals this one response: a counter that started
    // again from 0 (above the old total, so it did not show as a drop).
    st.epoch++;
    sink.count('cumulative total restarts');
    r.pending = { ...r.pend(total, total, line, r.usageTime(rawTs, at), model), rule: RULE.restart };
    st.last = total;
    r.remember(total.total);
    return;
  }
  const { tokens: delta, clamped } = minus(total, st.last);
  if (clamped) sink.warn('cumulative total went down in some field(s); those count as 0 for this response', at);
  r.pending = r.pend(total, delta, line, r.usageTime(rawTs, at), model);
  st.last = total;
  r.remember(total.total);
}
