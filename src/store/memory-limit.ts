// DuckDB's memory limit while an ingest writes and settles. What the ingest
// has DuckDB hold is mostly blocks it can evict or spill (the rows appended,
// the roll-ups' inputs), and DuckDB keeps what it may as a cache: with the
// command line's 512 MB (store.ts CLI_DUCKDB), a first ingest of 100k small
// files held ~430 MB at its settle; with 256 MB that run peaked 130 MB lower
// at the same CPU time (issue 47). 64 MB failed there (the settle's one
// transaction holds more than it can spill): 256 MB leaves four times that.
import type { DuckDBConnection } from './duckdb.js';
import { CLI_DUCKDB } from './store.js';

export const INGEST_MEMORY_LIMIT = '256MB';

/** Runs `f` with DuckDB's memory limit at INGEST_MEMORY_LIMIT, then the command line's again. */
export async function withIngestMemoryLimit<T>(conn: DuckDBConnection, f: () => Promise<T>): Promise<T> {
  await conn.run(`SET memory_limit = '${INGEST_MEMORY_LIMIT}'`);
  try {
    return await f();
  } finally {
    await conn.run(`SET memory_limit = '${CLI_DUCKDB.memory_limit}'`).catch(() => undefined);
  }
}
