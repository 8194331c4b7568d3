// Gemini's usageMetadata (promptTokenCount, cachedContentTokenCount,
// candidatesTokenCount, thoughtsTokenCount, toolUsePromptTokenCount,
// totalTokenCount) as tx-usage's counts. Gemini CLI copies it into a
// message's `tokens`; Qwen Code, a fork of Gemini CLI, records it as is
// (assistant `usageMetadata`) and flattened (`api_response` telemetry). The
// rules are in README.md beside this file ("Tokens").
import type { UsageEvent } from '../../core/types.js';

/** One response's counts as the harness wrote them, already checked (non-negative integers; total null when not written). */
export interface GeminiCounts {
  prompt: number;
  cached: number;
  candidates: number;
  thoughts: number;
  tool: number;
  total: number | null;
}

export interface NormalizedUsage {
  input: number;
  cacheRead: number;
  output: number;
  reasoning: number;
  /** How the recorded total placed the fields (README "Tokens"); null when the total did not decide. */
  shape: 'net input' | 'reasoning inside output' | null;
  /** Recorded cached tokens exceeded the prompt they are part of (clamped). */
  cachedOverPrompt: boolean;
}

/**
 * Gemini's API counts cached tokens inside promptTokenCount and thoughts
 * beside candidatesTokenCount (total = prompt + candidates + thoughts +
 * tool). OpenAI-style providers reached through Qwen Code count reasoning
 * inside completion_tokens (total = prompt + candidates): there thoughts are
 * already in candidates. A peer met files whose input left the cached part
 * out (tokscale PR 452): the recorded total tells the shapes apart; with no
 * total, or one that fits none, Gemini's own shape is taken.
 */
export function normalizeGeminiCounts(c: GeminiCounts): NormalizedUsage {
  const { prompt: p, cached: k, candidates: o, thoughts: t, tool: x, total } = c;
  let netInput = false;
  let thoughtsInside = false;
  if (total !== null && total > 0) {
    if (total === p + o + t + x) {
      // Gemini's shape (also every shape when cached and thoughts are 0).
    } else if (t > 0 && total === p + o + x) thoughtsInside = true;
    else if (k > 0 && total === p + k + o + t + x) netInput = true;
    else if (k > 0 && t > 0 && total === p + k + o + x) {
      netInput = true;
      thoughtsInside = true;
    }
  }
  const cachedOverPrompt = !netInput && k > p;
  const input = (netInput ? p : Math.max(p - k, 0)) + x;
  const output = thoughtsInside ? o : o + t;
  return {
    input,
    cacheRead: k,
    output,
    reasoning: Math.min(t, output),
    shape: netInput ? 'net input' : thoughtsInside ? 'reasoning inside output' : null,
    cachedOverPrompt,
  };
}

/** The counts of one billed response as UsageEvent fields: no cache writes, no recorded cost (neither harness writes one). */
export function usageEventCounts(
  n: NormalizedUsage,
): Pick<
  UsageEvent,
  | 'requests'
  | 'input_tokens'
  | 'cache_read_tokens'
  | 'cache_write_tokens'
  | 'cache_write_5m_tokens'
  | 'cache_write_1h_tokens'
  | 'output_tokens'
  | 'reasoning_tokens'
  | 'recorded_cost_usd'
> {
  return {
    requests: 1,
    input_tokens: n.input,
    cache_read_tokens: n.cacheRead,
    cache_write_tokens: 0,
    cache_write_5m_tokens: null,
    cache_write_1h_tokens: null,
    output_tokens: n.output,
    reasoning_tokens: n.reasoning,
    recorded_cost_usd: null,
  };
}
