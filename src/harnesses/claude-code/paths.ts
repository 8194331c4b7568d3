// Claude Code data roots: --root claude-code=PATH, else CLAUDE_CONFIG_DIR (a
// comma-separated list), else both ~/.claude and ~/.config/claude.
// A root is a config dir; transcripts live in its projects/ folder.
import { basename, join, relative, sep } from 'node:path';
import { exists } from '../../io/observed-fs.js';
import { RealPaths, resolveRoots, walkFiles } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';
import type { SourceLocation } from '../../core/types.js';

export function claudeRoots(ctx: PathContext): RootSpec[] {
  return resolveRoots(ctx, {
    envVars: ['CLAUDE_CONFIG_DIR'],
    listEnv: true,
    defaults: ['.claude', '.config/claude'],
    // Accept either the config dir or its projects/ folder itself.
    mapRoot: (d) => (basename(d) !== 'projects' && exists(join(d, 'projects')) ? join(d, 'projects') : d),
  });
}

/**
 * Main transcripts: projects/<key>/<session>.jsonl.
 * Subagents: projects/<key>/<session>/subagents/**\/agent-<id>.jsonl (any nesting).
 */
export async function discoverClaude(roots: RootSpec[], warn: (m: string, at: SourceLocation) => void): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  const out: SourceRef[] = [];
  for (const root of roots) {
    if (!root.exists) continue;
    const files = await walkFiles(
      root.path,
      (name) => name.endsWith('.jsonl'),
      (p, e) => warn(e.message, { file: p }),
      8,
      realPaths,
    );
    // walkFiles joins names onto root.path: the relative part is a suffix
    // (path.relative per file was most of the warm run's discovery time).
    const prefix = root.path.endsWith(sep) ? root.path : root.path + sep;
    for (const file of files) {
      const rel = (file.startsWith(prefix) ? file.slice(prefix.length) : relative(root.path, file)).split(sep);
      let meta: Record<string, string> | null = null;
      const name = rel[rel.length - 1]!;
      if (rel.length === 2) {
        meta = { projectKey: rel[0]!, sessionId: name.slice(0, -'.jsonl'.length), role: 'main' };
      } else if (rel.length >= 4 && rel[2] === 'subagents' && /^agent-.+\.jsonl$/.test(name)) {
        meta = { projectKey: rel[0]!, sessionId: rel[1]!, role: 'subagent', agentId: name.slice(6, -'.jsonl'.length) };
      }
      if (!meta) continue;
      const real = realPaths.of(file);
      if (seen.has(real)) continue; // ~/.config/claude may be a link to ~/.claude
      seen.add(real);
      out.push({ harness: 'claude-code', key: real, path: file, kind: 'jsonl', meta });
    }
  }
  return out;
}

/** Lossy fallback when no line names a cwd: the project key with '-' read as '/'. */
export function projectFromKey(key: string): string {
  return key.startsWith('-') ? key.replace(/-/g, '/') : key;
}
