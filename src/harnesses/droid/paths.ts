// Factory Droid's sessions (README.md "Where"): `<sessions>/**/<id>.settings.json`,
// each rewritten in place with the session's running token totals, beside
// its `<id>.jsonl` transcript. The sessions folder is
//   --root droid=PATH (repeatable), else DROID_SESSIONS_DIR (comma list,
//   ccusage's name), else $FACTORY_DIR/sessions (codeburn's), else
//   ~/.factory/sessions.
import { dirname, join } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { resolveRoots, walkFiles, RealPaths } from '../roots.js';
import type { PathContext, RootSpec, SourceRef } from '../types.js';

/** Exactly `<id>.settings.json`: never the `.bak` copy beside it, nor Droid's own `settings.json`. */
const SETTINGS = /^(.+)\.settings\.json$/;

export function droidRoots(ctx: PathContext): RootSpec[] {
  if (ctx.rootOverrides.length || ctx.env.DROID_SESSIONS_DIR?.trim())
    return resolveRoots(ctx, { envVars: ['DROID_SESSIONS_DIR'], listEnv: true, defaults: [] });
  return resolveRoots(ctx, { envVars: ['FACTORY_DIR'], defaults: ['.factory'], mapRoot: (d) => join(d, 'sessions') });
}

export async function discoverDroid(
  roots: RootSpec[],
  warn: (m: string, at: SourceLocation) => void,
): Promise<SourceRef[]> {
  const out: SourceRef[] = [];
  const seen = new Set<string>();
  const real = new RealPaths();
  for (const root of roots) {
    if (!root.exists) continue;
    const files = await walkFiles(
      root.path,
      (name) => SETTINGS.test(name),
      (p, e) => warn(`cannot read directory: ${e.message}`, { file: p }),
      12,
      real,
    );
    for (const file of files) {
      const key = real.of(file);
      if (seen.has(key)) continue;
      seen.add(key);
      const id = SETTINGS.exec(file.slice(file.lastIndexOf('/') + 1))![1]!;
      // The transcript beside it gives the session's last activity (its time): its change is the source's too.
      out.push({
        harness: 'droid',
        key,
        path: file,
        kind: 'json',
        companions: [join(dirname(file), `${id}.jsonl`)],
        meta: { session: id },
      });
    }
  }
  return out;
}
