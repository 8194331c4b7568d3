// Antigravity's conversation databases (README.md "Where"): one SQLite file per
// conversation, `<root>/conversations/<uuid>.db`, under three roots that share
// the layout: ~/.gemini/antigravity-cli (the CLI, `agy`),
// ~/.gemini/antigravity-ide (the IDE) and ~/.gemini/antigravity (the older app).
//   --root antigravity=PATH (repeatable: a root, its conversations folder, or
//   one database file), else ANTIGRAVITY_DATA_DIR (a comma list; peers' name,
//   ccusage's, not Antigravity's own), else the three defaults.
import { join } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { realpath } from '../../io/observed-fs.js';
import { databaseFiles } from '../opencode/paths.js';
import { isDir, resolveRoots } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

export const DEFAULT_ROOTS = [
  join('.gemini', 'antigravity-cli'),
  join('.gemini', 'antigravity-ide'),
  join('.gemini', 'antigravity'),
];

const DB_FILE = /\.db$/;

export function antigravityRoots(ctx: PathContext): RootSpec[] {
  return resolveRoots(ctx, { envVars: ['ANTIGRAVITY_DATA_DIR'], listEnv: true, defaults: DEFAULT_ROOTS });
}

/** The folder a root's databases are in: its `conversations` folder, else the root itself. */
function conversationsOf(root: RootSpec): RootSpec {
  const inner = join(root.path, 'conversations');
  return isDir(inner) ? { ...root, path: inner } : root;
}

export async function discoverAntigravity(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const out: SourceRef[] = [];
  for (const file of databaseFiles(roots.map(conversationsOf), DB_FILE, warn)) {
    const real = realpath(file) ?? file;
    if (seen.has(real)) continue; // one database named by two roots: read once
    seen.add(real);
    // Committed rows may be only in the -wal (never the -shm, which every reader writes).
    out.push({ harness: 'antigravity', key: real, path: file, kind: 'sqlite', companions: [file + '-wal'] });
  }
  return out;
}
