// Grok Build's sessions (README.md "Where"): `<home>/sessions/<encoded cwd>/<session>/updates.jsonl`,
// appended to; a parent's `subagents/<id>/meta.json` names its child sessions.
//   --root grok=PATH (repeatable; a .grok folder or its sessions folder), else
//   GROK_HOME (comma list; Grok's own name, read verbatim), else ~/.grok.
// `logs/` (the unified log: no model, capped and cut in place) is named as found, not read.
import { basename, dirname, join } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { readRegularText } from '../../io/regular-file.js';
import { isDir, RealPaths, resolveRoots, rootSpec, walkFiles } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

export function grokRoots(ctx: PathContext): RootSpec[] {
  const homes = ctx.rootOverrides.length
    ? resolveRoots(ctx, { envVars: [], defaults: [] })
    : resolveRoots(ctx, { envVars: ['GROK_HOME'], listEnv: true, defaults: ['.grok'] });
  const out: RootSpec[] = [];
  for (const h of homes) {
    out.push(h);
    const logs = join(h.path, 'logs');
    if (h.exists && isDir(logs))
      out.push({
        ...rootSpec(logs, h.origin),
        unread:
          'the unified log: no model per call, capped at 5 MB and cut in place; usage is in sessions/*/*/updates.jsonl',
      });
  }
  return out;
}

/** The child session id a sub-agent's meta.json names (only that field is kept: the file also holds the prompt). */
function childOf(file: string, warn: (m: string, at: SourceLocation) => void): string | null {
  try {
    const doc = JSON.parse(readRegularText(file, 1 << 20)) as { child_session_id?: unknown };
    return typeof doc?.child_session_id === 'string' && doc.child_session_id ? doc.child_session_id : null;
  } catch (e) {
    warn(
      `sub-agent meta.json not readable as JSON (${e instanceof SyntaxError ? 'not JSON' : (e as Error).message}); its child session is counted as a session of its own`,
      { file },
    );
    return null;
  }
}

export async function discoverGrok(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  const found: { file: string; real: string }[] = [];
  const children = new Set<string>();
  const onError = (p: string, e: Error) => warn(`cannot read directory: ${e.message}`, { file: p });
  for (const root of roots) {
    if (!root.exists || root.unread) continue;
    const dir =
      basename(root.path) === 'sessions' && !isDir(join(root.path, 'sessions'))
        ? root.path
        : join(root.path, 'sessions');
    if (!isDir(dir)) continue;
    const files = await walkFiles(
      dir,
      (name) => name === 'updates.jsonl' || name === 'meta.json',
      onError,
      4,
      realPaths,
    );
    for (const file of files) {
      if (basename(file) === 'meta.json') {
        if (basename(dirname(dirname(file))) !== 'subagents') continue;
        const child = childOf(file, warn);
        if (child !== null) children.add(child);
        continue;
      }
      const real = realPaths.of(file);
      if (seen.has(real)) continue;
      seen.add(real);
      found.push({ file, real });
    }
  }
  return found.map(({ file, real }) => {
    const session = basename(dirname(file));
    // README "Sub-agents": a child's usage is folded into its parent's turn.
    const meta: Record<string, string> = { session, sessionDir: dirname(file) };
    if (children.has(session)) meta.subagentChild = '1';
    return { harness: 'grok' as const, key: real, path: file, kind: 'jsonl' as const, meta };
  });
}
