// Codex data roots (contract `codex`, layout): --root codex=PATH (repeatable),
// else CODEX_HOME, else ~/.codex. Under a root, rollouts live in
// sessions/YYYY/MM/DD/ and, once archived, flat in archived_sessions/; both as
// .jsonl or (after 7 idle days) .jsonl.zst. A root may also be a sessions or
// archived_sessions folder itself.
import { basename, join } from 'node:path';
import { exists } from '../../io/observed-fs.js';
import { isDir, RealPaths, resolveRoots, walkFiles } from '../roots.js';
import { THREAD_NAMES_FILE } from './thread-names.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';
import type { SourceLocation } from '../../core/types.js';

export function codexRoots(ctx: PathContext): RootSpec[] {
  return resolveRoots(ctx, { envVars: ['CODEX_HOME'], defaults: ['.codex'] });
}

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/** rollout-YYYY-MM-DDThh-mm-ss-<thread-id>[_<rollout-id>].jsonl[.zst] (timestamp is local time, unused). */
const ROLLOUT_NAME = new RegExp(
  `^rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-(${UUID})(?:_([^./]+))?\\.jsonl(?:\\.zst)?$`,
);

export function isRolloutName(name: string): boolean {
  return /^rollout-.+\.jsonl(\.zst)?$/.test(name);
}

/**
 * Thread id and rollout id from a rollout file name. The rollout id is the
 * `_<rollout-id>` suffix of a revert (or other rollout-id override) file and
 * '' for a thread's original rollout. Both survive compression and archiving,
 * which keep the file name; they are what identifies a rollout, not its path.
 */
export function parseRolloutName(name: string): { threadId: string | null; rolloutId: string } {
  const m = ROLLOUT_NAME.exec(name);
  if (m) return { threadId: m[1]!.toLowerCase(), rolloutId: m[2] ?? '' };
  // Non-standard name: its stem stands in for both (stable across .zst and moves).
  const stem = name.replace(/\.jsonl(\.zst)?$/, '');
  return { threadId: null, rolloutId: stem };
}

/** The folders searched under one root: sessions/ and archived_sessions/, or the root itself. */
function searchDirs(root: string): { dir: string; archived: boolean }[] {
  const name = basename(root);
  if (name === 'sessions') return [{ dir: root, archived: false }];
  if (name === 'archived_sessions') return [{ dir: root, archived: true }];
  const dirs = [
    { dir: join(root, 'sessions'), archived: false },
    { dir: join(root, 'archived_sessions'), archived: true },
  ].filter((d) => isDir(d.dir));
  return dirs.length ? dirs : [{ dir: root, archived: false }];
}

export async function discoverCodex(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  const out: SourceRef[] = [];
  for (const root of roots) {
    if (!root.exists) continue;
    for (const { dir, archived } of searchDirs(root.path)) {
      const files = await walkFiles(
        dir,
        (name) => isRolloutName(name),
        (p, e) => warn(`cannot read directory: ${e.message}`, { file: p }),
        4,
        realPaths,
      );
      for (const file of files) {
        const real = realPaths.of(file);
        if (seen.has(real)) continue;
        seen.add(real);
        const { threadId, rolloutId } = parseRolloutName(basename(file));
        const meta: Record<string, string> = { rolloutId, archived: archived ? '1' : '0' };
        if (threadId) meta.threadId = threadId;
        out.push({
          harness: 'codex',
          key: real,
          path: file,
          kind: file.endsWith('.zst') ? 'jsonl.zst' : 'jsonl',
          meta,
        });
      }
    }
    // Thread names (titles), in the Codex home itself.
    const names = join(root.path, THREAD_NAMES_FILE);
    if (exists(names)) {
      const real = realPaths.of(names);
      if (!seen.has(real)) {
        seen.add(real);
        out.push({ harness: 'codex', key: real, path: names, kind: 'jsonl', meta: { role: 'thread-names' } });
      }
    }
  }
  return out;
}
