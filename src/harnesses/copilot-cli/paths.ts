// GitHub Copilot CLI's per-call usage (README.md "Where"): one SQLite
// database, `<root>/session-store.db` (WAL mode), where the root is
//   --root copilot-cli=PATH (repeatable: the config folder or the file),
//   else COPILOT_HOME (the CLI's own variable; it moves the database too),
//   else ~/.copilot.
import { join } from 'node:path';
import { kindOf, realpath } from '../../io/observed-fs.js';
import type { SourceLocation } from '../../core/types.js';
import { databaseSources } from '../opencode/paths.js';
import { listDirWarned, resolveRoots } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

const DB_FILE = /^session-store\.db$/;

export function copilotRoots(ctx: PathContext): RootSpec[] {
  return resolveRoots(ctx, { envVars: ['COPILOT_HOME'], defaults: ['.copilot'] });
}

export async function discoverCopilot(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const out = databaseSources('copilot-cli', roots, DB_FILE, warn);
  const seen = new Set(out.map((s) => s.key));
  // README "Shutdown summaries": a config folder without the store (older CLIs, a store removed) is
  // read from its sessions' events.jsonl summaries; one with the store never (the same calls again).
  for (const root of roots) {
    if (!root.exists || kindOf(root.path) !== 'dir' || kindOf(join(root.path, 'session-store.db')) !== null) continue;
    const state = join(root.path, 'session-state');
    if (kindOf(state) !== 'dir') continue;
    for (const e of listDirWarned(state, warn) ?? []) {
      const file = join(state, e.name, 'events.jsonl');
      if (kindOf(file) !== 'file') continue;
      const real = realpath(file) ?? file;
      if (seen.has(real)) continue;
      seen.add(real);
      out.push({ harness: 'copilot-cli', key: real, path: file, kind: 'jsonl', meta: { session: e.name } });
    }
  }
  return out;
}
