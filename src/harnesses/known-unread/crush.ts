// Crush (charmbracelet/crush): README.md beside this file, "Crush". Its
// usage is in one SQLite database per project (`<data dir>/crush.db`), the
// projects listed in `projects.json` beside its global data.
import { join, resolve } from 'node:path';
import { readSmallText } from '../../io/observed-fs.js';
import { expandHome, rootSpec } from '../roots.js';
import type { PathContext, RootSpec } from '../types.js';
import type { KnownUnread } from './types.js';

/** Crush's global data folder (internal/config/load.go:1226-1246): CRUSH_GLOBAL_DATA, else $XDG_DATA_HOME/crush, else ~/.local/share/crush (Windows: %LOCALAPPDATA%\crush). */
function globalData(ctx: PathContext): RootSpec[] {
  const xdg = ctx.env.XDG_DATA_HOME?.trim();
  const local = ctx.env.LOCALAPPDATA?.trim();
  const dflt = xdg
    ? [resolve(xdg, 'crush')]
    : process.platform === 'win32' && local
      ? [resolve(local, 'crush')]
      : [join(ctx.home, '.local', 'share', 'crush')];
  const env = ctx.env.CRUSH_GLOBAL_DATA?.trim();
  if (env) return [rootSpec(resolve(expandHome(env, ctx.home)), 'CRUSH_GLOBAL_DATA')];
  return dflt.map((p) => rootSpec(p, xdg ? 'XDG_DATA_HOME' : 'default'));
}

/** The data folders `projects.json` lists (`{"projects":[{"path","data_dir"}]}`, internal/projects/projects.go:16-26): each holds a crush.db. */
function projectData(dir: string, home: string): string[] {
  const text = readSmallText(join(dir, 'projects.json'));
  if (text === null) return [];
  try {
    const doc = JSON.parse(text) as { projects?: unknown };
    const list = Array.isArray(doc.projects) ? doc.projects : [];
    return list.flatMap((p) =>
      p && typeof p === 'object' && typeof (p as { data_dir?: unknown }).data_dir === 'string'
        ? [resolve(dir, expandHome((p as { data_dir: string }).data_dir, home))]
        : [],
    );
  } catch {
    return [];
  }
}

export const crush: KnownUnread = {
  id: 'crush',
  displayName: 'Crush',
  roots: (ctx) => {
    const out: RootSpec[] = [];
    for (const g of globalData(ctx)) {
      out.push(g);
      if (!g.exists) continue;
      for (const d of projectData(g.path, ctx.home)) out.push(rootSpec(join(d, 'crush.db'), 'projects.json'));
    }
    return out;
  },
  reason:
    "Crush keeps only each session's running cost (USD; 0 for flat-rate or estimated calls, the estimate flag never written) and its last call's tokens, and folds a sub-agent's cost into its parent only when the sub-agent succeeded: no per-response usage to count exactly once",
};
