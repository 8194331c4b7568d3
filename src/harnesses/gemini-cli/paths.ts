// Gemini CLI data roots and session files (README.md "Where"):
//   --root gemini-cli=PATH (repeatable; a `.gemini` dir or its `tmp` dir),
//   else GEMINI_CLI_HOME (Gemini CLI's own replacement for the home folder:
//   its data is in $GEMINI_CLI_HOME/.gemini), else ~/.gemini.
// Under <root>/tmp/<project>/chats/: session-*.jsonl (current), session-*.json
// (before April 2026), <parent session>/<id>.jsonl|json (subagents), and
// *.jsonl.unreadable-<ms> (a file Gemini CLI could not load, kept aside when
// it wrote the session again).
import { basename, dirname, join } from 'node:path';
import { exists } from '../../io/observed-fs.js';
import { isDir, RealPaths, resolveRoots, subdirsWith, walkFiles } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';
import type { SourceLocation } from '../../core/types.js';

/** The file a project's temp dir names its project folder in (ProjectRegistry, since 2026-02). */
export const PROJECT_ROOT_FILE = '.project_root';
/** Path → short id of every project Gemini CLI has seen, in the `.gemini` dir. */
export const REGISTRY_FILE = 'projects.json';

/** A `.gemini` dir holds tmp/; anything else given is taken as the tmp dir itself. */
function tmpDirOf(d: string): string {
  return basename(d) !== 'tmp' && isDir(join(d, 'tmp')) ? join(d, 'tmp') : d;
}

export function geminiRoots(ctx: PathContext): RootSpec[] {
  if (ctx.rootOverrides.length) return resolveRoots(ctx, { envVars: [], defaults: [], mapRoot: tmpDirOf });
  return resolveRoots(ctx, { envVars: ['GEMINI_CLI_HOME'], defaults: [''], mapRoot: (d) => join(d, '.gemini', 'tmp') });
}

/** A pre-2026-02 project dir is named by the SHA-256 of the project path. */
export const isHashDirName = (name: string): boolean => /^[0-9a-f]{64}$/.test(name);

/** Whether a name in chats/ (or a subagent dir) is a session file, and which kind. */
export function sessionFileKind(name: string): 'jsonl' | 'json' | null {
  if (name.endsWith('.jsonl') || /\.jsonl\.unreadable-\d+$/.test(name)) return 'jsonl';
  if (name.endsWith('.json')) return 'json';
  return null;
}

export async function discoverGemini(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  const out: SourceRef[] = [];
  const onError = (p: string, e: Error) => warn(`cannot read directory: ${e.message}`, { file: p });
  for (const root of roots) {
    if (!root.exists) continue;
    const registry = join(dirname(root.path), REGISTRY_FILE);
    for (const [name, chats] of subdirsWith(root.path, 'chats', onError)) {
      const projectDir = join(root.path, name);
      // Where the project folder is written down: the temp dir's marker, else
      // (an old hash-named dir) the registry whose paths hash to its name.
      const marker = join(projectDir, PROJECT_ROOT_FILE);
      const companions = exists(marker) ? [marker] : isHashDirName(name) && exists(registry) ? [registry] : [];
      const files = await walkFiles(chats, (n) => sessionFileKind(n) !== null, onError, 1, realPaths);
      const found = new Set(files);
      for (const file of files) {
        const real = realPaths.of(file);
        if (seen.has(real)) continue;
        seen.add(real);
        const fileName = basename(file);
        const kind = sessionFileKind(fileName)!;
        const meta: Record<string, string> = { projectDir: name };
        if (companions[0] === marker) meta.projectRootFile = marker;
        else if (companions.length) meta.registry = registry;
        const parent = dirname(file);
        if (parent !== chats) meta.parentSession = basename(parent);
        // Copies (README "Copies of a session"): the legacy file a resume
        // copied into <name>l, the backup of an unreadable file, a hash-named
        // dir that Gemini CLI copied into its short-id dir.
        if ((kind === 'json' && found.has(`${file}l`)) || fileName.includes('.unreadable-') || isHashDirName(name))
          meta.copy = '1';
        out.push({
          harness: 'gemini-cli',
          key: real,
          path: file,
          kind,
          meta,
          ...(companions.length ? { companions } : {}),
        });
      }
    }
  }
  return out;
}
