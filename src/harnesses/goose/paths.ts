// Goose's sessions database (README.md "Where"): `<data>/sessions/sessions.db`
// (WAL mode), where the data dir is
//   --root goose=PATH (repeatable: a goose data dir or GOOSE_PATH_ROOT, its
//   sessions folder, or the file), else $GOOSE_PATH_ROOT/data (goose's own
//   variable, honoured only when absolute), else $XDG_DATA_HOME/goose
//   (~/.local/share/goose; etcetera's XDG layout, macOS included), plus the
//   older places peers probe (~/Library/Application Support/goose,
//   ~/.local/share/Block/goose) and, on Windows, %APPDATA%\Block\goose\data.
// A sessions folder holding only pre-SQLite `<id>.jsonl` files is named as
// found and not read.
import { dirname, isAbsolute, join } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { listDir } from '../../io/observed-fs.js';
import { databaseSources } from '../opencode/paths.js';
import { isDir, isFile, rootSpec } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

const DB_FILE = /^sessions\.db$/;
const LEGACY = /^[^.].*\.jsonl$/;

/** The folder holding sessions.db for a folder given: a GOOSE_PATH_ROOT, a data dir, or the sessions folder itself. */
function sessionsDirOf(d: string): string {
  if (isDir(join(d, 'data', 'sessions'))) return join(d, 'data', 'sessions');
  if (isDir(join(d, 'sessions'))) return join(d, 'sessions');
  return d;
}

function legacyCount(dir: string): number {
  try {
    return listDir(dir).filter((e) => e.kind === 'file' && LEGACY.test(e.name)).length;
  } catch {
    return 0; // unreadable: discovery of the database says so
  }
}

function spec(path: string, origin: string): RootSpec {
  const r = rootSpec(path, origin);
  // README "Where": pre-SQLite goose kept only these transcripts; a folder with no database is not read.
  if (r.exists && isDir(path) && !isFile(join(path, 'sessions.db')) && legacyCount(path) > 0)
    r.unread = 'pre-SQLite goose session files (sessions/<id>.jsonl); only sessions.db is read';
  return r;
}

export function gooseRoots(ctx: PathContext): RootSpec[] {
  if (ctx.rootOverrides.length) return ctx.rootOverrides.map((p) => spec(isDir(p) ? sessionsDirOf(p) : p, '--root'));
  const root = ctx.env.GOOSE_PATH_ROOT?.trim();
  // goose ignores a relative GOOSE_PATH_ROOT (paths.rs `validated_path_root`).
  if (root && isAbsolute(root)) return [spec(join(root, 'data', 'sessions'), 'GOOSE_PATH_ROOT')];
  const xdg = ctx.env.XDG_DATA_HOME?.trim();
  const out = [
    spec(
      join(xdg && isAbsolute(xdg) ? xdg : join(ctx.home, '.local', 'share'), 'goose', 'sessions'),
      xdg && isAbsolute(xdg) ? 'XDG_DATA_HOME' : 'default',
    ),
  ];
  out.push(spec(join(ctx.home, 'Library', 'Application Support', 'goose', 'sessions'), 'default'));
  out.push(spec(join(ctx.home, '.local', 'share', 'Block', 'goose', 'sessions'), 'default'));
  const appData = ctx.env.APPDATA?.trim();
  if (process.platform === 'win32' && appData)
    out.push(spec(join(appData, 'Block', 'goose', 'data', 'sessions'), 'APPDATA'));
  return out;
}

export async function discoverGoose(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  return databaseSources(
    'goose',
    roots.filter((r) => !r.unread),
    DB_FILE,
    warn,
    (file) => {
      const legacy = legacyCount(dirname(file));
      return legacy ? { legacyJsonl: String(legacy) } : undefined;
    },
  );
}
