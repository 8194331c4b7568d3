// Finding the sources (every harness's discovery, optionally recorded; see
// discovery-record.ts). Stamps and the digest live in stamp.ts, the tail hash
// that proves a file was only appended to in tail.ts, both free of the
// harness registry. Deliberately free of the store, so a run that finds nothing
// changed never loads DuckDB.
import { formatLocation, type HarnessId, type SourceLocation } from '../core/types.js';
import { HARNESSES, harnessById } from '../harnesses/registry.js';
import { startRecording, stopRecording } from '../io/observed-fs.js';
import { makeRecord, watchedEnv, type DiscoveryRecord } from './discovery-record.js';
import type { ScanFacts } from './stamp.js';
import type { Harness, PathContext, RootSpec, SourceRef } from '../harnesses/types.js';
export { scanDigest, stampOf, type Stamp } from './stamp.js';
export { tailCheckBytes, tailHash } from './tail.js';

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

/**
 * discoverAll, with every answer it was given recorded (see
 * discovery-record.ts). The record is made when first
 * asked for: a cold run saves it once its early extraction is under way, and
 * making it (a copy of every source, the shape digest) was ~5 ms of the main
 * thread's time before the first transcript was read.
 */
export async function discoverRecorded(
  opts: DiscoverOptions,
  warnings: string[],
  settle: { settleMs?: number } = {},
): Promise<{ scans: HarnessScan[]; record: () => DiscoveryRecord }> {
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
  let made: DiscoveryRecord | null = null;
  return { scans, record: () => (made ??= makeRecord(opts, watched, obs, scans, mine)) };
}

/** Full scans (with their harness objects) of scans replayed from a record. */
export function withHarnesses(scans: ScanFacts[]): HarnessScan[] {
  return scans.map((s) => ({ harness: harnessById(s.harness.id)!, roots: s.roots, sources: s.sources }));
}

export async function discoverAll(opts: DiscoverOptions, warnings: string[]): Promise<HarnessScan[]> {
  return Promise.all(
    HARNESSES.map(async (harness) => {
      const warn = (m: string, at: SourceLocation) => warnings.push(`${formatLocation(at)}: ${m}`);
      const ctx: PathContext = {
        home: opts.home,
        env: opts.env,
        rootOverrides: opts.rootOverrides[harness.id] ?? [],
        warn,
      };
      const roots = harness.roots(ctx);
      const sources = await harness.discover(roots, warn);
      return { harness, roots, sources };
    }),
  );
}
