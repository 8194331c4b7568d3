// Stamps of sources (size, mtime, inode, companions) and the digest of a
// discovery: what the ingest and the warm fast path compare to decide
// whether anything changed. Free of the harness registry, so that a report
// answered from its memo never loads a harness module.
import type { HarnessId } from '../core/types.js';
import type { RootSpec, SourceRef } from '../harnesses/types.js';
import { digest128 } from '../core/digest.js';
import { statSync } from 'node:fs';

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
  /** size:mtime:inode of the source, size:mtime of each companion: changes when any of them does. */
  fingerprint: string;
  /** Modification time of the source itself (ms since the epoch). */
  mtimeMs: number;
}

/** Stamps one source; null when the source itself cannot be stat'ed. */
export function stampOf(src: SourceRef): Stamp | null {
  let st;
  try {
    st = statSync(src.path, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!st) return null;
  let fingerprint = `${st.size}:${st.mtimeMs}:${st.ino}`;
  for (const c of src.companions ?? []) {
    let cs;
    try {
      cs = statSync(c, { throwIfNoEntry: false });
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
