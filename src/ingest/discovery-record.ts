// A discovery, recorded with every file-system answer it was given and every
// environment variable it read (src/io/observed-fs.ts), so that the next run
// can show it still holds — one stat per folder — instead of running it
// again. On a warm run that is what lets tx-usage answer without reading 400
// folders or loading a harness module. A record whose answers no longer all
// hold is discarded and discovery runs again (and is recorded again).
import { readFileSync } from 'node:fs';
import { ownJson, replaceOwnFile } from '../io/own-file.js';
import type { HarnessId } from '../core/types.js';
import type { RootSpec, SourceKind, SourceRef } from '../harnesses/types.js';
import { stillHolds, type Observation } from '../io/observed-fs.js';
import type { ScanFacts } from './stamp.js';
import { digest128 } from '../core/digest.js';

// 4: digests by SHA-256 (core/digest.ts) instead of XXH64.
const RECORD_VERSION = 4;
const KIND = 'discovery-record';

/** A source as stored: path, key ('' when the same as the path), kind, companions, meta. */
type StoredSource = [string, string, SourceKind, string[] | 0, Record<string, string> | 0];

export interface DiscoveryRecord {
  v: number;
  /** The build that recorded it (set by the caller): another build may discover differently. */
  build?: string;
  /** The home and --root overrides discovery ran with (JSON). */
  basis: string;
  /** Environment variables read, with their values (null: unset). */
  env: [string, string | null][];
  /** Set when discovery enumerated the environment: a hash of all of it. */
  envAll: string | null;
  obs: Observation[];
  scans: { harness: HarnessId; roots: RootSpec[]; sources: StoredSource[] }[];
  warnings: string[];
}

export interface RecordOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  rootOverrides: Partial<Record<HarnessId, string[]>>;
}

function basisOf(o: RecordOptions): string {
  return JSON.stringify({ home: o.home, roots: Object.entries(o.rootOverrides).sort(([a], [b]) => (a < b ? -1 : 1)) });
}

function envHash(env: NodeJS.ProcessEnv): string {
  const entries = Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1));
  return digest128(JSON.stringify(entries));
}

/** An environment that notes which variables are read (and whether all of it was enumerated). */
export function watchedEnv(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; reads: Map<string, string | null>; enumerated: () => boolean } {
  const reads = new Map<string, string | null>();
  let all = false;
  const proxy = new Proxy(env, {
    get(t, k) {
      if (typeof k === 'string' && !reads.has(k)) reads.set(k, t[k] ?? null);
      return Reflect.get(t, k);
    },
    has(t, k) {
      if (typeof k === 'string' && !reads.has(k)) reads.set(k, t[k] ?? null);
      return Reflect.has(t, k);
    },
    ownKeys(t) {
      all = true;
      return Reflect.ownKeys(t);
    },
  });
  return { env: proxy, reads, enumerated: () => all };
}

export function makeRecord(
  o: RecordOptions,
  watched: ReturnType<typeof watchedEnv>,
  obs: Observation[],
  scans: ScanFacts[],
  warnings: string[],
): DiscoveryRecord {
  return {
    v: RECORD_VERSION,
    basis: basisOf(o),
    env: [...watched.reads],
    envAll: watched.enumerated() ? envHash(o.env) : null,
    obs,
    scans: scans.map((s) => ({
      harness: s.harness.id,
      roots: s.roots,
      sources: s.sources.map((x): StoredSource => [x.path, x.key === x.path ? '' : x.key, x.kind, x.companions?.length ? x.companions : 0, x.meta ?? 0]),
    })),
    warnings,
  };
}

export function loadRecord(path: string): DiscoveryRecord | null {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as DiscoveryRecord;
    return r.v === RECORD_VERSION ? r : null;
  } catch {
    return null;
  }
}

/** A record that cannot be written only costs speed next time; a file there that is not tx-usage's is left alone (io/own-file.ts). */
export function saveRecord(path: string, r: DiscoveryRecord): void {
  replaceOwnFile(path, ownJson(KIND, r), KIND, ['{"v":']);
}

/** What the recorded discovery found, if it still holds for these options; null when discovery must run again. */
export function replayRecord(r: DiscoveryRecord, o: RecordOptions): { scans: ScanFacts[]; warnings: string[] } | null {
  if (r.basis !== basisOf(o)) return null;
  for (const [k, v] of r.env) if ((o.env[k] ?? null) !== v) return null;
  if (r.envAll !== null && r.envAll !== envHash(o.env)) return null;
  if (!stillHolds(r.obs)) return null;
  const scans = r.scans.map((s) => ({
    harness: { id: s.harness },
    roots: s.roots,
    sources: s.sources.map(([path, key, kind, companions, meta]): SourceRef => {
      const ref: SourceRef = { harness: s.harness, key: key || path, path, kind };
      if (companions) ref.companions = companions;
      if (meta) ref.meta = meta;
      return ref;
    }),
  }));
  return { scans, warnings: [...r.warnings] };
}
