// Pi data roots (contract `pi`, layout):
//   --root pi=PATH (repeatable; an agent dir or a sessions dir), else
//   PI_CODING_AGENT_SESSION_DIR (a flat custom session dir) AND the agent
//   dir's sessions/ — the agent dir being PI_CODING_AGENT_DIR or ~/.pi/agent —
//   AND the session folders pi's settings.json files name (`sessionDir`,
//   settings.ts).
// A custom session dir only redirects NEW sessions, so sessions already
// written under the agent dir are still searched (they were billed too).
import { basename, join, resolve, sep } from 'node:path';
import { exists } from '../../io/observed-fs.js';
import { expandHome, RealPaths, resolveRoots, rootSpec, walkFiles } from '../roots.js';
import { settingsSessionDirs } from './settings.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';
import type { SourceLocation } from '../../core/types.js';

/** An agent dir holds sessions/; a sessions dir (or a flat custom dir) is searched as is. */
function agentOrSessions(d: string): string {
  return basename(d) !== 'sessions' && exists(join(d, 'sessions')) ? join(d, 'sessions') : d;
}

export function piRoots(ctx: PathContext): RootSpec[] {
  if (ctx.rootOverrides.length) return resolveRoots(ctx, { envVars: [], defaults: [], mapRoot: agentOrSessions });
  const noFlags = { ...ctx, rootOverrides: [] };
  const custom = ctx.env.PI_CODING_AGENT_SESSION_DIR?.trim()
    ? resolveRoots(noFlags, { envVars: ['PI_CODING_AGENT_SESSION_DIR'], defaults: [] })
    : [];
  const agent = resolveRoots(noFlags, {
    envVars: ['PI_CODING_AGENT_DIR'],
    defaults: ['.pi/agent'],
    mapRoot: (d) => join(d, 'sessions'),
  });
  const agentDir = resolve(expandHome(ctx.env.PI_CODING_AGENT_DIR?.trim() || join(ctx.home, '.pi', 'agent'), ctx.home));
  const settings = settingsSessionDirs(agentDir, ctx.home, ctx.warn).map((d) => rootSpec(d.path, d.origin));
  const seen = new Set<string>();
  return [...custom, ...agent, ...settings].filter((r) => (seen.has(r.path) ? false : (seen.add(r.path), true)));
}

/** `<ISO timestamp with : and . as ->_<session-id>.jsonl` → session id (ids may contain `_`, timestamps never do). */
export function sessionIdFromFileName(name: string): string {
  const stem = name.replace(/\.jsonl$/, '');
  const us = stem.indexOf('_');
  return us > 0 && us < stem.length - 1 ? stem.slice(us + 1) : stem;
}

/** `--home-user-project--` → `/home/user/project`: lossy (a `-` in the path reads as `/`), fallback only. */
export function projectFromDirKey(key: string): string | null {
  const m = /^--(.*)--$/.exec(key);
  if (!m || !m[1]) return null;
  return '/' + m[1].replace(/-/g, '/');
}

/** A `--<cwd>--` folder of pi's default layout. */
const CWD_DIR = /^--.*--$/;

/**
 * Default layout: <sessions>/--<cwd>--/<ts>_<id>.jsonl. Custom session dirs
 * are flat: <dir>/<ts>_<id>.jsonl. Both are accepted under every root; pi's
 * "filtered by header cwd" applies to its own per-cwd listing, not to spend,
 * so every session in a flat dir is read (project = its header cwd).
 *
 * Below a session's own folder (`<ts>_<id>/…`, or any folder that is not a
 * `--<cwd>--` one), extensions write files of their own: sessions of
 * subagents (pi-subagents: `<ts>_<id>/<run>/run-0/session.jsonl`, its
 * `forks/*.jsonl`) and debug copies without a session header
 * (`subagent-artifacts/*_transcript.jsonl`). They are found as `nested`
 * sources; the extractor counts one only when its first line is a pi session
 * header (README.md, "Sessions that extensions write").
 */
export async function discoverPi(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  const out: SourceRef[] = [];
  for (const root of roots) {
    if (!root.exists) continue;
    const files = await walkFiles(
      root.path,
      (name) => name.endsWith('.jsonl'),
      (p, e) => warn(`cannot read directory: ${e.message}`, { file: p }),
      // --<cwd>--/<ts>_<id>/<run>/run-0/session.jsonl is five levels down.
      6,
      realPaths,
    );
    const prefix = root.path.endsWith(sep) ? root.path : root.path + sep;
    for (const file of files) {
      const rel = file.slice(prefix.length).split(sep);
      const meta: Record<string, string> = { sessionId: sessionIdFromFileName(basename(file)) };
      if (rel.length === 2 && CWD_DIR.test(rel[0]!)) meta.dirKey = rel[0]!;
      else if (rel.length > 1) meta.nested = '1';
      const real = realPaths.of(file);
      if (seen.has(real)) continue; // the custom dir may be (a link to) the default one
      seen.add(real);
      out.push({ harness: 'pi', key: real, path: file, kind: 'jsonl', meta });
    }
  }
  return out;
}
