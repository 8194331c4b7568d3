// Cursor Agent data roots and chat stores.
// Root: --root cursor-agent=PATH, else CURSOR_CONFIG_DIR, else ~/.cursor AND
// (when XDG_CONFIG_HOME is set) $XDG_CONFIG_HOME/cursor. The contract says the
// config dir "moves with CURSOR_CONFIG_DIR, else $XDG_CONFIG_HOME/cursor";
// both defaults are searched so data is found whichever one a build used.
// Besides: the usage CSVs the user imported (tx-usage's cache dir).
import { createRequire } from 'node:module';
import { basename, join, resolve } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { exists, listDir, realpath } from '../../io/observed-fs.js';
import { COPY_NAME, importDir } from '../../imports/dir.js';
import { isDir, resolveRoots, rootSpec } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

export function cursorRoots(ctx: PathContext): RootSpec[] {
  return [...configRoots(ctx), ...importRoots(ctx)];
}

function configRoots(ctx: PathContext): RootSpec[] {
  const roots = resolveRoots(ctx, { envVars: ['CURSOR_CONFIG_DIR'], defaults: ['.cursor'] });
  const xdg = ctx.env.XDG_CONFIG_HOME?.trim();
  if (ctx.rootOverrides.length || ctx.env.CURSOR_CONFIG_DIR?.trim() || !xdg) return roots;
  const path = join(resolve(xdg), 'cursor');
  if (roots.some((r) => r.path === path)) return roots;
  return [...roots, rootSpec(path, 'XDG_CONFIG_HOME')];
}

/** Origin of the root that holds imported usage CSVs (README.md, "Imported usage CSV"). */
export const IMPORT_ORIGIN = 'tx-usage import';

/**
 * The folder of usage CSVs imported with `tx-usage import cursor-usage`, in
 * tx-usage's cache dir, once there is one (whatever --root says: the imports
 * are not in Cursor's config dir).
 */
function importRoots(ctx: PathContext): RootSpec[] {
  const path = importDir(ctx.env, ctx.home, 'cursor-usage');
  return exists(path) ? [{ path, origin: IMPORT_ORIGIN, exists: true }] : [];
}

/** Imported usage CSVs: the copies `tx-usage import` made (src/imports/), one `csv` source each. */
function importSources(root: RootSpec, warn: (m: string, at: SourceLocation) => void): SourceRef[] {
  let entries;
  try {
    entries = listDir(root.path);
  } catch (e) {
    warn(`cannot read directory: ${(e as Error).message}`, { file: root.path });
    return [];
  }
  const out: SourceRef[] = [];
  for (const e of entries) {
    if (e.kind !== 'file' && e.kind !== 'link') continue;
    const path = join(root.path, e.name);
    if (COPY_NAME.test(e.name)) out.push({ harness: 'cursor-agent', key: realpath(path) ?? path, path, kind: 'csv' });
    else if (e.name.endsWith('.csv'))
      warn('not a copy made by `tx-usage import`, ignored: import it with `tx-usage import cursor-usage FILE`', {
        file: path,
      });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

function listDirs(dir: string, warn: (m: string, at: SourceLocation) => void): string[] {
  try {
    return listDir(dir)
      .filter((e) => e.kind === 'dir' || (e.kind === 'link' && isDir(join(dir, e.name))))
      .map((e) => e.name)
      .sort();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') warn(`cannot read directory: ${(e as Error).message}`, { file: dir });
    return [];
  }
}

function storeRef(dbPath: string, meta: Record<string, string>): SourceRef {
  const key = realpath(dbPath) ?? dbPath; // dangling: extract reports it
  const dir = resolve(dbPath, '..');
  return {
    harness: 'cursor-agent',
    key,
    path: dbPath,
    kind: 'sqlite',
    // A change to any of these means the chat changed. Not the -shm: it is a
    // wal-index derived from the -wal, and every reader (this one included)
    // bumps its mtime, so listing it would re-read live chats on every run.
    companions: [dbPath + '-wal', join(dir, 'meta.json')],
    meta,
  };
}

/**
 * Chats: <root>/chats/<md5(cwd)>/<chatId>/store.db.
 * ACP sessions: <root>/acp-sessions/<sessionId>/store.db.
 * A root may also be a `chats/` folder itself.
 */
export async function discoverCursor(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const out: SourceRef[] = [];
  const seen = new Set<string>();
  const add = (ref: SourceRef) => {
    if (seen.has(ref.key)) return; // the same config dir reached through two roots
    seen.add(ref.key);
    out.push(ref);
  };
  for (const root of roots) {
    if (!root.exists) continue;
    if (root.origin === IMPORT_ORIGIN) {
      for (const ref of importSources(root, warn)) add(ref);
      continue;
    }
    const chatsDir =
      basename(root.path) === 'chats' && !exists(join(root.path, 'chats')) ? root.path : join(root.path, 'chats');
    for (const workspace of listDirs(chatsDir, warn)) {
      for (const chatId of listDirs(join(chatsDir, workspace), warn)) {
        const db = join(chatsDir, workspace, chatId, 'store.db');
        if (exists(db)) add(storeRef(db, { chatId, workspace, store: 'chat' }));
      }
    }
    const acpDir = join(root.path, 'acp-sessions');
    for (const sessionId of listDirs(acpDir, warn)) {
      const db = join(acpDir, sessionId, 'store.db');
      if (exists(db)) add(storeRef(db, { chatId: sessionId, workspace: '', store: 'acp' }));
    }
  }
  return out;
}

/** Name of a chat's workspace folder: lowercase hex MD5 of path.resolve(cwd) (contract layout). */
export function workspaceHash(cwd: string): string {
  // node:crypto when a Cursor chat is resolved, not with the harness registry
  // (which every extraction thread loads: ~1.4 ms of each one's start).
  const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return createHash('md5').update(resolve(cwd)).digest('hex');
}

const hashIndexes = new WeakMap<ReadonlySet<string>, { size: number; index: Map<string, string> }>();

/**
 * Project of a workspace folder: the known cwd (from other harnesses) whose
 * md5 matches, else `unknown (<md5>)`. The md5 index is cached per set and
 * rebuilt when the set grows.
 */
export function projectForWorkspace(md5: string, known: ReadonlySet<string>): string {
  let cached = hashIndexes.get(known);
  if (!cached || cached.size !== known.size) {
    const index = new Map<string, string>();
    for (const cwd of [...known].sort()) {
      if (!cwd) continue;
      const h = workspaceHash(cwd);
      if (!index.has(h)) index.set(h, cwd);
    }
    cached = { size: known.size, index };
    hashIndexes.set(known, cached);
  }
  return cached.index.get(md5.toLowerCase()) ?? `unknown (${md5})`;
}
