// The store's side of `tx-usage import`: what an imported file's rows added,
// and removing them when the import is removed.
import { VARCHAR, type DuckDBConnection } from './duckdb.js';
import { forgetSources } from './write.js';

export interface ImportFigures {
  /** Billed responses the file holds. */
  events: number;
  /** Of those, responses another source of the same harness holds too (an overlapping or repeated export): counted once. */
  shared: number;
}

export async function importFigures(conn: DuckDBConnection, sourceKey: string): Promise<ImportFigures> {
  const r = await conn.runAndReadAll(
    `SELECT count(*) AS events,
            count(*) FILTER (WHERE EXISTS (
              SELECT 1 FROM usage_events o
              WHERE o.harness = e.harness AND o.dedupe_key = e.dedupe_key AND o.source_key <> e.source_key)) AS shared
     FROM usage_events e WHERE e.source_key = $key`,
    { key: sourceKey },
    { key: VARCHAR },
  );
  const row = r.getRowObjectsJson()[0] as { events: unknown; shared: unknown };
  return { events: Number(row.events), shared: Number(row.shared) };
}

/**
 * Removes an import's rows and bookkeeping now, in one transaction, rather
 * than leaving them to the next ingest's handling of sources that are gone
 * (which may keep the rows of deleted transcripts): removing an import means
 * its rows go.
 */
export async function forgetImport(conn: DuckDBConnection, sourceKeys: string[]): Promise<void> {
  await forgetSources(conn, sourceKeys);
}

/** The first instant (epoch ms) of Cursor activity in the store, billed or local; null when there is none. */
export async function cursorFirstActivity(conn: DuckDBConnection): Promise<number | null> {
  const r = await conn.runAndReadAll(`
    SELECT least(
      (SELECT min(ts_ms) FROM billed_events WHERE harness = 'cursor-agent'),
      (SELECT min(coalesce(first_ts_ms, last_ts_ms)) FROM context_rows WHERE harness = 'cursor-agent')) AS first`);
  const v = (r.getRowObjectsJson()[0] as { first: unknown }).first;
  return v === null || v === undefined ? null : Number(v);
}
