// An Amp thread document → usage events (README.md beside this file has
// every rule and its evidence). A thread is one JSON object,
// `{v, id, created, title, messages[], usageLedger?, env?}`, rewritten whole:
// read whole each time it changes. Per inference: the ledger's events, with
// the cache split from the assistant message each event points at, then the
// assistant messages' usage that no event accounts for.
import { parseTimestamp, readTokenFields } from '../../core/numbers.js';
import type { UsageEvent } from '../../core/types.js';
import { readJsonFile } from '../../io/json-file.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { RULE } from './rules.js';

const MESSAGE_FIELDS = {
  input: 'inputTokens',
  output: 'outputTokens',
  cacheWrite: 'cacheCreationInputTokens',
  cacheRead: 'cacheReadInputTokens',
} as const;
const LEDGER_FIELDS = { input: 'tokens.input', output: 'tokens.output' } as const;
const CACHE_FIELDS = { cacheWrite: 'cacheCreationInputTokens', cacheRead: 'cacheReadInputTokens' } as const;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

interface Counts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * OpenAI models: Amp writes inputTokens 0 and the whole uncached prompt as
 * cacheCreationInputTokens (agentsview#1365): it is input, not a cache write.
 */
function normalize(model: string | null, c: Counts): Counts {
  if (model !== null && /^gpt-/i.test(model)) return { ...c, input: c.input + c.cacheWrite, cacheWrite: 0 };
  return c;
}

export async function extractAmp(
  source: SourceRef,
  sink: ExtractSink,
  _opts: ExtractOptions,
): Promise<ResumePoint | null> {
  const file = source.path;
  const at = { file };
  const doc = readJsonFile(file, sink);
  if (doc === null) return null;
  if (!isObj(doc)) {
    sink.warn('not a thread (not a JSON object); nothing read from it', at);
    return null;
  }
  const thread = str(doc.id) ?? source.meta?.threadId ?? 'unknown';
  const created = parseTimestamp(doc.created);
  const title = str(doc.title);
  if (title)
    sink.sessionFact({ harness: 'amp', session_id: thread, title, title_rank: 0, parent_session_id: null, seq: 0 });
  const tree = Array.isArray(doc.env?.initial?.trees) ? doc.env.initial.trees[0] : null;
  const uri = str(tree?.uri);
  const project = uri?.startsWith('file://') ? decodeURIComponent(uri.slice('file://'.length)) : null;

  const messages: Record<string, any>[] = Array.isArray(doc.messages) ? doc.messages.filter(isObj) : [];
  const assistants = messages.map((m, i) => ({ m, i })).filter(({ m }) => m.role === 'assistant' && isObj(m.usage));
  const events: unknown[] = Array.isArray(doc.usageLedger?.events) ? doc.usageLedger.events : [];
  if (events.length === 0 && assistants.length === 0) {
    // README "Stubs": current Amp keeps threads on its servers and leaves stubs here.
    sink.skip('thread without usage (a stub: current Amp keeps threads on its servers, not on disk)', at);
    return null;
  }
  const consumed = new Set<number>();
  const out: UsageEvent[] = [];
  const push = (
    key: string,
    model: string | null,
    ts: number | null,
    c: Counts,
    rule: [string, string],
    row: string,
  ) => {
    const when = ts ?? created;
    if (when === null) {
      sink.warn(`${rule[0]} without a usable timestamp (and a thread without created); not counted`, { file, row });
      return;
    }
    const n = normalize(model, c);
    out.push({
      harness: 'amp',
      session_id: thread,
      project,
      model,
      provider: null,
      ts: when,
      dedupe_key: key,
      dedupe_rank: 0,
      requests: 1,
      input_tokens: n.input,
      cache_read_tokens: n.cacheRead,
      cache_write_tokens: n.cacheWrite,
      cache_write_5m_tokens: null,
      cache_write_1h_tokens: null,
      output_tokens: n.output,
      reasoning_tokens: 0,
      recorded_cost_usd: null,
      source_file: file,
      source_line: null,
      rule: ts === null ? rule[1] : rule[0],
    });
  };
  const tokensOf = (
    obj: Record<string, unknown>,
    fields: Record<string, string>,
    row: string,
  ): Record<string, number> => {
    const { values, invalid } = readTokenFields(obj, fields);
    if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, { file, row });
    return values;
  };

  for (const [k, ev] of events.entries()) {
    const row = `usageLedger.events[${k}]`;
    if (!isObj(ev)) {
      sink.warn('ledger event is not an object; not counted', { file, row });
      continue;
    }
    const t = tokensOf(ev, LEDGER_FIELDS, row);
    // The cache split is on the assistant message the event ends at (toMessageId == messageId).
    const target =
      ev.toMessageId !== undefined
        ? assistants.find(({ m, i }) => !consumed.has(i) && m.messageId === ev.toMessageId)
        : undefined;
    let cache = { cacheRead: 0, cacheWrite: 0 };
    if (target) {
      consumed.add(target.i);
      cache = tokensOf(target.m.usage, CACHE_FIELDS, `messages[${target.i}].usage`) as typeof cache;
    }
    const c = { input: t.input!, output: t.output!, ...cache };
    if (c.input + c.output + c.cacheRead + c.cacheWrite === 0) {
      sink.skip('ledger event with no tokens', { file, row });
      continue;
    }
    push(
      `amp:${thread}:${str(ev.id) ?? `event${k}`}`,
      str(ev.model),
      parseTimestamp(ev.timestamp),
      c,
      [RULE.ledger, RULE.ledgerCreated],
      row,
    );
  }
  // A partial ledger (tokscale#453): message usage no event accounts for is counted on its own;
  // one whose model and counts equal an event's already counted is that event.
  const ledgerSigs = out.map((e) => `${e.model}|${e.input_tokens}|${e.output_tokens}`);
  for (const { m, i } of assistants) {
    if (consumed.has(i)) continue;
    const row = `messages[${i}].usage`;
    const t = tokensOf(m.usage, MESSAGE_FIELDS, row) as unknown as Counts;
    const model = str(m.usage.model);
    if (t.input + t.output + t.cacheRead + t.cacheWrite === 0) {
      sink.skip('assistant usage with no tokens', { file, row });
      continue;
    }
    const n = normalize(model, t);
    const sig = ledgerSigs.indexOf(`${model}|${n.input}|${n.output}`);
    if (sig >= 0) {
      ledgerSigs[sig] = '';
      sink.skip('assistant usage of a ledger event (counted there)', { file, row });
      continue;
    }
    push(
      `amp:${thread}:m${m.messageId ?? i}`,
      model,
      parseTimestamp(m.usage.timestamp),
      t,
      [RULE.message, RULE.messageCreated],
      row,
    );
  }
  for (const e of out) sink.event(e);
  // Prompts (README "Units of work"): a user message with text of its own (a tool result is not one),
  // at the time of the next assistant usage that answers it, else the thread's created time.
  for (const [i, m] of messages.entries()) {
    const parts = Array.isArray(m.content) ? m.content.filter(isObj) : [];
    if (m.role !== 'user' || !parts.some((p) => p.type === 'text') || parts.some((p) => p.type === 'tool_result'))
      continue;
    const next = messages
      .slice(i + 1)
      .find((n) => n.role === 'assistant' && isObj(n.usage) && parseTimestamp(n.usage.timestamp) !== null);
    const ts = (next ? parseTimestamp(next.usage.timestamp) : null) ?? created;
    if (ts !== null)
      sink.unit({
        harness: 'amp',
        session_id: thread,
        kind: 'prompt',
        dedupe_key: `amp:${thread}:u${m.messageId ?? i}`,
        dedupe_rank: 0,
        ts,
        count: 1,
      });
  }
  return null;
}
