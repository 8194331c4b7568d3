// Qwen Code data roots and session files (README.md "Where"):
//   --root qwen-code=PATH (repeatable; a `.qwen` dir, or its projects/ or tmp/ dir),
//   else QWEN_RUNTIME_DIR (where sessions go while it is set) AND the global
//   dir: QWEN_HOME, else ~/.qwen (sessions written before or without it).
// Under a root: projects/<sanitized cwd>/chats/<session id>.jsonl, archived
// sessions in chats/archive/, and the older tmp/<hash>/chats/*.json. Every
// `*.jsonl` there is read, whatever its name (the session id is in each
// record, README "Where"), except the `<id>.ledger.jsonl` sidecar; the other
// sidecars (<id>.worktree.json, <id>.pr.json) are not JSONL.
import { basename, join } from 'node:path';
import { isDir, RealPaths, resolveRoots, subdirsWith, walkFiles } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';
import type { SourceLocation } from '../../core/types.js';

/**
 * A chat file: any `*.jsonl` but the `<id>.ledger.jsonl` sidecar. Qwen Code
 * names its own `<session id>.jsonl` (sessionService.ts SESSION_FILE_PATTERN),
 * but a chat file named otherwise still holds billed calls, each record
 * naming its session.
 */
const SESSION_FILE = /^(?!.*\.ledger\.jsonl$).+\.jsonl$/;

export function qwenRoots(ctx: PathContext): RootSpec[] {
  if (ctx.rootOverrides.length) return resolveRoots(ctx, { envVars: [], defaults: [] });
  const noFlags = { ...ctx, rootOverrides: [] };
  const runtime = ctx.env.QWEN_RUNTIME_DIR?.trim()
    ? resolveRoots(noFlags, { envVars: ['QWEN_RUNTIME_DIR'], defaults: [] })
    : [];
  const global = resolveRoots(noFlags, { envVars: ['QWEN_HOME'], defaults: ['.qwen'] });
  const seen = new Set<string>();
  return [...runtime, ...global].filter((r) => (seen.has(r.path) ? false : (seen.add(r.path), true)));
}

/** The folders searched under a root: projects/ (JSONL) and tmp/ (legacy JSON), or the root itself when it is one of them. */
function searchDirs(root: string): { dir: string; legacy: boolean }[] {
  const name = basename(root);
  if (name === 'projects') return [{ dir: root, legacy: false }];
  if (name === 'tmp') return [{ dir: root, legacy: true }];
  return [
    { dir: join(root, 'projects'), legacy: false },
    { dir: join(root, 'tmp'), legacy: true },
  ];
}

export async function discoverQwen(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  const out: SourceRef[] = [];
  const onError = (p: string, e: Error) => warn(`cannot read directory: ${e.message}`, { file: p });
  for (const root of roots) {
    if (!root.exists) continue;
    for (const { dir, legacy } of searchDirs(root.path)) {
      if (!isDir(dir)) continue;
      const accept = legacy ? (name: string) => name.endsWith('.json') : (name: string) => SESSION_FILE.test(name);
      for (const [project, chats] of subdirsWith(dir, 'chats', onError)) {
        const files = await walkFiles(chats, accept, onError, legacy ? 0 : 1, realPaths);
        for (const file of files) {
          const real = realPaths.of(file);
          if (seen.has(real)) continue;
          seen.add(real);
          const meta = { sessionId: basename(file).replace(/\.jsonl?$/, ''), projectDir: project };
          out.push({ harness: 'qwen-code', key: real, path: file, kind: legacy ? 'json' : 'jsonl', meta });
        }
      }
    }
  }
  return out;
}
