// The store's user-facing errors, in a module of their own so that code which
// only needs to recognise them does not load DuckDB.
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsProblem } from '../core/fs-problem.js';

/** A store problem the user must act on; the process exits with `exitCode`. */
export class StoreError extends Error {
  constructor(
    message: string,
    /** 2 for a usage error (the path or flags given are wrong), 1 otherwise. */
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

/** `--db PATH` names something that is not a tx-usage store: it is left exactly as it is. */
export class NotAStoreError extends StoreError {
  constructor(path: string, why?: string) {
    super(`not a tx-usage store: ${path}${why ? ` (${why})` : ''}`, 2);
  }
}

/**
 * Why tx-usage cannot write `path` (the store or its lock file), its WAL, or
 * the folder they are made in, or null when it can: an open for writing that
 * fails for this reason is a read-only store, not one in another program's
 * hands. Names the file or folder at fault.
 */
export function readOnlyProblem(path: string): string | null {
  for (const p of [path, `${path}.wal`, dirname(path)]) {
    if (!existsSync(p)) continue;
    try {
      accessSync(p, constants.W_OK);
    } catch (e) {
      return `${p}: ${fsProblem(e)}`;
    }
  }
  return null;
}

/**
 * The store (or what it needs beside it) cannot be written: said as such,
 * with what to do. A command that only reads may still answer from the store
 * as it is (runtime.ts openAndRefresh, `readOnlyOk`): `problem` is kept for
 * its warning. When there is no store file yet, it is not "read-only" (there
 * is nothing to write to): it cannot be created in that folder, and that is
 * what the message says.
 */
export class ReadOnlyStoreError extends StoreError {
  constructor(
    readonly path: string,
    readonly problem: string,
    /** No store file exists at `path`: it cannot be made there. */
    readonly missing = false,
  ) {
    super(
      missing
        ? `the store ${path} cannot be created (${problem}): there is no store yet, and this user cannot make one there; give that folder write permission, or use --db for a store elsewhere`
        : `the store ${path} is read-only (${problem}): tx-usage writes to it on every run; give it write permission, or use --db for a store elsewhere`,
    );
  }
}

export function readOnlyStoreError(path: string, problem: string): ReadOnlyStoreError {
  return new ReadOnlyStoreError(path, problem, !existsSync(path));
}

/**
 * The store's folder (`dir`) cannot be made (`e`, from mkdir): the store
 * cannot be created, said as such rather than as an errno line. Other errors
 * are returned as they are.
 */
export function storeFolderError(path: string, dir: string, e: unknown): unknown {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') return e;
  // mkdir names the folder it could not make; the one at fault is the first that exists on the way up.
  let at = dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  let why = fsProblem(e);
  try {
    accessSync(at, constants.W_OK);
  } catch (err) {
    why = fsProblem(err);
  }
  return new ReadOnlyStoreError(path, `${at}: ${why}`, true);
}
