// Where the Cline family keeps tasks (README.md "Where"): an extension's
// VS Code globalStorage folder in each editor's user dir, on Linux, macOS and
// Windows; Cline's CLI (and its JetBrains plugin) in Cline's data dir.
// roo-code/ and kilo-code/ use the same layout under their extension ids.
import { basename, isAbsolute, join } from 'node:path';
import type { HarnessId, SourceLocation } from '../../core/types.js';
import { exists, realpath } from '../../io/observed-fs.js';
import { listDirWarned, RealPaths, resolveRoots, rootSpec } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';
import { customStorageDirs, type EditorUserDir } from './vscode-settings.js';

/** VS Code and the forks people run these extensions in (their user-dir names). */
const EDITORS = ['Code', 'Code - Insiders', 'Cursor', 'VSCodium', 'Windsurf'];
/** Remote installs (Remote-SSH, WSL, dev containers) keep the user dir under the home on the remote side. */
const SERVERS = ['.vscode-server', '.cursor-server'];

/** The editors' `User` dirs, for this platform. */
export function editorUserDirs(ctx: PathContext, platform: NodeJS.Platform = process.platform): EditorUserDir[] {
  const out: EditorUserDir[] = [];
  const portable = ctx.env.VSCODE_PORTABLE?.trim();
  if (portable) out.push({ path: join(portable, 'user-data', 'User'), origin: 'VSCODE_PORTABLE' });
  let base: string;
  let origin = 'default';
  if (platform === 'win32') {
    const appData = ctx.env.APPDATA?.trim();
    base = appData || join(ctx.home, 'AppData', 'Roaming');
    if (appData) origin = 'APPDATA';
  } else if (platform === 'darwin') {
    base = join(ctx.home, 'Library', 'Application Support');
  } else {
    const xdg = ctx.env.XDG_CONFIG_HOME?.trim();
    base = xdg && isAbsolute(xdg) ? xdg : join(ctx.home, '.config');
    if (xdg && isAbsolute(xdg)) origin = 'XDG_CONFIG_HOME';
  }
  for (const e of EDITORS) out.push({ path: join(base, e, 'User'), origin });
  if (platform === 'linux')
    for (const s of SERVERS) out.push({ path: join(ctx.home, s, 'data', 'User'), origin: 'default', server: true });
  return out;
}

/**
 * `<editor user dir>/globalStorage/<extension id>` for every editor, then
 * (Roo, Kilo: `settingsSection` given) every folder the editors' settings name
 * as the extension's `customStoragePath` (vscode-settings.ts); `--root
 * NAME=PATH` (a folder holding tasks/) replaces them all.
 */
export function extensionRoots(
  ctx: PathContext,
  extensionId: string,
  opts: { settingsSection?: { section: string; harness: HarnessId }; platform?: NodeJS.Platform } = {},
): RootSpec[] {
  if (ctx.rootOverrides.length) return resolveRoots(ctx, { envVars: [], defaults: [] });
  const userDirs = editorUserDirs(ctx, opts.platform);
  const roots: RootSpec[] = userDirs.map(({ path, origin }) => {
    const p = join(path, 'globalStorage', extensionId);
    return { path: p, origin, exists: exists(p) };
  });
  if (opts.settingsSection === undefined) return roots;
  const { section, harness } = opts.settingsSection;
  for (const d of customStorageDirs(userDirs, section, `--root ${harness}=PATH`, ctx.warn)) {
    if (!roots.some((r) => r.path === d.path)) roots.push(rootSpec(d.path, d.origin));
  }
  return roots;
}

/**
 * Each task folder's ui_messages.json under `<root>/tasks/`, a `json`
 * source: the files beside it that say its models, folder and parent are its
 * companions (a change to them reads the task again).
 */
export async function discoverTasks(
  harness: HarnessId,
  roots: RootSpec[],
  companions: readonly string[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const out: SourceRef[] = [];
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  for (const root of roots) {
    if (!root.exists) continue;
    const tasks = join(root.path, 'tasks');
    if (!exists(tasks)) continue;
    realPaths.addRoot(tasks);
    for (const t of listDirWarned(tasks, warn) ?? []) {
      if (t.kind !== 'dir' && t.kind !== 'link') continue;
      const dir = join(tasks, t.name);
      const file = join(dir, 'ui_messages.json');
      if (!exists(file)) continue;
      if (t.kind === 'link') realPaths.links.add(file);
      const real = realPaths.of(file);
      if (seen.has(real)) continue;
      seen.add(real);
      out.push({ harness, key: real, path: file, kind: 'json', companions: companions.map((c) => join(dir, c)) });
    }
  }
  return out;
}

/**
 * Cline 4's SDK sessions: `<root>/sessions/<id>/<stem>.messages.json` (or a
 * root that is itself such a sessions dir, CLINE_SESSION_DATA_DIR), the
 * stem `<id>` for the session and `<id>__<agent>` for its sub-agents; the
 * session's manifest `<id>/<id>.json` is a companion.
 */
export function discoverSdkSessions(roots: RootSpec[], warn: (m: string, at: SourceLocation) => void): SourceRef[] {
  const out: SourceRef[] = [];
  const seen = new Set<string>();
  for (const root of roots) {
    if (!root.exists) continue;
    const sessions = basename(root.path) === 'sessions' ? root.path : join(root.path, 'sessions');
    if (!exists(sessions)) continue;
    for (const d of listDirWarned(sessions, warn) ?? []) {
      if (d.kind !== 'dir') continue;
      const dir = join(sessions, d.name);
      for (const f of listDirWarned(dir, warn) ?? []) {
        if ((f.kind !== 'file' && f.kind !== 'link') || !f.name.endsWith('.messages.json')) continue;
        const file = join(dir, f.name);
        const real = realpath(file) ?? file;
        if (seen.has(real)) continue;
        seen.add(real);
        out.push({
          harness: 'cline',
          key: real,
          path: file,
          kind: 'json',
          companions: [join(dir, `${d.name}.json`)],
          meta: { sdk: '1' },
        });
      }
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
