// The numbers of a stat (device, inode, size, mtime, ctime, kind) without
// an fs.Stats object. A warm run stats every source and every listed folder
// (~2 700 paths for the benchmark's history) and fs.statSync builds a Stats
// with four Date objects for each: 13-20 ms here in a fresh process, against
// 5-7 ms for reading the numbers that Node's own binding leaves in its shared
// array, which is what statSync does before it builds the object.
//
// That binding is internal (process.binding, deprecated in documentation
// only), so it is used only when this Node calls it exactly as checked below
// and gives the same numbers as statSync for a file that surely exists;
// anything else (another Node, --pending-deprecation, the permission model,
// Windows) uses statSync. Both give the same numbers, so stamps compare
// equal whichever made them.
import { statSync } from 'node:fs';

export interface StatNumbers {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  isFile: boolean;
  isDirectory: boolean;
}

type RawStat = (path: string) => Float64Array | undefined;

// Offsets in the binding's stat array (lib/internal/fs/utils.js, getStatsFromBinding).
const DEV = 0;
const MODE = 1;
const INO = 7;
const SIZE = 8;
const MTIME_S = 12;
const MTIME_NS = 13;
const CTIME_S = 14;
const CTIME_NS = 15;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/** How Node 20's statSync calls its binding, white space removed: the binding is used only when this is how. */
const EXPECTED_CALL = 'binding.stat(pathModule.toNamespacedPath(path),options.bigint,undefined,options.throwIfNoEntry,)';

/** Milliseconds as Node computes them for Stats (msFromTimeSpec), so the values are the same to the bit. */
const ms = (sec: number, nsec: number): number => sec * 1e3 + nsec / 1e6;

function fromStats(s: import('node:fs').Stats): StatNumbers {
  return { dev: s.dev, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, isFile: s.isFile(), isDirectory: s.isDirectory() };
}

function fromArray(a: Float64Array): StatNumbers {
  const kind = a[MODE]! & S_IFMT;
  return {
    dev: a[DEV]!,
    ino: a[INO]!,
    size: a[SIZE]!,
    mtimeMs: ms(a[MTIME_S]!, a[MTIME_NS]!),
    ctimeMs: ms(a[CTIME_S]!, a[CTIME_NS]!),
    isFile: kind === S_IFREG,
    isDirectory: kind === S_IFDIR,
  };
}

function same(x: StatNumbers, y: StatNumbers): boolean {
  return (
    x.dev === y.dev && x.ino === y.ino && x.size === y.size && x.mtimeMs === y.mtimeMs && x.ctimeMs === y.ctimeMs && x.isFile === y.isFile && x.isDirectory === y.isDirectory
  );
}

/** The binding's stat when it is safe to call as statSync does (see the top of this file), else null. */
function checkedRawStat(): RawStat | null {
  if (process.platform === 'win32') return null; // statSync makes namespaced paths there
  const proc = process as unknown as { binding?: ((name: string) => unknown) & { name: string } };
  // Under --pending-deprecation process.binding is a wrapper that warns on use.
  if (typeof proc.binding !== 'function' || proc.binding.name !== 'binding') return null;
  if (statSync.toString().replace(/\s+/g, '').indexOf(EXPECTED_CALL) < 0) return null;
  try {
    const binding = proc.binding('fs') as { stat?: (p: string, bigint: boolean, req: undefined, throwIfNoEntry: boolean) => unknown };
    const stat = binding.stat;
    if (typeof stat !== 'function') return null;
    const raw: RawStat = (p) => stat.call(binding, p, false, undefined, false) as Float64Array | undefined;
    const probe = process.execPath;
    const a = raw(probe);
    if (!(a instanceof Float64Array) || a.length < CTIME_NS + 1) return null;
    return same(fromArray(a), fromStats(statSync(probe))) ? raw : null;
  } catch {
    return null; // e.g. the permission model refuses process.binding
  }
}

let raw: RawStat | null | undefined;

/** Whether statNumbers reads Node's binding (true) or goes through statSync (false); for tests and traces. */
export function statNumbersFast(): boolean {
  if (raw === undefined) raw = checkedRawStat();
  return raw !== null;
}

/**
 * stat(2) of `path`, following links: null when it does not exist; throws
 * what statSync throws for any other failure (EACCES, ENOTDIR...).
 */
export function statNumbers(path: string): StatNumbers | null {
  if (raw === undefined) raw = checkedRawStat();
  // A NUL byte would cut the path short in C: statSync refuses it with an error.
  if (raw === null || path.includes('\0')) {
    const s = statSync(path, { throwIfNoEntry: false });
    return s ? fromStats(s) : null;
  }
  const a = raw(path);
  return a === undefined ? null : fromArray(a);
}
