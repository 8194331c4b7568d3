// Kimi's two products and their session folders (README.md "Where"):
//   kimi-cli (Python):  <share>/sessions/<bucket>/<session>/wire.jsonl and
//                       <share>/sessions/<bucket>/<session>/subagents/<agent>/wire.jsonl
//   Kimi Code (TS):     <home>/sessions/<bucket>/<session>/agents/<agent>/wire.jsonl
// Roots: --root kimi=PATH (repeatable; either product's folder: the layout of
// each session folder says which), else KIMI_SHARE_DIR (kimi-cli's own) or
// ~/.kimi, and KIMI_CODE_HOME (Kimi Code's own) or ~/.kimi-code.
import { basename, join, relative, sep } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { isDir, RealPaths, resolveRoots, walkFiles } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

export function kimiRoots(ctx: PathContext): RootSpec[] {
  if (ctx.rootOverrides.length) return resolveRoots(ctx, { envVars: [], defaults: [] });
  const cli = resolveRoots(ctx, { envVars: ['KIMI_SHARE_DIR'], defaults: ['.kimi'] });
  const code = resolveRoots(ctx, { envVars: ['KIMI_CODE_HOME'], defaults: ['.kimi-code'] });
  const seen = new Set<string>();
  return [...cli, ...code].filter((r) => (seen.has(r.path) ? false : (seen.add(r.path), true)));
}

/** The sessions folder under a root (the root itself when it is one). */
function sessionsDir(root: string): string {
  return basename(root) === 'sessions' && !isDir(join(root, 'sessions')) ? root : join(root, 'sessions');
}

/**
 * A wire file's place: `cli` (kimi-cli: the session's own wire, or a
 * sub-agent's under subagents/) or `code` (Kimi Code: agents/<id>/).
 * Anything else named wire.jsonl is not a session's.
 */
function layoutOf(parts: string[]): { layout: 'cli' | 'code'; bucket: string; session: string; agent: string } | null {
  if (parts.length === 3) return { layout: 'cli', bucket: parts[0]!, session: parts[1]!, agent: 'main' };
  if (parts.length === 5 && parts[2] === 'subagents')
    return { layout: 'cli', bucket: parts[0]!, session: parts[1]!, agent: parts[3]! };
  if (parts.length === 5 && parts[2] === 'agents')
    return { layout: 'code', bucket: parts[0]!, session: parts[1]!, agent: parts[3]! };
  return null;
}

export async function discoverKimi(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  const out: SourceRef[] = [];
  const onError = (p: string, e: Error) => warn(`cannot read directory: ${e.message}`, { file: p });
  for (const root of roots) {
    if (!root.exists) continue;
    const dir = sessionsDir(root.path);
    if (!isDir(dir)) continue;
    const home = dir === root.path ? join(root.path, '..') : root.path;
    for (const file of await walkFiles(dir, (name) => name === 'wire.jsonl', onError, 4, realPaths)) {
      const place = layoutOf(relative(dir, file).split(sep));
      if (!place) continue;
      const real = realPaths.of(file);
      if (seen.has(real)) continue;
      seen.add(real);
      out.push({
        harness: 'kimi',
        key: real,
        path: file,
        kind: 'jsonl',
        meta: { ...place, home, sessionDir: join(dir, place.bucket, place.session) },
      });
    }
  }
  return out;
}
