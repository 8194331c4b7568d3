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
// 5: sources as folders and lines, their meta as text read when a source is read.
const RECORD_VERSION = 5;
const KIND = 'discovery-record';

/**
 * A harness's sources as stored, in discovery order. Every run that misses
 * the report memo loads the record (10 142 sources at the 3 GiB benchmark
 * corpus): each source is one line of `files`, `folder index TAB name TAB
 * key ('' when the path) TAB kind TAB companions (joined by U+001F)`, its
 * folder once in `dirs`; the harness's per-source meta (what only its
 * extractor reads) is one JSON text, parsed when a source is to be read
 * (withMeta), not for the sources a run only stats. As arrays of arrays and
 * objects, the record cost a fresh process ~85 ms of CPU to parse at 3 GiB.
 */
interface StoredScan {
  harness: HarnessId;
  roots: RootSpec[];
  dirs: string[];
  files: string;
  /** JSON of (meta | 0)[], in the order of `files`. */
  meta: string;
}

const FIELD = '\t';
const LIST = '\u001f';
/** A name, key or companion with a tab, newline, U+001F or backslash in it is written escaped (backslash, then t, n, f or itself). */
const SPECIAL = /[\\\t\n\u001f]/g;
const HAS_SPECIAL = /[\\\t\n\u001f]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\u001f': '\\f' };
const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', f: '\u001f' };
const esc = (v: string) => (HAS_SPECIAL.test(v) ? v.replace(SPECIAL, (c) => ESCAPES[c]!) : v);
const unesc = (v: string) => (v.includes('\\') ? v.replace(/\\(.)/g, (_, c: string) => UNESCAPES[c] ?? c) : v);

function storeScan(s: ScanFacts): StoredScan {
  const dirs: string[] = [];
  const index = new Map<string, number>();
  const lines: string[] = [];
  for (const x of s.sources) {
    // The folder with its separator ('' for a bare name), so the path is folder + name on any platform.
    const cut = Math.max(x.path.lastIndexOf('/'), x.path.lastIndexOf('\\'));
    const dir = x.path.slice(0, cut + 1);
    let d = index.get(dir);
    if (d === undefined) {
      d = dirs.length;
      dirs.push(dir);
      index.set(dir, d);
    }
    lines.push(
      [
        d,
        esc(x.path.slice(cut + 1)),
        x.key === x.path ? '' : esc(x.key),
        x.kind,
        x.companions?.length ? x.companions.map(esc).join(LIST) : '',
      ].join(FIELD),
    );
  }
  return {
    harness: s.harness.id,
    roots: s.roots,
    dirs,
    files: lines.join('\n'),
    meta: JSON.stringify(s.sources.map((x) => x.meta ?? 0)),
  };
}

/**
 * The source with its meta, for reading it. A source replayed from a record
 * has its meta filled from the record's text on first use (all of its
 * harness's at once, see replayScan); any other source already has it.
 */
export function withMeta(src: SourceRef): SourceRef {
  void src.meta;
  return src;
}

function replayScan(s: StoredScan): SourceRef[] {
  if (!s.files) return [];
  const dirs = s.dirs;
  const sources: SourceRef[] = [];
  for (const line of s.files.split('\n')) {
    const a = line.indexOf(FIELD);
    const b = line.indexOf(FIELD, a + 1);
    const c = line.indexOf(FIELD, b + 1);
    const d = line.indexOf(FIELD, c + 1);
    const path = dirs[Number(line.slice(0, a))] + unesc(line.slice(a + 1, b));
    const key = unesc(line.slice(b + 1, c));
    const ref: SourceRef = { harness: s.harness, key: key || path, path, kind: line.slice(c + 1, d) as SourceKind };
    if (d + 1 < line.length)
      ref.companions = line
        .slice(d + 1)
        .split(LIST)
        .map(unesc);
    sources.push(ref);
  }
  // The meta is parsed on first use, by anyone (an extractor, the live
  // snapshot, a record saved again): each replayed ref carries an accessor
  // that fills every ref of the scan with a plain property. A copy made by
  // spreading or structured cloning reads it too, so no reader can see a
  // source without the meta it was discovered with.
  let metas: (Record<string, string> | 0)[] | null = null;
  const fill = () => {
    metas ??= JSON.parse(s.meta) as (Record<string, string> | 0)[];
    sources.forEach((ref, i) => {
      const m = metas![i];
      Object.defineProperty(ref, 'meta', {
        value: m ? m : undefined,
        enumerable: m !== 0,
        writable: true,
        configurable: true,
      });
    });
  };
  for (const ref of sources)
    Object.defineProperty(ref, 'meta', {
      enumerable: true,
      configurable: true,
      get() {
        fill();
        return ref.meta;
      },
      set(v: Record<string, string> | undefined) {
        fill();
        ref.meta = v;
      },
    });
  return sources;
}

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
  scans: StoredScan[];
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
export function watchedEnv(env: NodeJS.ProcessEnv): {
  env: NodeJS.ProcessEnv;
  reads: Map<string, string | null>;
  enumerated: () => boolean;
} {
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
    scans: scans.map(storeScan),
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
  const scans = r.scans.map((s) => ({ harness: { id: s.harness }, roots: s.roots, sources: replayScan(s) }));
  return { scans, warnings: [...r.warnings] };
}
