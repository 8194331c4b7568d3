// The store's user-facing errors, in a module of their own so that code which
// only needs to recognise them does not load DuckDB.

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
