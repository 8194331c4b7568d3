// The store's user-facing error, in a module of its own so that code which
// only needs to recognise it does not load DuckDB.
export class StoreError extends Error {}
