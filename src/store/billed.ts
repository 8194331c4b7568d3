// Deduplication at write time (issue 29). A response written more than once
// (split streaming lines, fork copies, moved files) has several rows in
// usage_rows; `usage_rows.billed` marks exactly one of them per (harness,
// dedupe key), so that `billed_events` (the view every report reads, schema
// v7) is the marked rows joined with their strings, and report queries are
// plain aggregates instead of a deduplicating window per query.
//
// The rule (the one v1's view applied at every query): the largest usage
// (input + cache read + cache write + output), then the lowest dedupe_rank
// (originals before copies), then source_file, then source_line.
//
// Kept exact by each write transaction, just before it commits (store/
// write.ts BatchWriter): every row is appended marked (most keys have one
// row); the keys the transaction touched — those of the rows it appended and
// of the rows it deleted — that now have several rows, or lost one, get
// their marks from the rule again. A key the transaction did not touch keeps
// its rows, so its mark stays right. BILLED_AUDIT states the invariant as a
// query that must return no rows.
//
// (A table holding a copy of each winning row was measured first: inserting
// the copies cost 280-440 ms of CPU per 190k responses on a cold run, the
// marks cost a grouping of the new keys, ~30-50 ms.)
import type { DuckDBConnection } from './duckdb.js';
import { INTEGER } from './duckdb.js';

const WINNER_ORDER = `input_tokens + cache_read_tokens + cache_write_tokens + output_tokens DESC, dedupe_rank, source_file, source_line`;

/** Connection-local table of dedupe keys whose rows a transaction deleted (see noteRemovedKeys). */
const REMOVED = 'temp.txu_removed_keys';

/**
 * Records the dedupe keys of the rows `rowsWhere` (a predicate on
 * usage_rows) selects, before the caller deletes them: the transaction's
 * commit marks those keys' remaining rows again.
 */
export async function noteRemovedKeys(conn: DuckDBConnection, rowsWhere: string, params: Record<string, unknown>, types: Record<string, unknown>): Promise<void> {
  await conn.run(`CREATE TEMP TABLE IF NOT EXISTS txu_removed_keys (dedupe_key VARCHAR)`);
  await conn.run(`INSERT INTO ${REMOVED} SELECT dedupe_key FROM usage_rows WHERE ${rowsWhere}`, params as never, types as never);
}

/**
 * Brings the billed marks up to date, inside the caller's transaction, for
 * the keys it touched: rows appended (marked) with attr_id >= `firstNewAttr`
 * (null: none) and rows deleted after noteRemovedKeys.
 */
export async function maintainBilled(conn: DuckDBConnection, firstNewAttr: number | null, removed: boolean): Promise<void> {
  if (firstNewAttr === null && !removed) return;
  // Keys to decide: appended ones that now have several rows, and every key that lost a row.
  const parts: string[] = [];
  if (firstNewAttr !== null) {
    parts.push(`
      SELECT dedupe_key FROM usage_rows
      WHERE dedupe_key IN (SELECT dedupe_key FROM usage_rows WHERE attr_id >= $first)
      GROUP BY dedupe_key HAVING count(*) > 1`);
  }
  if (removed) parts.push(`SELECT dedupe_key FROM ${REMOVED}`);
  const decide = `CREATE OR REPLACE TEMP TABLE txu_decide AS SELECT DISTINCT dedupe_key FROM (${parts.join(' UNION ALL ')})`;
  if (firstNewAttr !== null) await conn.run(decide, { first: firstNewAttr }, { first: INTEGER });
  else await conn.run(decide);
  await conn.run(`
    UPDATE usage_rows SET billed = rowid IN (
      SELECT rid FROM (
        SELECT r.rowid AS rid, r.*, a.harness, a.source_file FROM usage_rows r JOIN event_attrs a USING (attr_id)
        WHERE r.dedupe_key IN (SELECT dedupe_key FROM temp.txu_decide)
      )
      QUALIFY row_number() OVER (PARTITION BY harness, dedupe_key ORDER BY ${WINNER_ORDER}) = 1
    )
    WHERE dedupe_key IN (SELECT dedupe_key FROM temp.txu_decide)`);
  await conn.run(`DROP TABLE temp.txu_decide`);
  if (removed) await conn.run(`DELETE FROM ${REMOVED}`);
}

/**
 * The invariant, as an audit that must return no rows: billed_events holds
 * exactly the rows the rule picks over usage_events (what the view of
 * schema v1 computed at every query), each once.
 */
export const BILLED_AUDIT = `
  WITH reference AS (
    SELECT * FROM usage_events
    QUALIFY row_number() OVER (PARTITION BY harness, dedupe_key ORDER BY ${WINNER_ORDER}) = 1
  ),
  kept AS (SELECT * FROM billed_events)
  (SELECT 'extra' AS problem, * FROM (SELECT * FROM kept EXCEPT ALL SELECT * FROM reference))
  UNION ALL
  (SELECT 'missing' AS problem, * FROM (SELECT * FROM reference EXCEPT ALL SELECT * FROM kept))`;
