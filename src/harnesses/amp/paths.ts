// Amp's legacy thread files (README.md "Where"): `<data>/threads/T-<id>.json`,
// one JSON document per thread, rewritten whole.
//   --root amp=PATH (repeatable; the folder holding threads/, or threads/ itself),
//   else AMP_DATA_DIR (comma list; ccusage's name, not shown to be Amp's own),
//   else ~/.local/share/amp.
// Amp's per-thread debug logs (~/.cache/amp/logs/threads) are named as found, not read.
import { basename, join } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { isDir, RealPaths, resolveRoots, rootSpec, walkFiles } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

const THREAD_FILE = /^T-.+\.json$/;

export function ampRoots(ctx: PathContext): RootSpec[] {
  if (ctx.rootOverrides.length) return resolveRoots(ctx, { envVars: [], defaults: [] });
  const out = resolveRoots(ctx, {
    envVars: ['AMP_DATA_DIR'],
    listEnv: true,
    defaults: [join('.local', 'share', 'amp')],
  });
  const logs = join(ctx.home, '.cache', 'amp', 'logs', 'threads');
  if (isDir(logs))
    out.push({
      ...rootSpec(logs, 'default'),
      unread: 'debug logs written on demand, no usage in them; usage is in threads/T-*.json',
    });
  return out;
}

export async function discoverAmp(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  const out: SourceRef[] = [];
  const onError = (p: string, e: Error) => warn(`cannot read directory: ${e.message}`, { file: p });
  for (const root of roots) {
    if (!root.exists || root.unread) continue;
    const dir = basename(root.path) === 'threads' ? root.path : join(root.path, 'threads');
    if (!isDir(dir)) continue;
    for (const file of await walkFiles(dir, (name) => THREAD_FILE.test(name), onError, 0, realPaths)) {
      const real = realPaths.of(file);
      if (seen.has(real)) continue;
      seen.add(real);
      out.push({
        harness: 'amp',
        key: real,
        path: file,
        kind: 'json',
        meta: { threadId: basename(file).replace(/\.json$/, '') },
      });
    }
  }
  return out;
}
