// Finding the sources and stamping them (size, mtime, inode, companions):
// everything the ingest and the warm fast path need to decide whether
// anything changed. Deliberately free of the store, so a run that finds
// nothing changed never loads DuckDB.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { HarnessId } from '../core/types.js';
import { HARNESSES } from '../harnesses/registry.js';
import type { Harness, PathContext, RootSpec, SourceRef } from '../harnesses/types.js';

export interface HarnessScan {
  harness: Harness;
  roots: RootSpec[];
  sources: SourceRef[];
}

export interface DiscoverOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  rootOverrides: Partial<Record<HarnessId, string[]>>;
}

export async function discoverAll(opts: DiscoverOptions, warnings: string[]): Promise<HarnessScan[]> {
  return Promise.all(
    HARNESSES.map(async (harness) => {
      const ctx: PathContext = { home: opts.home, env: opts.env, rootOverrides: opts.rootOverrides[harness.id] ?? [] };
      const roots = harness.roots(ctx);
      const sources = await harness.discover(roots, (m, at) => warnings.push(`${at.file}: ${m}`));
      return { harness, roots, sources };
    }),
  );
}

export interface Stamp {
  size: number;
  /** device:inode of the source itself. */
  ino: string;
  /** size:mtime:inode of the source, size:mtime of each companion: changes when any of them does. */
  fingerprint: string;
}

/** Stamps one source; null when the source itself cannot be stat'ed. */
export function stampOf(src: SourceRef): Stamp | null {
  let st;
  try {
    st = statSync(src.path);
  } catch {
    return null;
  }
  const parts = [`${st.size}:${st.mtimeMs}:${st.ino}`];
  for (const c of src.companions ?? []) {
    try {
      const cs = statSync(c);
      parts.push(`${cs.size}:${cs.mtimeMs}`);
    } catch {
      parts.push('-');
    }
  }
  return { size: st.size, ino: `${st.dev}:${st.ino}`, fingerprint: parts.join('|') };
}

/** Raw fingerprints (no ingest-phase extras) of every discovered source, by source key; 'missing' when it cannot be stat'ed. */
export function stampAll(scans: HarnessScan[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of scans) for (const src of s.sources) out.set(src.key, stampOf(src)?.fingerprint ?? 'missing');
  return out;
}

/** One digest of what was found: roots, discovery warnings and every source's fingerprint. */
export function scanDigest(scans: HarnessScan[], fingerprints: Map<string, string>, discoveryWarnings: string[]): string {
  const h = createHash('sha256');
  for (const s of scans) {
    h.update(`H${s.harness.id}\n`);
    for (const r of s.roots) h.update(`R${r.path}\t${r.origin}\t${r.exists}\n`);
    const keys = s.sources.map((x) => x.key).sort();
    for (const k of keys) h.update(`S${k}\t${fingerprints.get(k) ?? 'missing'}\n`);
  }
  for (const w of discoveryWarnings) h.update(`W${w}\n`);
  return h.digest('hex');
}

export const TAIL_BYTES = 256;

/** Bytes tailHash reads for a resume point at `offset`. */
export function tailCheckBytes(offset: number): number {
  return Math.min(offset, TAIL_BYTES) + Math.min(Math.max(0, offset - TAIL_BYTES), TAIL_BYTES);
}

/**
 * Hash of the first and the last TAIL_BYTES bytes before `offset`: if they
 * are still the same next run, the file was only appended to and can be
 * resumed there. The head catches a file rewritten with a regular layout
 * whose bytes just before the old resume point happen to repeat.
 */
export function tailHash(path: string, offset: number): string | null {
  if (offset <= 0) return null;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const h = createHash('sha1');
    const headLen = Math.min(offset, TAIL_BYTES);
    const tailStart = Math.max(headLen, offset - TAIL_BYTES);
    for (const [start, len] of [
      [0, headLen],
      [tailStart, offset - tailStart],
    ] as const) {
      if (len <= 0) continue;
      const buf = Buffer.alloc(len);
      if (readSync(fd, buf, 0, len, start) !== len) return null;
      h.update(buf);
    }
    return h.digest('hex');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Where the ingest leaves, next to the store, the index of the sources the store knows (see early.ts). */
export function sidecarPath(dbPath: string): string | null {
  return dbPath === ':memory:' ? null : `${dbPath}.sources.json`;
}

// Hand-offs within one process, so the warm fast path and the ingest that
// may follow it do not search twice and the memo learns what was ingested.
let offered: { opts: DiscoverOptions; scans: HarnessScan[]; warnings: string[] } | null = null;
let lastDigest: string | null = null;

/** Offers sources just discovered with `opts` to the next ingest with the same options (taken once). */
export function offerDiscovery(opts: DiscoverOptions, scans: HarnessScan[], warnings: string[]): void {
  offered = { opts: { home: opts.home, env: opts.env, rootOverrides: opts.rootOverrides }, scans, warnings: [...warnings] };
}

export function takeOfferedDiscovery(opts: DiscoverOptions): { scans: HarnessScan[]; warnings: string[] } | null {
  const o = offered;
  offered = null;
  if (!o || o.opts.home !== opts.home || o.opts.env !== opts.env || JSON.stringify(o.opts.rootOverrides) !== JSON.stringify(opts.rootOverrides)) return null;
  return { scans: o.scans, warnings: o.warnings };
}

/** Digest (see scanDigest) of the sources the last ingest in this process brought the store up to date with. */
export function lastIngestDigest(): string | null {
  return lastDigest;
}

export function setLastIngestDigest(d: string | null): void {
  lastDigest = d;
}
