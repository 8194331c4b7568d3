// Planning an ingest phase: for each source, from its stamp and what the
// store remembers of it, whether it is unchanged, left unread under the
// horizon (horizon.ts), appended to (only the new bytes are read) or read
// whole. Reads nothing but the few bytes that prove an append (tail.ts).
import type { DuckDBConnection } from '@duckdb/node-api';
import type { HarnessId } from '../core/types.js';
import type { Harness, SourceRef } from '../harnesses/types.js';
import { digest128 } from '../core/digest.js';
import { loadSourceBook, type SourceBookRow } from '../store/write.js';
import { mayLeaveUnread } from './horizon.js';
import type { Stamp } from './stamp.js';
import { tailCheckBytes, tailHash } from './tail.js';

/** A source to read this run: whole ('full') or from its resume point ('append'), and how many bytes that is. */
export type Plan = {
  src: SourceRef;
  harness: Harness;
  stamp: Stamp;
  mode: 'full' | 'append';
  prev: SourceBookRow | null;
  bytes: number;
};

export type Item = { src: SourceRef; harness: Harness };

/** A source's plan from its stamp and its bookkeeping row (null: unchanged). Adds the bytes read to prove an append to `checked`. */
export function planSource(
  src: SourceRef,
  harness: Harness,
  stamp: Stamp,
  prev: SourceBookRow | undefined,
  checked: { tailCheckBytes: number },
): Plan | null {
  if (prev && prev.fingerprint === stamp.fingerprint) return null;
  // Append-only JSONL that only grew, same inode, same bytes before the
  // resume point: read just the new bytes.
  if (
    prev &&
    src.kind === 'jsonl' &&
    prev.kind === 'jsonl' &&
    prev.ino === stamp.ino &&
    prev.resume_offset !== null &&
    stamp.size > prev.size &&
    prev.resume_offset <= stamp.size &&
    prev.tail_hash !== null
  ) {
    checked.tailCheckBytes += tailCheckBytes(prev.resume_offset);
    if (tailHash(src.path, prev.resume_offset) === prev.tail_hash) {
      return { src, harness, stamp, mode: 'append', prev, bytes: stamp.size - prev.resume_offset };
    }
  }
  return { src, harness, stamp, mode: 'full', prev: prev ?? null, bytes: stamp.size };
}

export interface PhaseInput {
  items: Item[];
  /** Cursor's phase: projects resolved from the other harnesses' (knownProjects). */
  known: boolean;
  /** Sources left unread by an earlier phase may not be left unread again. */
  late: boolean;
}

export interface PhasePlan {
  plans: Plan[];
  /** Sources the store has as they are. */
  unchanged: number;
  /** Sources left unread under the horizon. */
  deferred: Item[];
  /** The projects the phase's extractors are told of (empty unless `known`). */
  knownProjects: Set<string>;
}

/**
 * What a phase reads. `fingerprints`: every known source's, from the store;
 * `stamps`: this run's; `horizon`: see horizon.ts (null: nothing deferred);
 * `earlyKeys`: sources being read early (never deferred).
 */
export async function planPhase(
  conn: DuckDBConnection,
  phase: PhaseInput,
  ctx: {
    fingerprints: Map<string, string>;
    stamps: Map<string, Stamp | null>;
    horizon: number | null;
    earlyKeys: (key: string) => boolean;
    checked: { tailCheckBytes: number };
  },
): Promise<PhasePlan> {
  const projects = phase.known ? await knownProjects(conn) : new Set<string>();
  const extra = phase.known ? digest128([...projects].sort().join('\n')) : '';
  const stamped = phase.items.map(({ src, harness }) => {
    const st = ctx.stamps.get(src.key) ?? null;
    // A phase that reads the known projects changes when they do. (An imported usage CSV resolves no projects: its rows do not depend on them.)
    return {
      src,
      harness,
      stamp: st && extra && src.kind !== 'csv' ? { ...st, fingerprint: `${st.fingerprint}|${extra}` } : st,
    };
  });
  // Whole bookkeeping rows only for the known sources that changed.
  const book = await loadSourceBook(
    conn,
    stamped
      .filter((x) => ctx.fingerprints.has(x.src.key) && ctx.fingerprints.get(x.src.key) !== x.stamp?.fingerprint)
      .map((x) => x.src.key),
  );
  const out: PhasePlan = { plans: [], unchanged: 0, deferred: [], knownProjects: projects };
  for (const { src, harness, stamp } of stamped) {
    if (stamp && ctx.fingerprints.get(src.key) === stamp.fingerprint) {
      out.unchanged++;
      continue;
    }
    if (
      !phase.late &&
      !ctx.fingerprints.has(src.key) &&
      !ctx.earlyKeys(src.key) &&
      mayLeaveUnread(src, harness, stamp, ctx.horizon)
    ) {
      out.deferred.push({ src, harness });
      continue;
    }
    const prev = book.get(src.key);
    // A source that cannot even be stat'ed still gets extracted, so its
    // failure is reported as a warning naming it.
    const plan = stamp
      ? planSource(src, harness, stamp, prev, ctx.checked)
      : {
          src,
          harness,
          stamp: { size: 0, ino: '', fingerprint: `missing:${Date.now()}`, mtimeMs: 0 },
          mode: 'full' as const,
          prev: prev ?? null,
          bytes: 0,
        };
    if (plan) out.plans.push(plan);
    else out.unchanged++;
  }
  return out;
}

/** The projects other harnesses' responses name (Cursor resolves its chats' folders against them). */
export async function knownProjects(conn: DuckDBConnection): Promise<Set<string>> {
  const r = await conn.runAndReadAll(`SELECT DISTINCT project FROM usage_events WHERE project IS NOT NULL`);
  return new Set((r.getRowObjectsJson() as { project: string }[]).map((x) => x.project));
}

/** Deferred sources by harness. */
export function byHarness(items: Item[], into: Map<HarnessId, Item[]>): void {
  for (const it of items) {
    const list = into.get(it.harness.id) ?? [];
    if (!list.length) into.set(it.harness.id, list);
    list.push(it);
  }
}
