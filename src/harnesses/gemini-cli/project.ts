// The project folder of a Gemini CLI session (README.md "Session, project,
// time"). Session files do not hold it: the header has only `projectHash`,
// the SHA-256 of the folder's path. The project's temp dir names it in its
// `.project_root` marker (ProjectRegistry, since 2026-02); an older,
// hash-named temp dir is matched against the paths of the registry
// `projects.json`. Both files are the source's companions (paths.ts), so a
// change to them reads the source again.
import { createHash } from 'node:crypto';
import { readRegularText } from '../../io/regular-file.js';
import type { SourceRef } from '../types.js';

function readSmall(path: string): string | null {
  try {
    return readRegularText(path, 16 << 20);
  } catch {
    return null;
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The project folder `source` belongs to, or null when nothing on disk names it. */
export function projectOfSource(source: SourceRef, projectHash: string | null): string | null {
  const meta = source.meta ?? {};
  if (meta.projectRootFile) {
    const text = readSmall(meta.projectRootFile)?.trim();
    if (text) return text;
  }
  if (meta.registry) {
    const text = readSmall(meta.registry);
    let projects: unknown;
    try {
      projects = text ? (JSON.parse(text) as { projects?: unknown }).projects : null;
    } catch {
      projects = null;
    }
    if (projects && typeof projects === 'object') {
      const want = new Set([meta.projectDir, projectHash].filter((x): x is string => typeof x === 'string'));
      for (const path of Object.keys(projects)) if (want.has(sha256(path))) return path;
    }
  }
  return null;
}
