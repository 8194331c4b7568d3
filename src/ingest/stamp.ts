// Stamps of sources (size, mtime, inode, companions) and the digest of a
// discovery: what the ingest and the warm fast path compare to decide
// whether anything changed. Free of the harness registry, so that a report
// answered from its memo never loads a harness module.
import type { HarnessId } from '../core/types.js';
import type { RootSpec, SourceRef } from '../harnesses/types.js';
import { digest128 } from '../core/digest.js';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';

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

/**
 * The stat pass of stampAll in a thread of its own (issue 37): one stat per
 * source is what every run that is not a memo hit pays before its first
 * query, growing with the number of files (~140 ms of the main thread for
 * 10 142 sources at the 3 GiB benchmark corpus). Started as soon as the
 * sources are known, it runs while the main thread loads the report code and
 * DuckDB and opens the store; the ingest awaits it. The numbers come back in
 * one typed array and are made into the very stamps stampOf makes (the same
 * Number-to-text of the same values). Below `minSources`, or where a worker
 * cannot start, the stat pass runs here.
 */
/** Stat passes answered by a worker thread in this process (tests check the thread was used). */
export const statThreads = { answered: 0 };

export async function stampAllConcurrently(scans: ScanFacts[], minSources = 1000): Promise<Map<string, Stamp | null>> {
  const sources = scans.flatMap((s) => s.sources);
  if (sources.length < minSources) return stampAll(scans);
  // Loaded here, not at start-up: a memo hit never needs worker threads. (By
  // require: a dynamic import() has no loader in the bundle's cached code.)
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  let worker: InstanceType<typeof Worker>;
  try {
    worker = new Worker(STAT_WORKER, { eval: true, workerData: { paths: sources.map((x) => x.path), companions: sources.map((x) => x.companions ?? 0) } });
  } catch {
    return stampAll(scans);
  }
  return await new Promise<Map<string, Stamp | null>>((resolve) => {
    let settled = false;
    const fallback = () => {
      if (settled) return;
      settled = true;
      resolve(stampAll(scans));
    };
    worker.once('message', (m: { nums: Float64Array; extra: Record<number, string> }) => {
      if (settled) return;
      settled = true;
      statThreads.answered++;
      const out = new Map<string, Stamp | null>();
      const n = m.nums;
      sources.forEach((src, i) => {
        const size = n[4 * i]!;
        if (Number.isNaN(size)) return void out.set(src.key, null);
        const mtimeMs = n[4 * i + 1]!;
        const ino = n[4 * i + 2]!;
        out.set(src.key, { size, ino: `${n[4 * i + 3]}:${ino}`, fingerprint: `${size}:${mtimeMs}:${ino}${m.extra[i] ?? ''}`, mtimeMs });
      });
      resolve(out);
    });
    worker.once('error', fallback);
    worker.once('exit', fallback);
  });
}

/** stampOf's stats, in a worker: per source size, mtimeMs, ino, dev (NaN: cannot be stat'ed) and its companions' part of the fingerprint. */
const STAT_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const { paths, companions } = workerData;
const stat = (p) => { try { return statSync(p, { throwIfNoEntry: false }); } catch { return undefined; } };
const nums = new Float64Array(paths.length * 4).fill(NaN);
const extra = {};
for (let i = 0; i < paths.length; i++) {
  const st = stat(paths[i]);
  if (!st) continue;
  nums[4 * i] = st.size; nums[4 * i + 1] = st.mtimeMs; nums[4 * i + 2] = st.ino; nums[4 * i + 3] = st.dev;
  if (companions[i]) {
    let f = '';
    for (const c of companions[i]) { const cs = stat(c); f += cs ? '|' + cs.size + ':' + cs.mtimeMs : '|-'; }
    extra[i] = f;
  }
}
parentPort.postMessage({ nums, extra }, [nums.buffer]);
`;

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
