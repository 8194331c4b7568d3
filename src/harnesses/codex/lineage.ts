// Which thread a record of a Codex rollout belongs to (README "Lineage:
// copied history"). A fork or fork-context sub-agent may open with a copy of
// its ancestors' records (session_meta and token_count included), with
// timestamps either original or rewritten to the child's creation. The copied
// responses are keyed by the thread that made them (extract.ts), so the store
// keeps each once, whichever file holds it; this module only decides, record
// by record and in one pass, whose record it is:
//
// - a copied session_meta names the thread whose records follow (its header:
//   id, creation time, root session). The file's own id again ends the copy
//   (a plain `codex fork` writes its own session_meta again after the copy).
//   A header may carry the thread id alone: the thread's creation time is
//   then its id's (Codex makes thread ids as UUIDv7, openai/codex
//   codex-rs/protocol/src/thread_id.rs), so whose turn a copied turn is never
//   depends on what else the header holds;
// - a turn (turn_id when it is a UUIDv7, else task_started.started_at) belongs
//   to the newest thread of the lineage created at or before the turn began:
//   a copied turn began before the child existed, the child's own first turn
//   after. Neither is rewritten when a copy is re-stamped;
// - copies that kept their original timestamps are dated the same way, line
//   by line (a copy is "original" when its first dated line is clearly before
//   the child's creation; a re-stamped burst sits at the creation instant);
// - ordinals below subagent_history_start_ordinal are inherited (paginated
//   sub-agents): authoritative where present.

/** A thread whose records a copy holds: from the copied session_meta (or forked_from_id alone). */
export interface Header {
  id: string;
  /** Creation time (ms) as the header states it, null when it does not (a header of the id alone, an ancestor named only by forked_from_id). */
  created: number | null;
  /** Its session_meta.session_id: the root of its session tree. */
  root: string | null;
  /** Its copied session_meta was read (absent in states that predate it: a stated creation time then says so). */
  seen?: boolean;
}

/** Lineage state carried in ResumePoint.state (JSON). */
export interface LineageState {
  /** Thread whose copied records are being read; null = the file's own records. */
  origin: string | null;
  /** Threads seen in the copy (bounded). */
  headers: Header[];
  /** The copy block is over for good (own records from here on). */
  done: boolean;
  /** How the copy is dated, decided by its first dated line. */
  stamps: 'original' | 'restamped' | null;
}

/** A re-stamped copy is written in one burst at the child's creation; a line this far before it kept its original time. */
export const BURST_MS = 2_000;
const MAX_HEADERS = 16;
/** ownerAt's answer for the file's own thread (no thread id looks like it). */
export const OWN = '\u0000own';

export function freshLineage(): LineageState {
  return { origin: null, headers: [], done: false, stamps: null };
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Milliseconds a UUIDv7 was made at (its first 48 bits); null for any other string. */
export function uuidV7Ms(s: unknown): number | null {
  if (typeof s !== 'string' || !UUID_V7.test(s)) return null;
  return parseInt(s.slice(0, 8) + s.slice(9, 13), 16);
}

/** When a turn began: its UUIDv7 turn_id, else started_at (Unix seconds; milliseconds accepted). */
export function turnTime(turnId: unknown, startedAt: unknown): number | null {
  const v7 = uuidV7Ms(turnId);
  if (v7 !== null) return v7;
  if (typeof startedAt === 'number' && Number.isFinite(startedAt) && startedAt > 0)
    return startedAt < 1e12 ? startedAt * 1000 : startedAt;
  return null;
}

export function addHeader(l: LineageState, h: Header): void {
  if (l.headers.some((x) => x.id === h.id)) return;
  l.headers.push(h);
  if (l.headers.length > MAX_HEADERS) l.headers.splice(0, l.headers.length - MAX_HEADERS);
}

/** When a copied thread was created: as its header states, else as its UUIDv7 id says; null when neither tells. */
export function createdOf(h: Header): number | null {
  return h.created ?? uuidV7Ms(h.id);
}

/** Its copied session_meta has been read (the thread's records went on from 0 there). */
export function headerSeen(h: Header): boolean {
  return h.seen ?? h.created !== null;
}

/**
 * Whose record a line made at `t` is: OWN when at or after the file's own
 * creation, else the newest copied thread created at or before `t` (a thread
 * of unknown creation counts as oldest); null when none qualifies.
 */
export function ownerAt(l: LineageState, created: number | null, t: number): string | null {
  if (created !== null && t >= created) return OWN;
  let best: { id: string; c: number } | null = null;
  for (const h of l.headers) {
    const c = createdOf(h) ?? -Infinity;
    if (c <= t && (best === null || c >= best.c)) best = { id: h.id, c };
  }
  return best ? best.id : null;
}
