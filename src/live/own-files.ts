// The status line's own session: the responses appended to its transcripts
// since the snapshot, read as the next ingest will read them (the harness's
// extractor, from the store's resume point and state, after the same check
// that the file was only appended to: same inode, same bytes before the
// resume point). Nothing else is read: the rest comes from the snapshot.
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { UsageEvent } from '../core/types.js';
import type { HarnessId } from '../core/types.js';
import { harnessById } from '../harnesses/registry.js';
import { collectSource } from '../ingest/collect.js';
import { tailHash } from '../ingest/tail.js';
import type { LiveSnapshot, SnapSource } from './snapshot.js';

export interface OwnAppends {
  events: UsageEvent[];
  /** Files read and bytes they had grown by. */
  files: number;
  bytes: number;
  /** Why the appends cannot be known exactly (a file the snapshot does not know, or rewritten); null when they can. */
  unproven: string | null;
}

function inode(path: string): { size: number; ino: string } | null {
  try {
    // As the ingest stamps a source (ingest/stamp.ts): device:inode.
    const s = statSync(path);
    return { size: s.size, ino: `${s.dev}:${s.ino}` };
  } catch {
    return null;
  }
}

/** The session's transcripts the snapshot knows: the one Claude Code names, and every listed source with rows of the session. */
export function ownFiles(
  snap: LiveSnapshot,
  harness: string,
  session: string,
  transcriptPath: string | null,
): { known: SnapSource[]; unknown: string[] } {
  const known = Object.values(snap.sources).filter(
    (s) => s.harness === harness && (s.sessions.includes(session) || s.path === transcriptPath),
  );
  const unknown =
    transcriptPath && !snap.sources[transcriptPath] && inode(transcriptPath) !== null ? [transcriptPath] : [];
  return { known, unknown };
}

export async function readOwnAppends(
  snap: LiveSnapshot,
  harness: string,
  session: string,
  transcriptPath: string | null,
): Promise<OwnAppends> {
  const out: OwnAppends = { events: [], files: 0, bytes: 0, unproven: null };
  const { known, unknown } = ownFiles(snap, harness, session, transcriptPath);
  if (unknown.length) out.unproven = `${unknown[0]} is not in the snapshot yet`;
  for (const src of known) {
    const st = inode(src.path);
    if (!st) continue; // gone: the store keeps its rows until the next ingest forgets them
    if (st.ino === src.ino && st.size === src.size) continue;
    // A harness whose extractor continues a transcript alone; the others' changes are left to the store.
    const h = harnessById(src.harness as HarnessId);
    const extract = h?.resumesAlone ? h.extract : null;
    const ok =
      extract &&
      src.kind === 'jsonl' &&
      st.ino === src.ino &&
      st.size > src.size &&
      src.resume_offset !== null &&
      src.resume_offset <= st.size &&
      src.tail_hash !== null &&
      tailHash(src.path, src.resume_offset) === src.tail_hash;
    if (!ok) {
      out.unproven ??= `${src.path} was rewritten since the snapshot`;
      continue;
    }
    const resume = {
      offset: src.resume_offset!,
      lines: src.resume_lines ?? 0,
      state: src.resume_state === null ? undefined : JSON.parse(src.resume_state),
    };
    const c = await collectSource(
      { extract: extract!, displayName: src.harness },
      { harness: src.harness, key: src.key, path: src.path, kind: src.kind, meta: src.meta },
      { resume, tmpDir: tmpdir(), knownProjects: new Set() },
    );
    if (c.failed) {
      out.unproven ??= `${src.path} could not be read`;
      continue;
    }
    out.files++;
    out.bytes += st.size - src.resume_offset!;
    out.events.push(...c.events);
  }
  return out;
}
