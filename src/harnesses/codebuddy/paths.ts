// CodeBuddy Code's transcripts (README.md "Where"):
// `~/.codebuddy/projects/<cwd-slug>/<sessionId>.jsonl` and, below a session's
// folder, its sub-agents' `subagents/agent-*.jsonl`; a session's `memory/`
// folder holds no transcripts.
//   --root codebuddy=PATH (repeatable: a `.codebuddy` folder or its
//   `projects`), else CODEBUDDY_DIR (a comma list; peers' name, ccusage's),
//   else ~/.codebuddy/projects.
import { join, sep } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { isDir, RealPaths, resolveRoots, walkFiles } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

export function codebuddyRoots(ctx: PathContext): RootSpec[] {
  return resolveRoots(ctx, {
    envVars: ['CODEBUDDY_DIR'],
    listEnv: true,
    defaults: [join('.codebuddy', 'projects')],
    mapRoot: (d) => (isDir(join(d, 'projects')) ? join(d, 'projects') : d),
  });
}

const MEMORY = `${sep}memory${sep}`;

export async function discoverCodebuddy(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const out: SourceRef[] = [];
  const realPaths = new RealPaths();
  const onError = (path: string, err: Error) => warn(err.message, { file: path });
  for (const root of roots) {
    if (!root.exists) continue;
    const files = await walkFiles(
      root.path,
      (name, path) => name.endsWith('.jsonl') && !path.includes(MEMORY),
      onError,
      6,
      realPaths,
    );
    for (const file of files) {
      const real = realPaths.of(file);
      if (seen.has(real)) continue; // one file named by two roots: read once
      seen.add(real);
      out.push({ harness: 'codebuddy', key: real, path: file, kind: 'jsonl' });
    }
  }
  return out;
}
