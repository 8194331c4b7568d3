// Sources a report does not need yet. A report over the last 30 days cannot
// count a response from a transcript last written two months ago: every
// record in a file was written at or before the file's last write, and a
// response counts on the day of its own timestamp. So a report's ingest may
// leave unread the sources the store has never read that were last written
// well before the report's first day; they stay unknown to the store (not
// recorded, no warnings yet) and are read by the first command that needs
// them: a report reaching further back, `ingest`, `sources`, `export`, `sql`.
//
// "Last written" is checked twice, so a wrong modification time alone (a
// copy that kept an old one, a test that set one) never hides data: the
// file's mtime AND the timestamp of its last complete line (asked of the
// harness, see Harness.lastLineTime) must both be before the horizon.
// Harnesses that do not say how to read that timestamp, SQLite sources, and
// files whose last line is torn or very long are always read. A compressed
// transcript (`.jsonl.zst`) is left unread on its modification time alone,
// and only for a harness that declares its compressed files sealed
// (Harness.sealedWhenCompressed: Codex compresses a rollout idle for 7 days
// and decompresses it before any append): reading its last line would mean
// decoding the whole frame, the very work being saved, and its modification
// time, kept from the transcript or set when it was compressed, is at or
// after its last record. Only a modification time set back on purpose could
// hide one. Deduplication across files is the other way a distant file could
// matter: a copy of a response (a fork) in a file that is read, whose
// original sits in a file that is not. Copies that keep their original
// timestamp are outside the window with it; copies marked as copies
// (dedupe_rank >= Harness.copyRankFrom, default 1) and dated at or after the
// horizon make the ingest read the harness's deferred sources
// after all (ingest.ts); copies the store took in earlier runs do not (a file
// of originals that reappears later with an old modification time, say from
// a backup, is left unread like any other). Cursor resolves projects from the
// other harnesses' cwds, so with Cursor sources present nothing is deferred.
import type { Harness, SourceRef } from '../harnesses/types.js';
import type { HarnessScan } from './discover.js';
import type { Stamp } from './stamp.js';
import { readLastLine } from '../io/last-line.js';

const DAY = 86_400_000;
/**
 * Slack before the report's first day: up to 14 hours of time-zone offset
 * (the day is cut in the report's zone) and a day of clock disagreement.
 */
export const HORIZON_MARGIN_MS = 2 * DAY;
/** The same for a report cut in UTC, whose first day starts at its own 00:00Z: the day of clock disagreement only. */
export const HORIZON_MARGIN_UTC_MS = DAY;

/** The horizon for a report whose first local day is `day` (YYYY-MM-DD) in zone `tz` (any zone when not given). */
export function horizonOfDay(day: string, tz?: string): number {
  return Date.parse(`${day}T00:00:00Z`) - (tz === 'UTC' ? HORIZON_MARGIN_UTC_MS : HORIZON_MARGIN_MS);
}

/** The horizon the ingest may use with these scans: null when nothing may be deferred (Cursor sources present). */
export function usableHorizon(scans: HarnessScan[], horizonMs: number | null | undefined): number | null {
  if (horizonMs === null || horizonMs === undefined || !Number.isFinite(horizonMs)) return null;
  // Imported usage CSVs (kind csv) resolve no projects: they alone defer nothing.
  return scans.some((s) => s.harness.usesKnownProjects && s.sources.some((src) => src.kind !== 'csv'))
    ? null
    : horizonMs;
}

// The last line is read once per source state, whether early or in the ingest.
const lastTimes = new Map<string, number | null>();

/** Whether mayLeaveUnread() can say yes: the harness dates its lines and the source's mtime is before the horizon (no file read). */
export function mayDefer(harness: Harness, stamp: Stamp | null, horizonMs: number | null): boolean {
  return horizonMs !== null && stamp !== null && harness.lastLineTime !== undefined && stamp.mtimeMs < horizonMs;
}

/** Whether a source the store has never read may be left unread under this horizon. */
export function mayLeaveUnread(
  src: SourceRef,
  harness: Harness,
  stamp: Stamp | null,
  horizonMs: number | null,
): boolean {
  if (!mayDefer(harness, stamp, horizonMs)) return false;
  if (src.kind === 'jsonl.zst') return harness.sealedWhenCompressed === true;
  if (src.kind !== 'jsonl') return false;
  const t = lastLineTime(src, harness, stamp!);
  return t !== null && t < horizonMs!;
}

/** The time of the source's last complete line, read once per source state. */
function lastLineTime(src: SourceRef, harness: Harness, stamp: Stamp): number | null {
  const k = `${src.key}\0${stamp.fingerprint}`;
  let t = lastTimes.get(k);
  if (t === undefined) {
    // At the stamp's size: the state the stamp (and so this answer) describes.
    const line = readLastLine(src.path, undefined, stamp.size);
    t = line === null ? null : harness.lastLineTime!(line);
    lastTimes.set(k, t);
  }
  return t;
}

/**
 * The time after which a horizon lets the source be left unread
 * (mayLeaveUnread(src, harness, stamp, h) holds exactly for h > this), null when none does: what a
 * report's warnings are filtered with without the source at hand (store/ready.ts).
 */
export function mayLeaveUnreadAfter(src: SourceRef, harness: Harness, stamp: Stamp | null): number | null {
  if (stamp === null || harness.lastLineTime === undefined) return null;
  if (src.kind === 'jsonl.zst') return harness.sealedWhenCompressed === true ? stamp.mtimeMs : null;
  if (src.kind !== 'jsonl') return null;
  const t = lastLineTime(src, harness, stamp);
  return t === null ? null : Math.max(stamp.mtimeMs, t);
}
