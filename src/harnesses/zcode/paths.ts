// ZCode's database (README.md "Where"): `<root>/cli/db/db.sqlite`, one SQLite
// database in WAL mode, under `~/.zcode` on every platform.
//   --root zcode=PATH (repeatable: a `.zcode` folder, the folder holding
//   db.sqlite, or the database file), else ZCODE_HOME (comma list; peers'
//   name, not ZCode's own), else ~/.zcode.
// Folders beside it that hold no usage are named as found and not read.
import { join } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { isDir, resolveRoots, rootSpec } from '../roots.js';
import { databaseSources } from '../opencode/paths.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

const DB_FILE = /^db\.sqlite$/;

/** Where a `.zcode` folder keeps its database; any other folder is taken as holding it. */
function dbDirOf(d: string): string {
  return isDir(join(d, 'cli', 'db')) ? join(d, 'cli', 'db') : d;
}

/** Folders of a `.zcode` home that hold no usage (README.md "Not read"), named when found. */
const UNREAD: [string[], string][] = [
  [['cli', 'log'], 'activity logs (token counts redacted); usage is in cli/db/db.sqlite'],
  [['projects'], 'character-count estimates, not usage'],
];

export function zcodeRoots(ctx: PathContext): RootSpec[] {
  const homes = ctx.rootOverrides.length
    ? resolveRoots(ctx, { envVars: [], defaults: [] })
    : resolveRoots(ctx, { envVars: ['ZCODE_HOME'], listEnv: true, defaults: ['.zcode'] });
  const out: RootSpec[] = [];
  for (const h of homes) {
    out.push(h.exists ? rootSpec(dbDirOf(h.path), h.origin) : h);
    if (!h.exists || !isDir(join(h.path, 'cli', 'db'))) continue;
    for (const [parts, why] of UNREAD) {
      const p = join(h.path, ...parts);
      if (isDir(p)) out.push({ ...rootSpec(p, h.origin), unread: why });
    }
  }
  return out;
}

export async function discoverZcode(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  return databaseSources(
    'zcode',
    roots.filter((r) => !r.unread),
    DB_FILE,
    warn,
  );
}
