// Roo Code's and Kilo Code's `customStoragePath` setting (README.md of
// roo-code/, "Where"): tasks kept in `<that folder>/tasks/<taskId>/` instead
// of the extension's globalStorage. The extension reads it with
// `vscode.workspace.getConfiguration(<package name>).get("customStoragePath")`
// and writes it (its "set custom storage path" command) to the user settings
// (`ConfigurationTarget.Global`): RooCodeInc/Roo-Code @ cb83656
// `src/utils/storage.ts` (getStorageBasePath, getTaskDirectoryPath,
// promptForCustomStoragePath), key `roo-cline.customStoragePath` in
// `src/package.json`; Kilo-Org/kilocode `src/utils/storage.ts` (the same
// code) with `kilo-code.customStoragePath` (its `src/package.json`).
//
// So the setting is looked for, read-only, in each editor's user
// settings.json, its profiles' (`User/profiles/<id>/settings.json`, VS Code
// docs "Profile settings"), and a remote server's machine settings
// (`<server>/data/Machine/settings.json`). VS Code allows comments and
// trailing commas there (io/jsonc.ts). Every folder named is a root: the
// setting may have changed, and tasks written under each are still there.
import { dirname, isAbsolute, join } from 'node:path';
import type { SourceLocation } from '../../core/types.js';
import { JsoncError, parseJsonc } from '../../io/jsonc.js';
import { kindOf, readSmallText } from '../../io/observed-fs.js';
import { listDirWarned } from '../roots.js';

type Warn = (message: string, at: SourceLocation) => void;

export interface EditorUserDir {
  path: string;
  origin: string;
  /** A remote server's user dir (`~/.vscode-server/data/User`): its machine settings are beside it. */
  server?: boolean;
}

/** The settings files of one editor user dir that exist as names (missing ones are skipped by the read). */
export function settingsFiles(dir: EditorUserDir, warn: Warn | undefined): string[] {
  const files = [join(dir.path, 'settings.json')];
  const profiles = join(dir.path, 'profiles');
  if (kindOf(profiles) === 'dir') {
    for (const p of listDirWarned(profiles, warn ?? (() => {})) ?? []) {
      if (p.kind === 'dir' || p.kind === 'link') files.push(join(profiles, p.name, 'settings.json'));
    }
  }
  if (dir.server) files.push(join(dirname(dir.path), 'Machine', 'settings.json'));
  return files;
}

/** One settings file's value of `<section>.customStoragePath`, checked; undefined when unset or unusable (with a warning). */
function customStorageOf(file: string, key: string, rootFlag: string, warn: Warn | undefined): string | undefined {
  const text = readSmallText(file);
  if (text === null) {
    // Missing is the rule; anything else there is said.
    const kind = kindOf(file);
    if (kind === 'file') warn?.(`cannot be read, or over 1 MiB; ${key} not read from it`, { file });
    else if (kind !== null) warn?.(`not a regular file; ${key} not read from it`, { file });
    return undefined;
  }
  let v: unknown;
  try {
    v = parseJsonc(text);
  } catch (e) {
    if (!(e instanceof JsoncError)) throw e;
    warn?.(`not valid JSON with comments (${e.message}); ${key} not read from it`, { file, line: e.line });
    return undefined;
  }
  if (v === undefined) return undefined;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    warn?.(`not a JSON object of settings; ${key} not read from it`, { file });
    return undefined;
  }
  const value = (v as Record<string, unknown>)[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') {
    warn?.(`${key} is not a string; ignored`, { file });
    return undefined;
  }
  // The extension's own prompt accepts only absolute paths; a relative one
  // would be made by mkdir against the editor process's working folder
  // (storage.ts: no `~` expansion either), which cannot be known here.
  if (!isAbsolute(value)) {
    warn?.(
      `${key} ${JSON.stringify(value)} is not an absolute path (the extension resolves it against the editor's own working folder); point ${rootFlag} at that folder`,
      { file },
    );
    return undefined;
  }
  return value;
}

/**
 * Every folder `<section>.customStoragePath` names in the editors' settings
 * files, each once, with the file that named it. `rootFlag` is the flag a
 * warning tells the user to use instead (`--root roo-code=PATH`).
 */
export function customStorageDirs(
  userDirs: EditorUserDir[],
  section: string,
  rootFlag: string,
  warn: Warn | undefined,
): { path: string; origin: string }[] {
  const key = `${section}.customStoragePath`;
  const out: { path: string; origin: string }[] = [];
  for (const dir of userDirs) {
    for (const file of settingsFiles(dir, warn)) {
      const p = customStorageOf(file, key, rootFlag, warn);
      if (p !== undefined && !out.some((d) => d.path === p)) out.push({ path: p, origin: `${key} in ${file}` });
    }
  }
  return out;
}
