// Hermes Agent's databases (README.md "Where"): `<home>/state.db` (WAL mode)
// and each named profile's `<home>/profiles/<name>/state.db`, where the home is
//   --root hermes=PATH (repeatable: a Hermes home, or a state.db), else
//   HERMES_HOME (Hermes' own variable), else ~/.hermes<HERMES_DATA_DIR_SUFFIX>
//   (on Windows %LOCALAPPDATA%\hermes<suffix>).
// Legacy `sessions/` transcripts (no usage) are named as found and not read.
import { basename, dirname, join } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { databaseSources } from '../opencode/paths.js';
import { isDir, listDirWarned, resolveRoots, rootSpec } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

const DB_FILE = /^state\.db$/;

export function hermesRoots(ctx: PathContext): RootSpec[] {
  const suffix = ctx.env.HERMES_DATA_DIR_SUFFIX?.trim() ?? '';
  const local = ctx.env.LOCALAPPDATA?.trim();
  const defaults = process.platform === 'win32' && local ? [] : [`.hermes${suffix}`];
  let homes = resolveRoots(ctx, { envVars: ['HERMES_HOME'], defaults });
  if (!ctx.rootOverrides.length && !ctx.env.HERMES_HOME?.trim() && process.platform === 'win32' && local)
    homes = [rootSpec(join(local, `hermes${suffix}`), 'LOCALAPPDATA')];
  const out: RootSpec[] = [];
  for (const h of homes) {
    out.push(h);
    const legacy = join(h.path, 'sessions');
    if (h.exists && isDir(legacy))
      out.push({
        ...rootSpec(legacy, h.origin),
        unread: 'legacy session transcripts (no usage in them); usage is in state.db',
      });
  }
  return out;
}

/** The profile a database belongs to: null for the home's own, else `<name>` of `profiles/<name>/state.db`. */
export function profileOf(file: string): string | null {
  const dir = dirname(file);
  return basename(dirname(dir)) === 'profiles' ? basename(dir) : null;
}

export async function discoverHermes(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const homes = roots.filter((r) => !r.unread);
  // Each home's named profiles (README "Where": peers missed them).
  const profiles: RootSpec[] = [];
  for (const h of homes) {
    const dir = join(h.path, 'profiles');
    if (!h.exists || !isDir(dir)) continue;
    for (const e of listDirWarned(dir, warn) ?? [])
      if (e.kind === 'dir' || e.kind === 'link') profiles.push(rootSpec(join(dir, e.name), h.origin));
  }
  return databaseSources('hermes', [...homes, ...profiles], DB_FILE, warn, (file) => {
    const profile = profileOf(file);
    return profile ? { profile } : undefined;
  });
}
