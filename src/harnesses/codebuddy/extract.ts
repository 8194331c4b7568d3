// A CodeBuddy Code transcript (JSONL) → usage events: one per model call, the
// `function_call` or completed assistant `message` line that carries its
// usage (README.md beside this file has every rule and its evidence). Lines
// are appended; a read resumes where the last one stopped.
import { basename } from 'node:path';
import { checkTokenCount, parseTimestamp } from '../../core/numbers.js';
import { scanJsonlFile } from '../../io/jsonl.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { MARKERS } from './markers.js';
import { RULE } from './rules.js';

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** A usage copy's figures, each the first of its spellings present. */
interface Figures {
  /** Input with both cache buckets inside it (OpenAI semantics under Anthropic-style names). */
  input: unknown;
  output: unknown;
  total: unknown;
  cacheRead: unknown;
  cacheWrite: unknown;
  reasoning: unknown;
}

const first = (...vs: unknown[]): unknown => vs.find((v) => v !== undefined);

/**
 * The one usage copy a line is counted by (README "One copy"): the provider's
 * raw usage (the only copy that carries cache writes), else `message.usage`,
 * else `providerData.usage`. They are the same call: never added.
 */
function figuresOf(rec: Obj): { figures: Figures; copy: string } | null {
  const pd = isObj(rec.providerData) ? rec.providerData : {};
  const raw = pd.rawUsage;
  if (isObj(raw)) {
    const pd2 = isObj(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
    const cd = isObj(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
    return {
      copy: 'providerData.rawUsage',
      figures: {
        input: first(raw.prompt_tokens, raw.input_tokens),
        output: first(raw.completion_tokens, raw.output_tokens),
        total: raw.total_tokens,
        cacheRead: first(raw.cache_read_input_tokens, raw.prompt_cache_hit_tokens, pd2.cached_tokens),
        cacheWrite: first(raw.cache_creation_input_tokens, raw.prompt_cache_write_tokens),
        reasoning: first(raw.completion_thinking_tokens, cd.reasoning_tokens, pd2.reasoning_tokens),
      },
    };
  }
  const mu = isObj(rec.message) ? rec.message.usage : undefined;
  if (isObj(mu)) {
    const od = isObj(mu.output_tokens_details) ? mu.output_tokens_details : {};
    return {
      copy: 'message.usage',
      figures: {
        input: mu.input_tokens,
        output: mu.output_tokens,
        total: mu.total_tokens,
        cacheRead: mu.cache_read_input_tokens,
        cacheWrite: mu.cache_creation_input_tokens,
        reasoning: od.reasoning_tokens,
      },
    };
  }
  const pu = pd.usage;
  if (isObj(pu)) {
    const id = isObj(pu.inputTokensDetails) ? pu.inputTokensDetails : {};
    const od = isObj(pu.outputTokensDetails) ? pu.outputTokensDetails : {};
    return {
      copy: 'providerData.usage',
      figures: {
        input: pu.inputTokens,
        output: pu.outputTokens,
        total: pu.totalTokens,
        cacheRead: first(pu.cacheReadInputTokens, id.cachedTokens, id.cached_tokens),
        cacheWrite: pu.cacheCreationInputTokens,
        reasoning: first(od.reasoning_tokens, od.reasoningTokens),
      },
    };
  }
  return null;
}

export async function extractCodebuddy(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  const file = source.path;
  const fallbackSession = basename(file).replace(/\.jsonl$/, '');
  return scanJsonlFile(file, { markers: MARKERS, resume: opts.resume }, sink, (rec: Obj, line) => {
    const at = { file, line };
    const session = str(rec.sessionId) ?? fallbackSession;
    const ts = parseTimestamp(rec.timestamp);
    const type = rec.type;
    if (type === 'message' && rec.role === 'user') {
      // A person's prompt (README "Units of work"): counted, never its text.
      const id = str(rec.id);
      if (id !== null && ts !== null)
        sink.unit({
          harness: 'codebuddy',
          session_id: session,
          kind: 'prompt',
          dedupe_key: `${session}:${id}`,
          dedupe_rank: 0,
          ts,
          count: 1,
        });
      return;
    }
    if (type === 'ai-title' || type === 'topic') {
      const title = str(rec.title) ?? str(rec.aiTitle) ?? str(rec.topic);
      // A generated title (ai-title) wins over a topic.
      if (title !== null)
        sink.sessionFact({
          harness: 'codebuddy',
          session_id: session,
          title,
          title_rank: type === 'ai-title' ? 0 : 1,
          parent_session_id: null,
          seq: line,
        });
      return;
    }
    const isCall = type === 'function_call';
    const isAnswer = type === 'message' && rec.role === 'assistant';
    if (!isCall && !isAnswer) return;
    const got = figuresOf(rec);
    if (got === null) return;
    if (isAnswer && rec.status !== undefined && rec.status !== 'completed') {
      sink.skip(`assistant message ${String(rec.status)} (not a completed call)`, at);
      return;
    }
    const f = got.figures;
    const invalid: string[] = [];
    const tok = (name: string, v: unknown) => {
      const ck = checkTokenCount(v);
      if (!ck.ok) invalid.push(`${name} ${ck.reason}`);
      return ck.value;
    };
    const input = tok('input', f.input);
    const output = tok('output', f.output);
    const cacheRead = tok('cache read', f.cacheRead);
    const cacheWrite = tok('cache write', f.cacheWrite);
    const reasoning = tok('reasoning', f.reasoning);
    if (invalid.length) sink.warn(`invalid usage field(s) in ${got.copy} counted as 0: ${invalid.join(', ')}`, at);
    if (input + output === 0) {
      sink.skip('call with no tokens', at);
      return;
    }
    if (ts === null) {
      sink.warn('call without a usable timestamp skipped', at);
      return;
    }
    // Input includes both cache buckets (README "Tokens").
    const fresh = input - cacheRead - cacheWrite;
    if (fresh < 0) sink.count('codebuddy: input smaller than its cache reads and writes (uncached input taken as 0)');
    if (typeof f.total === 'number' && f.total !== input + output)
      sink.count('codebuddy: total is not input + output (a changed format?)');
    const pd = isObj(rec.providerData) ? rec.providerData : {};
    const id = str(pd.messageId) ?? str(rec.id);
    if (id === null) {
      sink.warn('call without a message id or line id skipped', at);
      return;
    }
    sink.event({
      harness: 'codebuddy',
      session_id: session,
      project: str(rec.cwd),
      model: str(pd.model) ?? str(pd.requestModelId) ?? str(pd.requestModelName),
      provider: null,
      ts,
      // One call: its parallel function_call lines repeat its usage under one messageId (README "Once").
      dedupe_key: `${session}:${id}`,
      dedupe_rank: 0,
      requests: 1,
      input_tokens: Math.max(fresh, 0),
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      cache_write_5m_tokens: null,
      cache_write_1h_tokens: null,
      output_tokens: output,
      reasoning_tokens: Math.min(reasoning, output),
      recorded_cost_usd: null,
      source_file: file,
      source_line: line,
      rule: RULE.call,
    });
  });
}
