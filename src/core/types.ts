// The normalized shapes every harness produces and every other layer consumes.
// Nothing in here knows any harness's on-disk format.

import type { HarnessId } from '../harnesses/ids.js';
// The harnesses' ids belong to the registry (src/harnesses/ids.ts); named here too for the layers that take them with these shapes.
export { HARNESS_IDS, isHarnessId, type HarnessId } from '../harnesses/ids.js';

/**
 * What a billed row was made from (UsageEvent.grain):
 * - `response`: one billed API response (or a documented share of one), at its own time;
 * - `session`: a session's total, or the part of it no response row holds (a
 *   residual), placed at the session's last activity, or spread by a rule
 *   its harness's README documents;
 * - `snapshot`: the difference between two readings of a session's running
 *   counters, placed at the later reading.
 * Figures that rest on `session` or `snapshot` rows cannot be cut into days
 * or 5-hour blocks as responses can: reports mark them, the live views
 * (blocks, limits, budgets) and per-day compare leave them out and say so.
 */
export const GRAINS = ['response', 'session', 'snapshot'] as const;
export type Grain = (typeof GRAINS)[number];

/**
 * One billed API response (or, with requests = 0, a residual correction such as
 * OpenCode's session-total remainder, or, with `iteration` set, a later
 * sampling iteration of a response counted on its first). Token fields are
 * non-negative integers.
 *
 * - input_tokens: UNCACHED input only.
 * - cache_write_tokens: all cache writes; the 5m/1h split is informational and
 *   may be null where the harness does not record it.
 * - output_tokens: ALL output, reasoning included.
 * - reasoning_tokens: informational subset of output_tokens.
 */
export interface UsageEvent {
  harness: HarnessId;
  session_id: string;
  /** Absolute working directory of the session, or null when unknown. */
  project: string | null;
  model: string | null;
  /** Provider id where the harness records one (OpenCode, Pi). */
  provider: string | null;
  /** Epoch milliseconds, UTC. */
  ts: number;
  /**
   * Identity of the billed response. Events with the same (harness, dedupe_key)
   * are the same response seen twice (split lines, fork copies, moved files):
   * the store keeps one — the largest usage, then the lowest dedupe_rank.
   */
  dedupe_key: string;
  /** Lower wins among equal usage; harnesses use 1 for records known to be copies. */
  dedupe_rank: number;
  requests: number;
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_5m_tokens: number | null;
  cache_write_1h_tokens: number | null;
  output_tokens: number;
  reasoning_tokens: number;
  /** Cost in USD the harness itself recorded for this response, else null. */
  recorded_cost_usd: number | null;
  /** Where the event came from: path (and line) — never content. */
  source_file: string;
  source_line: number | null;
  /**
   * Billing category the source states for the response (Cursor's usage CSV
   * `Kind`: Included, On-Demand, ...). Absent (null) for every other source.
   */
  billing_kind?: string | null;
  /** The response's charge in request units (Cursor's usage CSV `Requests`, fractional). Absent (null) elsewhere. */
  request_units?: number | null;
  /** Name of the harness README rule that produced this event, for `tx-usage explain`; not stored. */
  rule?: string;
  /**
   * The speed the response was served at where it is not the standard one
   * (Anthropic `usage.speed: "fast"`: billed at the model's fast-mode
   * rates, src/pricing/fast-mode.ts). Absent (null): standard.
   */
  speed?: string | null;
  /** Server-side web searches the response ran (Anthropic `usage.server_tool_use.web_search_requests`), billed per search. Absent (null): none recorded. */
  web_search_requests?: number | null;
  /**
   * For a response billed per sampling iteration (a Claude Code advisor
   * turn, `usage.iterations[]`): the index of the iteration this event
   * holds. Such an event is priced on its own input (the long-context tier
   * is decided per iteration); one with `requests: 0` is a later iteration
   * of a response counted on its first. Absent (null): the event holds the
   * whole response.
   */
  iteration?: number | null;
  /** What the row was made from (GRAINS); absent (null): `response`. */
  grain?: Grain | null;
}

