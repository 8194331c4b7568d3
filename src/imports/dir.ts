// Where imported usage exports are kept: tx-usage's cache dir, beside the
// store but not part of it. A copy is the user's billing record (Cursor keeps
// no billed usage on disk), so `--rebuild`, which discards the store, keeps
// them; `tx-usage import --remove` is the one way they go.
import { join } from 'node:path';
import { cacheDir } from '../core/cache-dir.js';

/** The kinds of export `tx-usage import` takes (folder names under imports/). */
export const IMPORT_KINDS = ['cursor-usage'] as const;
export type ImportKindName = (typeof IMPORT_KINDS)[number];

/** `$XDG_CACHE_HOME/tx-usage/imports/<kind>` (default `~/.cache/tx-usage/imports/<kind>`). */
export function importDir(env: NodeJS.ProcessEnv, home: string, kind: ImportKindName): string {
  return join(cacheDir(env, home), 'imports', kind);
}

/** A copy's file name: the first 16 hex digits of its SHA-256, so the same bytes are kept once. Other files there are not ours. */
export const COPY_NAME = /^([0-9a-f]{16})\.csv$/;
