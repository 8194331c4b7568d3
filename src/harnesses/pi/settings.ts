// pi's own session folder: `sessionDir` in its settings.json (README.md,
// "Where"). Read the way pi reads it (earendil-works/pi,
// packages/coding-agent/src/core/settings-manager.ts and main.ts):
// - global settings `<agent dir>/settings.json`, project settings
//   `<project>/.pi/settings.json`, the project's value winning in that project;
// - the value goes through normalizePath (utils/paths.ts): `~` and `~/…` are
//   the home folder, a `file://` URL its path; a relative value is left
//   relative, so pi resolves it against the folder it runs in — the project.
// Which project folders pi has settings in: the keys of `<agent dir>/trust.json`
// (core/trust-manager.ts), where pi records a trust decision for every folder
// whose `.pi/` holds settings.json or other project resources.
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SourceLocation } from '../../core/types.js';
import { readSmallText } from '../../io/observed-fs.js';

export interface SessionDirSetting {
  path: string;
  /** Which settings file named it (shown as the root's origin). */
  origin: string;
}

type Warn = (message: string, at: SourceLocation) => void;

/** A settings file's JSON object, or null (missing: silently; unreadable JSON: with a warning). */
function readJsonObject(file: string, warn: Warn | undefined, what: string): Record<string, unknown> | null {
  const text = readSmallText(file);
  if (text === null) return null;
  let v: unknown;
  try {
    v = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    warn?.(`not valid JSON (${(e as Error).message}); ${what} not read`, { file });
    return null;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    warn?.(`not a JSON object; ${what} not read`, { file });
    return null;
  }
  return v as Record<string, unknown>;
}

/** pi's normalizePath: `~` expanded, a file URL made a path; anything else as written. */
function normalizePath(value: string, home: string): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return join(home, value.slice(2));
  if (/^file:\/\//.test(value)) {
    try {
      return fileURLToPath(value);
    } catch {
      return value;
    }
  }
  return value;
}

/** The `sessionDir` of one settings file, checked; undefined when unset. */
function sessionDirOf(file: string, warn: Warn | undefined): string | undefined {
  const s = readJsonObject(file, warn, 'sessionDir');
  if (!s || s.sessionDir === undefined || s.sessionDir === null || s.sessionDir === '') return undefined;
  if (typeof s.sessionDir !== 'string') {
    warn?.('sessionDir is not a string; ignored', { file });
    return undefined;
  }
  return s.sessionDir;
}

/** Project folders pi keeps a trust decision for (absolute paths), from `<agent dir>/trust.json`. */
function trustedProjects(agentDir: string, warn: Warn | undefined): string[] {
  const t = readJsonObject(join(agentDir, 'trust.json'), warn, 'its project folders');
  return t
    ? Object.keys(t)
        .filter((k) => isAbsolute(k))
        .sort()
    : [];
}

/**
 * The session folders pi's settings name, each once, resolved as pi would in
 * each project it runs in. A relative global value with no project folder
 * known cannot be placed: a warning says so and how to point at it.
 */
export function settingsSessionDirs(agentDir: string, home: string, warn?: Warn): SessionDirSetting[] {
  const out: SessionDirSetting[] = [];
  const add = (path: string, origin: string) => {
    if (!out.some((d) => d.path === path)) out.push({ path, origin });
  };
  const projects = trustedProjects(agentDir, warn);
  const globalFile = join(agentDir, 'settings.json');
  const global = sessionDirOf(globalFile, warn);
  if (global !== undefined) {
    const p = normalizePath(global, home);
    if (isAbsolute(p)) add(resolve(p), `sessionDir in ${globalFile}`);
    else if (projects.length)
      for (const proj of projects) add(resolve(proj, p), `sessionDir in ${globalFile}, in ${proj}`);
    else
      warn?.(
        `sessionDir ${JSON.stringify(global)} is relative: pi resolves it in the folder it runs in, and no project folder is known (trust.json); point --root pi=PATH at it`,
        { file: globalFile },
      );
  }
  for (const proj of projects) {
    const file = join(proj, '.pi', 'settings.json');
    const own = sessionDirOf(file, warn);
    if (own === undefined) continue;
    add(resolve(proj, normalizePath(own, home)), `sessionDir in ${file}`);
  }
  return out;
}
