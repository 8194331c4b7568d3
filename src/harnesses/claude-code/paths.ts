// Claude Code data roots: --root claude-code=PATH, else CLAUDE_CONFIG_DIR (a
// comma-separated list), else both ~/.claude and ~/.config/claude; besides
// (unless --root is given) Claude Desktop's Cowork sessions where the app's
// folder holds them. A root is a config dir; transcripts live in its
// projects/ folder.
import { basename, join, relative, sep } from 'node:path';
import { exists, listDir } from '../../io/observed-fs.js';
import { isDir, RealPaths, resolveRoots, rootSpec, walkFiles } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';
import type { SourceLocation } from '../../core/types.js';

export function claudeRoots(ctx: PathContext): RootSpec[] {
  const roots = resolveRoots(ctx, {
    envVars: ['CLAUDE_CONFIG_DIR'],
    listEnv: true,
    defaults: ['.claude', '.config/claude'],
    // Accept either the config dir or its projects/ folder itself.
    mapRoot: (d) => (basename(d) !== 'projects' && exists(join(d, 'projects')) ? join(d, 'projects') : d),
  });
  return ctx.rootOverrides.length ? roots : [...roots, ...coworkRoots(ctx)];
}

/** Origin of a Claude Desktop Cowork root (README.md, "Where"). */
export const COWORK_ORIGIN = 'Claude Desktop (Cowork)';

/**
 * Claude Desktop's Cowork (local agent mode) runs Claude Code with a
 * per-session config dir inside the app's data folder (Electron userData):
 * `<app data>/Claude/local-agent-mode-sessions/<org>/<account>/local_<id>/
 * .claude/projects/...`, ordinary Claude Code transcripts (cc-switch#4979,
 * ccusage#1200, agentsview#681, txcript#9). The app's folder: Linux
 * `$XDG_CONFIG_HOME/Claude` (`~/.config/Claude`), macOS `~/Library/Application
 * Support/Claude`, Windows `%APPDATA%\Claude` (the Store build's
 * `%LOCALAPPDATA%\Packages\Claude_pzs8sxrjxfjjc\LocalCache\Roaming\Claude`,
 * ai-engineering-fluency#572). A root only where the folder exists.
 */
function coworkRoots(ctx: PathContext): RootSpec[] {
  const xdg = ctx.env.XDG_CONFIG_HOME?.trim();
  const appData = ctx.env.APPDATA?.trim();
  const localAppData = ctx.env.LOCALAPPDATA?.trim();
  const apps = [
    join(xdg || join(ctx.home, '.config'), 'Claude'),
    join(ctx.home, 'Library', 'Application Support', 'Claude'),
    ...(appData ? [join(appData, 'Claude')] : []),
    ...(localAppData
      ? [join(localAppData, 'Packages', 'Claude_pzs8sxrjxfjjc', 'LocalCache', 'Roaming', 'Claude')]
      : []),
  ];
  const out: RootSpec[] = [];
  for (const app of apps) {
    const dir = join(app, 'local-agent-mode-sessions');
    if (!out.some((r) => r.path === dir) && isDir(dir)) out.push(rootSpec(dir, COWORK_ORIGIN));
  }
  return out;
}

/**
 * The projects/ folders of a Cowork root: `local_<id>/.claude/projects` below
 * it (two levels down today, `<org>/<account>`; a few more are searched).
 * Nothing else there is read: `audit.jsonl` beside `.claude/` is the Agent
 * SDK's audit copy of the same session, with partial usage snapshots
 * (cc-switch#4979: 10K of a session's 327K output tokens), never counted.
 */
function coworkProjectDirs(root: string, warn: (m: string, at: SourceLocation) => void): string[] {
  const out: string[] = [];
  const search = (dir: string, depth: number) => {
    let entries;
    try {
      entries = listDir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
        warn(`cannot read directory: ${(e as Error).message}`, { file: dir });
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.kind !== 'dir' && !(e.kind === 'link' && isDir(p))) continue;
      if (e.name.startsWith('local_')) {
        const projects = join(p, '.claude', 'projects');
        if (isDir(projects)) out.push(projects);
      } else if (depth < 4) search(p, depth + 1);
    }
  };
  search(root, 0);
  return out.sort();
}

/**
 * Main transcripts: projects/<key>/<session>.jsonl.
 * Subagents: projects/<key>/<session>/subagents/**\/agent-<id>.jsonl (any nesting).
 */
export async function discoverClaude(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  const out: SourceRef[] = [];
  const dirs: string[] = [];
  for (const root of roots) {
    if (!root.exists) continue;
    if (root.origin === COWORK_ORIGIN) dirs.push(...coworkProjectDirs(root.path, warn));
    else dirs.push(root.path);
  }
  for (const dir of dirs) {
    const files = await walkFiles(
      dir,
      (name) => name.endsWith('.jsonl'),
      (p, e) => warn(e.message, { file: p }),
      8,
      realPaths,
    );
    // walkFiles joins names onto root.path: the relative part is a suffix
    // (path.relative per file was most of the warm run's discovery time).
    const prefix = dir.endsWith(sep) ? dir : dir + sep;
    for (const file of files) {
      const rel = (file.startsWith(prefix) ? file.slice(prefix.length) : relative(dir, file)).split(sep);
      let meta: Record<string, string> | null = null;
      const name = rel[rel.length - 1]!;
      if (rel.length === 2) {
        meta = { projectKey: rel[0]!, sessionId: name.slice(0, -'.jsonl'.length), role: 'main' };
      } else if (rel.length >= 4 && rel[2] === 'subagents' && /^agent-.+\.jsonl$/.test(name)) {
        meta = { projectKey: rel[0]!, sessionId: rel[1]!, role: 'subagent', agentId: name.slice(6, -'.jsonl'.length) };
      }
      if (!meta) continue;
      const real = realPaths.of(file);
      // ~/.config/claude may be a link to ~/.claude; a linked project folder may be reached twice.
      if (seen.has(real)) continue;
      seen.add(real);
      out.push({ harness: 'claude-code', key: real, path: file, kind: 'jsonl', meta });
    }
  }
  return out;
}

/**
 * Lossy fallback when no line names a cwd: the project key with '-' read as
 * '/' (a Windows key, `C--Users-…`, as it is). A folder whose name is not an
 * encoded path (CLAUDE_CODE_PROJECT_DIR_NAME, v2.1.234, lets a host name it
 * freely: README "Project") says nothing of the project: ''.
 */
export function projectFromKey(key: string): string {
  if (key.startsWith('-')) return key.replace(/-/g, '/');
  return /^[A-Za-z]--/.test(key) ? key : '';
}
