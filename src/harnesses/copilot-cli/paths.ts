// GitHub Copilot CLI's per-call usage (README.md "Where"): one SQLite
// database, `<root>/session-store.db` (WAL mode), where the root is
//   --root copilot-cli=PATH (repeatable: the config folder or the file),
//   else COPILOT_HOME (the CLI's own variable; it moves the database too),
//   else ~/.copilot.
import type { SourceLocation } from '../../core/types.js';
import { databaseSources } from '../opencode/paths.js';
import { resolveRoots } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

const DB_FILE = /^session-store\.db$/;

export function copilotRoots(ctx: PathContext): RootSpec[] {
  return resolveRoots(ctx, { envVars: ['COPILOT_HOME'], defaults: ['.copilot'] });
}

export async function discoverCopilot(roots: RootSpec[], warn: (m: string, at: SourceLocation) => void): Promise<SourceRef[]> {
  return databaseSources('copilot-cli', roots, DB_FILE, warn);
}
