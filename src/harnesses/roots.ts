// Root resolution shared by all harnesses: flag, then environment override, then default.
import { join, resolve, sep } from 'node:path';
// Discovery asks the file system through observed-fs, so that what it found
// can be shown to be still valid without running it again.
import { exists, kindOf, listDir, realpath, type DirEntry } from '../io/observed-fs.js';
import type { SourceLocation } from '../core/types.js';
import type { PathContext, RootSpec } from './types.js';

export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

/**
 * A root as searched: whether it exists, and where it really is when it is
 * (or passes through) a symbolic link (`tx-usage sources` shows both).
 */
export function rootSpec(path: string, origin: string): RootSpec {
  const found = exists(path);
  const spec: RootSpec = { path, origin, exists: found };
  if (found) {
    const real = realpath(path);
    if (real !== null && real !== path) spec.target = real;
  }
  return spec;
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
    return rootSpec(map(resolve(expandHome(p, ctx.home))), origin);
  };
  if (ctx.rootOverrides.length) return ctx.rootOverrides.map((p) => mk(p, '--root'));
  for (const name of opts.envVars) {
    const v = ctx.env[name];
    if (v && v.trim()) {
      const parts = opts.listEnv
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [v.trim()];
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

/** Folders no harness keeps sessions in, whose walk never ends or reads the whole machine. */
const SYSTEM_FOLDERS = ['/proc', '/sys', '/dev'];

/**
 * Why the folder at real path `real` is never walked (a link into /proc,
 * /sys or /dev, or to `/`: `projects/-x -> /` walked the whole file system),
 * or null. Links elsewhere are followed (issue 34).
 */
export function systemFolder(real: string | null): string | null {
  if (real === null) return null;
  if (real === '/' || /^[A-Za-z]:\\?$/.test(real)) return `it is the root of the file system (${real})`;
  for (const f of SYSTEM_FOLDERS)
    if (real === f || real.startsWith(`${f}/`)) return `it is in ${f} (${real}), a system folder`;
  return null;
}

/**
 * Recursively lists files under `dir` whose name passes `accept`. Missing or
 * unreadable dirs yield nothing.
 *
 * Linked folders are followed (a project or session folder that is
 * a symbolic link — dotfiles, synced drives, a moved home — holds billed
 * sessions like any other; peers follow them, e.g. pi#7497/#7552,
 * claude-code-history-viewer#277). Loop-safe and read-once: every folder is
 * walked at most once by its real path, so a link back to an ancestor, a
 * cycle of links, or a folder reachable both directly and through a link
 * yields each file once. Links are walked after every plain folder, so a
 * file reachable both ways is named by its direct path; its key (RealPaths)
 * is the real path either way, so it stays the same across runs whichever
 * way it is reached.
 */
export async function walkFiles(
  dir: string,
  accept: (name: string, path: string) => boolean,
  onError?: (path: string, err: Error) => void,
  maxDepth = 12,
  /** Told the folders walked (root and linked ones) and the files found that are links, to resolve real paths cheaply. */
  realPaths?: RealPaths,
): Promise<string[]> {
  const paths = realPaths ?? new RealPaths();
  const out: string[] = [];
  /** Real paths of the folders walked (a plain folder's is its parent's plus its name: no system call). */
  const walked = new Set<string>();
  /** Links met that are not accepted as files: followed once the plain walk is done. */
  const links: { path: string; depth: number }[] = [];
  const withSep = (p: string) => (p.endsWith(sep) ? p : p + sep);
  function walk(d: string, real: string | null, depth: number) {
    if (real !== null) {
      if (walked.has(real)) return;
      walked.add(real);
    }
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
    const prefix = withSep(d);
    const realPrefix = real === null ? null : withSep(real);
    for (const ent of entries) {
      const p = prefix + ent.name;
      if (ent.kind === 'dir') {
        // A directory named like a transcript is reported, not searched.
        if (accept(ent.name, p)) onError?.(p, new Error('is a directory, not a file'));
        else if (depth < maxDepth) walk(p, realPrefix === null ? null : realPrefix + ent.name, depth + 1);
      } else if (ent.kind === 'link') {
        if (accept(ent.name, p)) {
          out.push(p);
          paths.links.add(p);
        } else if (depth < maxDepth) links.push({ path: p, depth: depth + 1 });
      } else if ((ent.kind === 'file' || ent.kind === 'other') && accept(ent.name, p)) {
        // A FIFO, socket or device named like a transcript is a source too:
        // its read refuses it (io/regular-file.ts), so it is named in the
        // warnings and `sources`, never read and never passed over in silence.
        out.push(p);
      }
    }
  }
  const rootReal = paths.addRoot(dir);
  const rootCut = systemFolder(rootReal);
  if (rootCut) {
    onError?.(dir, new Error(`not searched: ${rootCut}`));
    return out;
  }
  walk(dir, rootReal, 0);
  for (let i = 0; i < links.length; i++) {
    const { path, depth } = links[i]!;
    // A link to a file not named like a transcript, a dangling link, or one to a folder already walked.
    if (kindOf(path) !== 'dir') continue;
    const real = realpath(path);
    if (real === null || walked.has(real)) continue;
    const cut = systemFolder(real);
    if (cut) {
      onError?.(path, new Error(`linked folder not followed: ${cut}`));
      continue;
    }
    paths.addLinked(path, real);
    walk(path, real, depth);
  }
  out.sort();
  return out;
}

/**
 * The folders directly below `dir` that hold a folder named `child` (e.g.
 * the project folders with a `chats` folder), as [name, path of child].
 * An unreadable `dir` is reported and yields nothing.
 */
export function subdirsWith(
  dir: string,
  child: string,
  onError: (path: string, err: Error) => void,
): [string, string][] {
  let entries;
  try {
    entries = listDir(dir);
  } catch (e) {
    onError(dir, e as Error);
    return [];
  }
  const out: [string, string][] = [];
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  for (const ent of entries) {
    // A linked project folder counts like a plain one (linked folders are followed).
    if (ent.kind !== 'dir' && ent.kind !== 'link') continue;
    const inner = join(prefix + ent.name, child);
    if (isDir(inner)) out.push([ent.name, inner]);
  }
  return out;
}

/**
 * Real paths (source keys) of files found by walkFiles. Below a folder
 * walkFiles walked (a root, or a linked folder it followed) only files that
 * are links can hide another link: a plain file's real path is its folder's
 * real path (resolved once) and the rest of its path; only links are
 * resolved one by one. Same answers as realpath per file, without a system
 * call per file (that was a fifth of the warm run's time).
 */
export class RealPaths {
  private readonly roots: { prefix: string; real: string | null }[] = [];
  /** Files found that are symbolic links (filled by walkFiles). */
  readonly links = new Set<string>();

  /** Called by walkFiles for each folder it walks from; returns its real path (null when unreadable: walkFiles finds nothing there). */
  addRoot(dir: string): string | null {
    const real = realpath(dir);
    this.roots.push({ prefix: dir.endsWith(sep) ? dir : dir + sep, real });
    return real;
  }

  /** A linked folder walkFiles followed, with its real path. */
  addLinked(dir: string, real: string): void {
    this.roots.push({ prefix: dir.endsWith(sep) ? dir : dir + sep, real });
  }

  /** The real path of `file`, or `file` itself when it cannot be resolved (a dangling link: extraction reports it). */
  of(file: string): string {
    if (!this.links.has(file)) {
      // The deepest folder holding the file: a linked folder inside a root is a longer prefix than the root.
      let best: { prefix: string; real: string | null } | null = null;
      for (const r of this.roots) {
        if (file.startsWith(r.prefix) && (best === null || r.prefix.length > best.prefix.length)) best = r;
      }
      // Both parts are normalized: concatenation is what join would give.
      if (best !== null && best.real !== null)
        return (best.real.endsWith(sep) ? best.real : best.real + sep) + file.slice(best.prefix.length);
    }
    const real = realpath(file);
    // A link to what is not a regular file (/dev/zero, a FIFO) is keyed by
    // its own path: two harnesses' links to one device are two sources, each
    // refused by name when read (io/regular-file.ts).
    return real !== null && (!this.links.has(file) || kindOf(real) === 'file') ? real : file;
  }
}
