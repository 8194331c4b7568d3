// OpenCode usage buckets and their normalization (contract `opencode`, usage):
// tokens {input, output, reasoning, cache:{read, write}} with NO total field;
// `input` is uncached input and `reasoning` is a SEPARATE bucket, so
// normalized output = output + reasoning and reasoning is its subset.
import { checkCost, notAnObject, readTokenFields } from '../../core/numbers.js';
import type { SourceLocation, UsageEvent } from '../../core/types.js';
import type { ExtractSink } from '../types.js';
import { RULE } from './rules.js';

/** OpenCode's own buckets, as recorded (before normalization). */
export interface OcTokens {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface OcUsage extends OcTokens {
  /** Recorded USD, null when the record carries none. */
  cost: number | null;
}

export const TOKEN_FIELDS = {
  input: 'input',
  output: 'output',
  reasoning: 'reasoning',
  cacheRead: 'cache.read',
  cacheWrite: 'cache.write',
} as const;

export const zeroUsage = (): OcUsage => ({
  input: 0,
  output: 0,
  reasoning: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cost: null,
});

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The record's tokens as written: undefined when the field is absent. The
 * extraction queries project `data -> '$.tokens'` (a missing field reads as
 * JSON null there) beside `json_type(data, '$.tokens')` (NULL only when the
 * field is absent), so a written `null` is told from a missing field.
 */
export function writtenTokens(d: { tokens?: unknown; tokens_type?: unknown }): unknown {
  return d.tokens_type === null || d.tokens_type === undefined ? undefined : d.tokens;
}

/**
 * True when a record carries usage at all: tokens (an object, or a value in
 * its place that readUsage names as not one) or a numeric cost.
 */
export function hasUsage(tokens: unknown, cost: unknown): boolean {
  return tokens !== undefined || typeof cost === 'number';
}

/**
 * Validated usage of one record. Invalid token fields count as 0 and a
 * non-numeric / negative cost as "no cost", each with a warning naming the row.
 */
export function readUsage(
  tokens: unknown,
  cost: unknown,
  at: SourceLocation,
  sink: ExtractSink,
  what = 'tokens',
): OcUsage {
  const u = zeroUsage();
  if (isObject(tokens)) {
    const { values, invalid } = readTokenFields(tokens, TOKEN_FIELDS);
    if (invalid.length)
      sink.warn(`invalid usage field(s) counted as 0: ${invalid.map((f) => `${what}.${f}`).join(', ')}`, at);
    Object.assign(u, values);
  } else if (tokens !== undefined) {
    // null, a string, a list: named like an invalid count (they passed as 0 without a word).
    sink.warn(`${what} is ${notAnObject(tokens)}, not an object; its tokens count as 0`, at);
  }
  if (cost !== undefined && cost !== null) {
    u.cost = checkCost(cost);
    if (u.cost === null) sink.warn('invalid cost ignored', at);
  }
  return u;
}

export function addUsage(into: OcUsage, u: OcUsage): void {
  into.input += u.input;
  into.output += u.output;
  into.reasoning += u.reasoning;
  into.cacheRead += u.cacheRead;
  into.cacheWrite += u.cacheWrite;
  if (u.cost !== null) into.cost = (into.cost ?? 0) + u.cost;
}

export const tokenSum = (u: OcTokens) => u.input + u.output + u.reasoning + u.cacheRead + u.cacheWrite;

export interface EventBase {
  session_id: string;
  project: string | null;
  model: string | null;
  provider: string | null;
  ts: number;
  dedupe_key: string;
  requests: number;
  source_file: string;
  /** The README rule that counts it (for `tx-usage explain`). */
  rule: string;
}

export function usageEvent(base: EventBase, u: OcUsage): UsageEvent {
  // A recorded cost of 0 for tokens is not a known $0: OpenCode writes 0
  // where it has no price for the model (openusage#1088: models.dev has
  // none; tokei#42/#43). Read as "no recorded cost", so the computed one
  // applies (and an unpriced model shows as unknown), as pi's zero is
  // (src/harnesses/pi). A zero-token record keeps its recorded 0 (README
  // "Recorded cost of zero").
  const zeroForTokens = u.cost === 0 && tokenSum(u) > 0;
  return {
    harness: 'opencode',
    ...base,
    dedupe_rank: 0,
    input_tokens: u.input,
    cache_read_tokens: u.cacheRead,
    cache_write_tokens: u.cacheWrite,
    cache_write_5m_tokens: null,
    cache_write_1h_tokens: null,
    output_tokens: u.output + u.reasoning,
    reasoning_tokens: u.reasoning,
    recorded_cost_usd: zeroForTokens ? null : u.cost,
    source_line: null,
    ...(zeroForTokens ? { rule: RULE.zeroCost } : {}),
  };
}

/** `{id, providerID}` model refs (2.x `data.model`, `session_v2.model`). */
export function modelRef(v: unknown): { model: string | null; provider: string | null } {
  if (!isObject(v)) return { model: null, provider: null };
  return {
    model: typeof v.id === 'string' && v.id ? v.id : null,
    provider: typeof v.providerID === 'string' && v.providerID ? v.providerID : null,
  };
}

/** Parses JSON text from SQLite; null when absent or unparsable. */
export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
