// Root resolution shared by all harnesses: flag, then environment override, then default.
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { PathContext, RootSpec } from './types.js';

function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
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
    return { path, origin, exists: existsSync(path) };
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

/** Recursively lists files under `dir` whose name passes `accept`. Missing or unreadable dirs yield nothing. */
export async function walkFiles(
  dir: string,
  accept: (name: string, path: string) => boolean,
  onError?: (path: string, err: Error) => void,
  maxDepth = 12,
  /** Filled with the files found that are symbolic links (see RealPaths). */
  links?: Set<string>,
): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string, depth: number) {
    let entries;
    try {
      // Synchronous: a walk of hundreds of small directories is dominated by
      // thread-pool round trips when each readdir is awaited.
      entries = readdirSync(d, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') onError?.(d, e as Error);
      return;
    }
    for (const ent of entries) {
      const p = join(d, ent.name);
      if (ent.isDirectory()) {
        // A directory named like a transcript is reported, not searched.
        if (accept(ent.name, p)) onError?.(p, new Error('is a directory, not a file'));
        else if (depth < maxDepth) await walk(p, depth + 1);
      } else if ((ent.isFile() || ent.isSymbolicLink()) && accept(ent.name, p)) {
        out.push(p);
        if (links && ent.isSymbolicLink()) links.add(p);
      }
    }
  }
  await walk(dir, 0);
  out.sort();
  return out;
}

/**
 * Real paths (source keys) of files found by walkFiles: a plain file's is
 * its folder's real path, resolved once per folder, and its name; only links
 * are resolved one by one. Same answers as realpath per file, without a
 * system call per file (it was a fifth of the warm run's time).
 */
export class RealPaths {
  private readonly dirs = new Map<string, string>();
  /** Pass to walkFiles. */
  readonly links = new Set<string>();

  /** The real path of `file`, or `file` itself when it cannot be resolved (a dangling link: extraction reports it). */
  of(file: string): string {
    try {
      if (this.links.has(file)) return realpathSync.native(file);
      const dir = dirname(file);
      let real = this.dirs.get(dir);
      if (real === undefined) {
        real = realpathSync.native(dir);
        this.dirs.set(dir, real);
      }
      return join(real, basename(file));
    } catch {
      return file;
    }
  }
}
