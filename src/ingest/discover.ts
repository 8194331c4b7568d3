// Finding the sources (every harness's discovery, optionally recorded; see
// discovery-record.ts) and the tail hash that proves a file was only
// appended to. Stamps and the digest live in stamp.ts, free of the harness
// registry. Deliberately free of the store, so a run that finds nothing
// changed never loads DuckDB.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { HarnessId } from '../core/types.js';
import { HARNESSES, harnessById } from '../harnesses/registry.js';
import { startRecording, stopRecording } from '../io/observed-fs.js';
import { makeRecord, watchedEnv, type DiscoveryRecord } from './discovery-record.js';
import type { ScanFacts } from './stamp.js';
import type { Harness, PathContext, RootSpec, SourceRef } from '../harnesses/types.js';
export { scanDigest, stampAll, stampOf, type Stamp } from './stamp.js';
export { lastIngestDigest, offerDiscovery, setLastIngestDigest, sidecarPath, takeOfferedDiscovery } from './handoff.js';

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

/** discoverAll, with every answer it was given recorded (see discovery-record.ts). */
export async function discoverRecorded(opts: DiscoverOptions, warnings: string[], settle: { settleMs?: number } = {}): Promise<{ scans: HarnessScan[]; record: DiscoveryRecord }> {
  const watched = watchedEnv(opts.env);
  const obs = startRecording(settle);
  const mine: string[] = [];
  let scans: HarnessScan[];
  try {
    scans = await discoverAll({ ...opts, env: watched.env }, mine);
  } finally {
    stopRecording();
  }
  warnings.push(...mine);
  return { scans, record: makeRecord(opts, watched, obs, scans, mine) };
}

/** Full scans (with their harness objects) of scans replayed from a record. */
export function withHarnesses(scans: ScanFacts[]): HarnessScan[] {
  return scans.map((s) => ({ harness: harnessById(s.harness.id)!, roots: s.roots, sources: s.sources }));
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
