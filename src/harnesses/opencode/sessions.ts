// A 2.x session as the usage and unit readers (v2.ts, units.ts) both take it,
// and the fork rule they share (README "Forks").
import type { OcUsage } from './usage.js';

export interface SessionInfo {
  id: string;
  /** session_v2.title (never prompt text); null when absent. */
  title: string | null;
  /** The session that spawned this one (subagent child sessions). */
  parentId: string | null;
  directory: string | null;
  model: string | null;
  provider: string | null;
  ts: number | null;
  forkOf: string | null;
  boundary: { type: string; messageID: string } | null;
  /** Running totals; null when the table has no usage columns. */
  totals: OcUsage | null;
}

/**
 * A row a fork copied from its source session: its id is the copy's
 * `msg_<forkEventSuffix>_<seq>` with the SAME seq, or its seq is at or below
 * the last one copied (v2.ts lastCopiedSeqs).
 */
export function isForkCopy(id: string, seq: number, lastCopied: number | null | undefined): boolean {
  const m = /^msg_[^_]+_(\d+)$/.exec(id);
  if (m && Number(m[1]) === seq) return true;
  return typeof lastCopied === 'number' && seq <= lastCopied;
}
