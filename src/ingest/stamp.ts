// Stamps of sources (size, mtime, inode, companions) and the digest of a
// discovery: what the ingest and the warm fast path compare to decide
// whether anything changed. Free of the harness registry, so that a report
// answered from its memo never loads a harness module.
import type { HarnessId } from '../core/types.js';
import type { RootSpec, SourceRef } from '../harnesses/types.js';
import { digest128 } from '../core/digest.js';
import { accessSync, constants, statSync } from 'node:fs';
import { fsPath } from '../io/raw-path.js';

/** What scanDigest needs of a harness's scan (a HarnessScan, or one replayed from a discovery record). */
export interface ScanFacts {
  harness: { id: HarnessId };
  roots: RootSpec[];
  sources: SourceRef[];
}

export interface Stamp {
  size: number;
  /** device:inode of the source itself. */
  ino: string;
  /**
   * size:mtime:inode of the source (and UNREADABLE when this process may not
   * read it: unreadableMark), size:mtime of each companion: changes when any of
   * them does.
   */
  fingerprint: string;
  /** Modification time of the source itself (ms since the epoch). */
  mtimeMs: number;
}

/** What a fingerprint carries, after the source's own size:mtime:inode, when the source cannot be read by this process (unreadableMark). */
export const UNREADABLE = ':unreadable';

/** This process's user and groups, for unreadableMark; null where file modes do not bind it (root) or do not exist (Windows). */
let self: { uid: number; gids: Set<number> } | null | undefined;

function whoAmI(): { uid: number; gids: Set<number> } | null {
  if (self !== undefined) return self;
  const uid = process.geteuid?.();
  if (uid === undefined || uid === 0) return (self = null);
  return (self = { uid, gids: new Set([process.getegid?.() ?? -1, ...(process.getgroups?.() ?? [])]) });
}

/**
 * UNREADABLE when this process may not read the file at `path`, else ''.
 * A file that turns unreadable (chmod) keeps its size and mtime: without
 * this mark its stamp would match the store's and the file would be passed
 * over as unchanged, in silence. With it, the stamp differs, the ingest tries
 * the file, the read fails, and the existing rule for a failed read applies
 * (its rows kept, a warning naming it, tried again every run). Decided from
 * the stat already taken (mode, owner, group: the permission check of
 * POSIX's "File Access Permissions", owner class first), so a readable file
 * costs no system call; only where the mode bits say no is access(2) asked,
 * since an ACL may still grant the read. Root's reads are not refused by
 * modes (CAP_DAC_OVERRIDE): never marked.
 */
export function unreadableMark(path: string, mode: number, uid: number, gid: number, me = whoAmI()): string {
  if (!me) return '';
  const bit = uid === me.uid ? 0o400 : me.gids.has(gid) ? 0o040 : 0o004;
  if (mode & bit) return '';
  try {
    accessSync(fsPath(path), constants.R_OK);
    return '';
  } catch {
    return UNREADABLE;
  }
}

/** Stamps one source; null when the source itself cannot be stat'ed. */
export function stampOf(src: SourceRef): Stamp | null {
  let st;
  try {
    st = statSync(fsPath(src.path), { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!st) return null;
  let fingerprint = `${st.size}:${st.mtimeMs}:${st.ino}${unreadableMark(src.path, st.mode, st.uid, st.gid)}`;
  for (const c of src.companions ?? []) {
    let cs;
    try {
      cs = statSync(fsPath(c), { throwIfNoEntry: false });
    } catch {
      cs = null;
    }
    fingerprint += cs ? `|${cs.size}:${cs.mtimeMs}` : '|-';
  }
  return { size: st.size, ino: `${st.dev}:${st.ino}`, fingerprint, mtimeMs: st.mtimeMs };
}

/** Stamps (raw fingerprints: no ingest-phase extras) of every discovered source, by source key; null when it cannot be stat'ed. */
export function stampAll(scans: ScanFacts[]): Map<string, Stamp | null> {
  const out = new Map<string, Stamp | null>();
  for (const s of scans) for (const src of s.sources) out.set(src.key, stampOf(src));
  return out;
}

/** The fingerprints of stamps, 'missing' for a source that could not be stat'ed. */
export function fingerprintsOf(stamps: Map<string, Stamp | null>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, st] of stamps) out.set(k, st?.fingerprint ?? 'missing');
  return out;
}

/** One digest of what was found: roots, discovery warnings and every source's fingerprint ('missing' when it cannot be stat'ed). */
export function scanDigest(scans: ScanFacts[], fingerprints: Map<string, string>, discoveryWarnings: string[]): string {
  // One string, hashed once: an update per source was most of the digest's time.
  const parts: string[] = [];
  for (const s of scans) {
    parts.push(`H${s.harness.id}\n`);
    for (const r of s.roots) parts.push(`R${r.path}\t${r.origin}\t${r.exists}\n`);
    for (const k of s.sources.map((x) => x.key).sort()) parts.push(`S${k}\t${fingerprints.get(k) ?? 'missing'}\n`);
  }
  for (const w of discoveryWarnings) parts.push(`W${w}\n`);
  return digest128(parts.join(''));
}
