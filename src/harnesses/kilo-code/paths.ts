// Kilo Code's two homes (README.md "Where"): the legacy VS Code extension's
// tasks in each editor's globalStorage, and Kilo CLI's database (`kilo.db`,
// `kilo-<channel>.db`; the newer extension runs on the CLI) in its data dir.
import { isAbsolute, join } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { exists, realpath } from '../../io/observed-fs.js';
import { discoverTasks, extensionRoots } from '../cline/paths.js';
import { databaseFiles } from '../opencode/paths.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

export const KILO_EXTENSION_ID = 'kilocode.kilo-code';
/** The legacy extension's settings section (package name `kilo-code`): `kilo-code.customStoragePath` moves its tasks, as Roo's does. */
const KILO_SETTINGS_SECTION = 'kilo-code';
const DB_FILE = /^kilo(?:-[A-Za-z0-9._-]+)?\.db$/;

/** Kilo CLI's data dir: KILO_DATA_DIR (comma list; peers' name), else $XDG_DATA_HOME/kilo, else ~/.local/share/kilo (OpenCode's layout). */
function kiloDataDirs(ctx: PathContext): RootSpec[] {
  const list = ctx.env.KILO_DATA_DIR?.trim();
  if (list)
    return list
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)
      .map((p) => ({ path: p, origin: 'KILO_DATA_DIR', exists: exists(p) }));
  const xdg = ctx.env.XDG_DATA_HOME?.trim();
  const path = xdg && isAbsolute(xdg) ? join(xdg, 'kilo') : join(ctx.home, '.local', 'share', 'kilo');
  return [{ path, origin: xdg && isAbsolute(xdg) ? 'XDG_DATA_HOME' : 'default', exists: exists(path) }];
}

export function kiloRoots(ctx: PathContext): RootSpec[] {
  const ext = extensionRoots(ctx, KILO_EXTENSION_ID, {
    settingsSection: { section: KILO_SETTINGS_SECTION, harness: 'kilo-code' },
  });
  if (ctx.rootOverrides.length) return ext;
  return [...kiloDataDirs(ctx), ...ext];
}

/** Tasks under any root's tasks/, and Kilo CLI databases in any root (or a root that is one), found as OpenCode's are. */
export async function discoverKilo(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const out = await discoverTasks('kilo-code', roots, ['history_item.json', 'api_conversation_history.json'], warn);
  const seen = new Set<string>();
  const add = (file: string) => {
    const real = realpath(file) ?? file;
    if (seen.has(real)) return;
    seen.add(real);
    // As OpenCode's: committed rows may live only in the -wal (never the -shm, which every reader writes).
    out.push({ harness: 'kilo-code', key: real, path: file, kind: 'sqlite', companions: [file + '-wal'] });
  };
  for (const file of databaseFiles(roots, DB_FILE, warn)) add(file);
  return out;
}
