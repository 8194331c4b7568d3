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
 * its warning.
 */
export class ReadOnlyStoreError extends StoreError {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`the store ${path} is read-only (${problem}): tx-usage writes to it on every run; give it write permission, or use --db for a store elsewhere`);
  }
}

export function readOnlyStoreError(path: string, problem: string): ReadOnlyStoreError {
  return new ReadOnlyStoreError(path, problem);
}
