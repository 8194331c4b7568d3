// OpenCode data roots (contract `opencode`, layout):
//   --root opencode=PATH (repeatable; a data dir or one database file), else
//   the data dir $XDG_DATA_HOME/opencode (~/.local/share/opencode when unset,
//   also on macOS) PLUS the file named by OPENCODE_DB (absolute, or relative
//   to the data dir; ':memory:' has no file).
// In a data dir every `opencode.db` and `opencode-<channel>.db` is a source:
// OPENCODE_DB and the channel only choose where NEW activity goes, so older
// databases still hold billed usage.
import { basename, isAbsolute, join } from 'node:path';
import { kindOf, realpath } from '../../io/observed-fs.js';
import { isDir, isFile, listDirWarned, resolveRoots, rootSpec } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';
import type { HarnessId, SourceLocation } from '../../core/types.js';

/** `opencode.db` and channel databases `opencode-<channel>.db` (channel sanitized to [A-Za-z0-9._-]). */
export const DB_FILE = /^opencode(-[A-Za-z0-9._-]+)?\.db$/;

export function opencodeDataDir(ctx: PathContext): { path: string; origin: string } {
  const xdg = ctx.env.XDG_DATA_HOME?.trim();
  // XDG: a relative XDG_DATA_HOME is invalid and ignored.
  if (xdg && isAbsolute(xdg)) return { path: join(xdg, 'opencode'), origin: 'XDG_DATA_HOME' };
  return { path: join(ctx.home, '.local', 'share', 'opencode'), origin: 'default' };
}

export function opencodeRoots(ctx: PathContext): RootSpec[] {
  if (ctx.rootOverrides.length) return resolveRoots(ctx, { envVars: [], defaults: [] });
  const data = opencodeDataDir(ctx);
  const roots: RootSpec[] = [rootSpec(data.path, data.origin)];
  const override = ctx.env.OPENCODE_DB?.trim();
  if (override && override !== ':memory:') {
    const p = isAbsolute(override) ? override : join(data.path, override);
    roots.push(rootSpec(p, 'OPENCODE_DB'));
  }
  return roots;
}

export async function discoverOpencode(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const out: SourceRef[] = [];
  const add = (file: string) => {
    const real = realpath(file) ?? file; // dangling link: let extract report it
    if (seen.has(real)) return; // OPENCODE_DB may name a database the data dir already lists
    seen.add(real);
    out.push({
      harness: 'opencode',
      key: real,
      path: file,
      kind: 'sqlite',
      // Committed rows may live only in the -wal. Not the -shm: it is the
      // wal-index every reader writes its read marks to (tx-usage too), so
      // its mtime moves on every read and the database looked changed on
      // every run (the report's memo never held with OpenCode data).
      companions: [file + '-wal'],
      meta: { db: basename(file) },
    });
  };
  for (const file of databaseFiles(roots, DB_FILE, warn)) add(file);
  return out;
}

/**
 * The database files of `roots`: a root that is a file is one; in a root that
 * is a folder, the files whose names match `pattern`. (Kilo CLI's kilo.db is
 * found the same way: kilo-code/paths.ts.)
 */
export function databaseFiles(
  roots: RootSpec[],
  pattern: RegExp,
  warn: (m: string, at: SourceLocation) => void,
): string[] {
  const out: string[] = [];
  for (const root of roots) {
    if (!root.exists) continue;
    // A FIFO or device where a database is expected is a source too: its
    // read refuses it by name (io/sqlite.ts), never a silent "no data".
    const rootKind = kindOf(root.path);
    if (rootKind === 'file' || rootKind === 'other') {
      out.push(root.path);
      continue;
    }
    if (rootKind !== 'dir') continue;
    for (const e of listDirWarned(root.path, warn) ?? []) {
      const p = join(root.path, e.name);
      const k = pattern.test(e.name) ? kindOf(p) : null;
      if (k === 'file' || k === 'other') out.push(p);
    }
  }
  return out;
}

/**
 * The databases of `roots` (databaseFiles) as sources of `harness`, one per
 * real file (two roots naming one database read it once); `meta` adds what
 * the harness carries from discovery. Committed rows may be only in the
 * -wal: it joins the fingerprint (never the -shm, which every reader writes).
 */
export function databaseSources(
  harness: HarnessId,
  roots: RootSpec[],
  pattern: RegExp,
  warn: (m: string, at: SourceLocation) => void,
  meta?: (file: string) => Record<string, string> | undefined,
): SourceRef[] {
  const seen = new Set<string>();
  const out: SourceRef[] = [];
  for (const file of databaseFiles(roots, pattern, warn)) {
    const real = realpath(file) ?? file;
    if (seen.has(real)) continue;
    seen.add(real);
    const m = meta?.(file);
    out.push({
      harness,
      key: real,
      path: file,
      kind: 'sqlite',
      companions: [file + '-wal'],
      ...(m ? { meta: m } : {}),
    });
  }
  return out;
}
