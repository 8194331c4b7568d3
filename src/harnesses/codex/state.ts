// What the Codex extractor carries across appends of a plain .jsonl
// (ResumePoint.state; README "Resume state"). JSON-serializable.
import { freshLineage, type LineageState } from './lineage.js';
import type { Tokens } from './usage.js';

/** How many recent response ids / cumulative positions are remembered (kept small: they ride in ResumePoint.state). */
export const RECENT_RESPONSES = 256;
const RECENT_TOTALS = 256;

export interface CodexState {
  v: 1;
  threadId: string;
  /** Line 1 (the file's own session_meta) has been read. */
  metaSeen: boolean;
  metaCwd: string | null;
  /** session_meta.model_provider (e.g. "openai"), passed on to pricing. */
  provider?: string | null;
  /** Sub-agent thread: its spend goes to the parent's project. */
  subagent: boolean;
  /** Records with ordinal below this are inherited parent context. */
  subagentStart: number | null;
  /** cwd of the last inherited turn_context: the parent's project. */
  parentCwd: string | null;
  /** Legacy fork: still inside the block of records copied from the parent (states without `lineage` only). */
  inForkCopy: boolean;
  /** The file's own creation time (session_meta.payload.timestamp, else its line's). */
  forkCreatedTs: number | null;
  /** session_meta.session_id: the root thread of the session tree, which own responses are attributed to. */
  root?: string | null;
  /** Copied history: whose records are being read (lineage.ts). Absent in states that predate it. */
  lineage?: LineageState;
  /** service_tier of the latest thread_settings_applied: "priority" (legacy "fast") bills at the priority rate. */
  tier?: 'priority' | null;
  model: string | null;
  cwd: string | null;
  contextWindow: number | null;
  /** Last real cumulative thread total; null = not known yet (file continues another rollout via history_base). */
  last: Tokens | null;
  /** Bumped whenever the cumulative total goes down, so positions reused after a reset get new keys. */
  epoch: number;
  recentTotals: number[];
  recentResponses: string[];
  /** A record counted before its token_count: that token_count must not count again. */
  afterRecord: { base: number | null; usage: number; c: number | null } | null;
  /** The last token_count counted (its total and usage): its record may come in the next run. */
  lastTc?: { c: number; usage: number } | null;
  lastTs: number | null;
}

export function pushBounded<T>(arr: T[], v: T, max: number): void {
  arr.push(v);
  if (arr.length > max) arr.splice(0, arr.length - max);
}

/** Notes a cumulative position this file reached (a total seen again later is a rewind, not new usage). */
export function rememberTotal(st: CodexState, total: number): void {
  if (st.recentTotals[st.recentTotals.length - 1] !== total) pushBounded(st.recentTotals, total, RECENT_TOTALS);
}

export function freshState(threadId: string): CodexState {
  return {
    v: 1,
    threadId,
    metaSeen: false,
    metaCwd: null,
    subagent: false,
    subagentStart: null,
    parentCwd: null,
    inForkCopy: false,
    forkCreatedTs: null,
    root: null,
    lineage: freshLineage(),
    tier: null,
    model: null,
    cwd: null,
    contextWindow: null,
    last: { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0, total: 0, reportedTotal: 0 },
    epoch: 0,
    recentTotals: [],
    recentResponses: [],
    afterRecord: null,
    lastTs: null,
  };
}

/** A state from the last run, or null when it is not one this extractor wrote (the file is then read again from the start). */
export function restoredState(raw: unknown): CodexState | null {
  if (raw === null || typeof raw !== 'object') return null;
  const s = raw as CodexState;
  if (s.v !== 1 || typeof s.threadId !== 'string' || !Array.isArray(s.recentTotals)) return null;
  if (!s.lineage) {
    // A state without lineage: a file still inside a legacy copy block is
    // read again from the start; any other continues as its own.
    if (s.inForkCopy) return null;
    s.lineage = { ...freshLineage(), done: true };
  }
  return s;
}
