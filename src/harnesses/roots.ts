// Root resolution shared by all harnesses: flag, then environment override, then default.
import { join, resolve, sep } from 'node:path';
// Discovery asks the file system through observed-fs, so that what it found
// can be shown to be still valid without running it again.
import { exists, kindOf, listDir, realpath, type DirEntry } from '../io/observed-fs.js';
import type { SourceLocation } from '../core/types.js';
import type { PathContext, RootSpec } from './types.js';

function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

export function isDir(p: string): boolean {
  return kindOf(p) === 'dir';
}

export function isFile(p: string): boolean {
  return kindOf(p) === 'file';
}

/**
 * @param envVars environment variables in priority order; a value may be a
 *   comma-separated list when `listEnv` is set.
 * @param defaults paths relative to $HOME used when neither flag nor env is set.
 * @param mapRoot turns a configured directory into the directory actually searched.
 */
export function resolveRoots(
  ctx: PathContext,
  opts: {
    envVars: string[];
    listEnv?: boolean;
    defaults: string[];
    mapRoot?: (dir: string) => string;
  },
): RootSpec[] {
  const map = opts.mapRoot ?? ((d: string) => d);
  const mk = (p: string, origin: string): RootSpec => {
    const path = map(resolve(expandHome(p, ctx.home)));
    return { path, origin, exists: exists(path) };
  };
  if (ctx.rootOverrides.length) return ctx.rootOverrides.map((p) => mk(p, '--root'));
  for (const name of opts.envVars) {
    const v = ctx.env[name];
    if (v && v.trim()) {
      const parts = opts.listEnv ? v.split(',').map((s) => s.trim()).filter(Boolean) : [v.trim()];
      return parts.map((p) => mk(p, name));
    }
  }
  return opts.defaults.map((d) => mk(join(ctx.home, d), 'default'));
}

/** The entries of `dir` by name, or null (with a warning naming it) when it cannot be listed. */
export function listDirWarned(dir: string, warn: (m: string, at: SourceLocation) => void): DirEntry[] | null {
  try {
    return listDir(dir).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (e) {
    warn(`cannot read directory: ${(e as Error).message}`, { file: dir });
    return null;
  }
}

/** Recursively lists files under `dir` whose name passes `accept`. Missing or unreadable dirs yield nothing. */
export async function walkFiles(
  dir: string,
  accept: (name: string, path: string) => boolean,
  onError?: (path: string, err: Error) => void,
  maxDepth = 12,
  /** Told the root walked and the files found that are symbolic links, to resolve real paths cheaply. */
  realPaths?: RealPaths,
): Promise<string[]> {
  realPaths?.addRoot(dir);
  const out: string[] = [];
  async function walk(d: string, depth: number) {
    let entries;
    try {
      // Synchronous: a walk of hundreds of small directories is dominated by
      // thread-pool round trips when each readdir is awaited.
      entries = listDir(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') onError?.(d, e as Error);
      return;
    }
    // `d` is normalized and a name has no separator: concatenation is what
    // join would give (join was a tenth of discovery's time).
    const prefix = d.endsWith(sep) ? d : d + sep;
    for (const ent of entries) {
      const p = prefix + ent.name;
      if (ent.kind === 'dir') {
        // A directory named like a transcript is reported, not searched.
        if (accept(ent.name, p)) onError?.(p, new Error('is a directory, not a file'));
        else if (depth < maxDepth) await walk(p, depth + 1);
      } else if ((ent.kind === 'file' || ent.kind === 'link') && accept(ent.name, p)) {
        out.push(p);
        if (realPaths && ent.kind === 'link') realPaths.links.add(p);
      }
    }
  }
  await walk(dir, 0);
  out.sort();
  return out;
}

/**
 * Real paths (source keys) of files found by walkFiles: walkFiles never
 * follows a linked folder (a Dirent of a link is not a directory), so below
 * a walked root only the root itself and files that are links can hide a
 * link. A plain file's real path is then its root's real path (resolved once)
 * and the rest of its path; only links are resolved one by one. Same answers
 * as realpath per file, without a system call per file (that was a fifth of
 * the warm run's time).
 */
export class RealPaths {
  private readonly roots: { path: string; prefix: string; real: string | null }[] = [];
  /** Files found that are symbolic links (filled by walkFiles). */
  readonly links = new Set<string>();

  /** Called by walkFiles for each folder it walks from. */
  addRoot(dir: string): void {
    // null for an unreadable root: walkFiles finds nothing there.
    const real = realpath(dir);
    this.roots.push({ path: dir, prefix: dir.endsWith(sep) ? dir : dir + sep, real });
  }

  /** The real path of `file`, or `file` itself when it cannot be resolved (a dangling link: extraction reports it). */
  of(file: string): string {
    if (!this.links.has(file)) {
      for (let i = this.roots.length - 1; i >= 0; i--) {
        const r = this.roots[i]!;
        // Both parts are normalized: concatenation is what join would give.
        if (r.real !== null && file.startsWith(r.prefix)) return (r.real.endsWith(sep) ? r.real : r.real + sep) + file.slice(r.prefix.length);
      }
    }
    return realpath(file) ?? file;
  }
}