/** A harness-recorded session-level cost estimate (Claude Code `cost-state`). Never summed into per-response costs. */
export interface SessionEstimate {
  harness: HarnessId;
  session_id: string;
  recorded_cost_usd: number;
  ts: number | null;
}

/** One rate-limit window of a plan snapshot (Codex `rate_limits.primary` / `secondary`). */
export interface RateLimitWindow {
  /** 0-100 as the harness wrote it, null when absent. */
  used_percent: number | null;
  window_minutes: number | null;
  /** When the window resets, epoch ms; null when unknown. */
  resets_at: number | null;
}

/**
 * A plan's rate-limit snapshot as a harness recorded it (Codex writes one with
 * every token_count). Only these figures are kept, never text around them.
 * Identical snapshots in a row are one, seen from `ts` to `last_ts`.
 */
export interface RateLimitSnapshot {
  harness: HarnessId;
  session_id: string;
  /** First and last time this snapshot was observed (epoch ms). */
  ts: number;
  last_ts: number;
  limit_id: string | null;
  plan_type: string | null;
  primary: RateLimitWindow | null;
  secondary: RateLimitWindow | null;
  credits: { has_credits: boolean | null; unlimited: boolean | null; balance: string | null } | null;
  /** Which limit was reached (rate_limit_reached_type), null when none. */
  reached_type: string | null;
  source_file: string;
  source_line: number | null;
}

/**
 * What a unit of work counts: a prompt typed by a person, an
 * assistant turn that ended, tool invocations, and prompts a parent agent
 * wrote for a subagent. Counts only: a unit never carries text.
 */
export const WORK_UNIT_KINDS = ['prompt', 'turn', 'tool_call', 'subagent_task'] as const;
export type WorkUnitKind = (typeof WORK_UNIT_KINDS)[number];

/**
 * One unit of work (or, with count > 1, several that are always copied
 * together, e.g. the tool calls of one response). Units with the same
 * (harness, kind, dedupe_key) are the same units seen twice (split lines,
 * fork copies, moved files): the store keeps one, the lowest dedupe_rank.
 */
export interface WorkUnit {
  harness: HarnessId;
  session_id: string;
  kind: WorkUnitKind;
  dedupe_key: string;
  /** Lower wins; harnesses use 1 for records known to be copies (forks). */
  dedupe_rank: number;
  /** Epoch milliseconds, UTC. */
  ts: number;
  /** Units this row stands for (1 but for grouped tool calls). */
  count: number;
}

/**
 * What a harness keeps about a session besides its records: its title (never
 * prompt text) and, for a subagent's own session, the session that spawned it.
 */
export interface SessionFact {
  harness: HarnessId;
  session_id: string;
  /** The harness's own title or name for the session; null when it keeps none. */
  title: string | null;
  /** Precedence among a harness's title kinds: lower wins (e.g. a user-set name over a generated one). */
  title_rank: number;
  /** The parent session of a subagent's own session (Codex child threads, OpenCode child sessions). */
  parent_session_id: string | null;
  /** Order among facts of one source: the later (larger) wins at equal rank (e.g. the line number). */
  seq: number;
}

/** Context-window occupancy of one chat (Cursor): NOT billed usage. */
export interface ContextRow {
  harness: HarnessId;
  session: string;
  project: string | null;
  model: string | null;
  turns: number;
  latest_used_tokens: number | null;
  max_tokens: number | null;
  peak_used_tokens: number | null;
  first_ts: number | null;
  last_ts: number | null;
}

/** A place in a source: file path plus line (JSONL) or row description (SQLite). */
export interface SourceLocation {
  file: string;
  line?: number;
  row?: string;
}

export function formatLocation(loc: SourceLocation): string {
  if (loc.line !== undefined) return `${loc.file}:${loc.line}`;
  if (loc.row !== undefined) return `${loc.file} (${loc.row})`;
  return loc.file;
}
