// Codex TokenUsage objects (contract `codex`, usage): reading, cumulative
// arithmetic and normalization. input_tokens INCLUDES cached and cache-write
// tokens; output_tokens includes reasoning_output_tokens.
import { readTokenFields } from '../../core/numbers.js';

export interface Tokens {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
  /**
   * Position on the cumulative scale: the reported total_tokens when valid,
   * else input + output (which is what total_tokens means).
   */
  total: number;
  /** total_tokens as written (null when absent or invalid): the overflow test compares this. */
  reportedTotal: number | null;
}

export const ZERO: Tokens = { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0, total: 0, reportedTotal: 0 };

const FIELDS = {
  input: 'input_tokens',
  cached: 'cached_input_tokens',
  cacheWrite: 'cache_write_input_tokens',
  output: 'output_tokens',
  reasoning: 'reasoning_output_tokens',
  total: 'total_tokens',
} as const;

/** Reads one TokenUsage; `invalid` names fields of the wrong type (counted as 0). Missing fields are 0. */
export function readTokens(obj: unknown): { tokens: Tokens; invalid: string[] } | null {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return null;
  const rec = obj as Record<string, unknown>;
  const { values: v, invalid } = readTokenFields(rec, FIELDS);
  const reported =
    typeof rec.total_tokens === 'number' && !invalid.some((s) => s.startsWith('total_tokens')) ? v.total : null;
  const total = reported ?? v.input + v.output;
  return {
    tokens: {
      input: v.input,
      cached: v.cached,
      cacheWrite: v.cacheWrite,
      output: v.output,
      reasoning: v.reasoning,
      total,
      reportedTotal: reported,
    },
    invalid,
  };
}

/** Field-wise a - b, each clamped at 0; `clamped` says a field went down (inconsistent totals). */
export function minus(a: Tokens, b: Tokens): { tokens: Tokens; clamped: boolean } {
  let clamped = false;
  const d = (x: number, y: number) => {
    if (x < y) {
      clamped = true;
      return 0;
    }
    return x - y;
  };
  const tokens: Tokens = {
    input: d(a.input, b.input),
    cached: d(a.cached, b.cached),
    cacheWrite: d(a.cacheWrite, b.cacheWrite),
    output: d(a.output, b.output),
    reasoning: d(a.reasoning, b.reasoning),
    total: d(a.total, b.total),
    reportedTotal: null,
  };
  return { tokens, clamped };
}

/** Same counts in every field (the position included). */
export function sameTokens(a: Tokens, b: Tokens): boolean {
  return (
    a.input === b.input &&
    a.cached === b.cached &&
    a.cacheWrite === b.cacheWrite &&
    a.output === b.output &&
    a.reasoning === b.reasoning &&
    a.total === b.total
  );
}

export function plus(a: Tokens, b: Tokens): Tokens {
  return {
    input: a.input + b.input,
    cached: a.cached + b.cached,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    total: a.total + b.total,
    reportedTotal: null,
  };
}

export interface NormalizedTokens {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
  /** input_tokens was smaller than cached + cache-write (uncached input clamped to 0). */
  inconsistent: boolean;
}

/** Codex fields → tx-usage fields: uncached input = input - cached - cache_write. */
export function normalize(t: Tokens): NormalizedTokens {
  const uncached = t.input - t.cached - t.cacheWrite;
  return {
    input: Math.max(0, uncached),
    cacheRead: t.cached,
    cacheWrite: t.cacheWrite,
    output: t.output,
    reasoning: Math.min(t.reasoning, t.output),
    inconsistent: uncached < 0,
  };
}
