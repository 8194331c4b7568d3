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
// Units of work are marked the same way (`unit_rows.kept`, schema v11, issue
// 37; KEPT_AUDIT), and each transaction notes the sessions whose facts it may
// have changed for store/session-stats.ts.
//
// (A table holding a copy of each winning row was measured first: inserting
// the copies cost 280-440 ms of CPU per 190k responses on a cold run, the
// marks cost a grouping of the new keys, ~30-50 ms.)
import type { DuckDBConnection } from './duckdb.js';
import { INTEGER } from './duckdb.js';

const WINNER_ORDER = `input_tokens + cache_read_tokens + cache_write_tokens + output_tokens DESC, dedupe_rank, source_file, source_line`;

/**
 * A table whose rows are marked, one per dedupe key, at write time: its
 * combinations table, the mark column, the partition a key is unique in and
 * the rule's order (the first row wins).
 */
interface MarkSpec {
  rows: string;
  attrs: string;
  attrId: string;
  mark: string;
  /** Columns of the attrs table the rule reads beside the row's own. */
  attrCols: string;
  partition: string;
  order: string;
  /** Connection-local table of the dedupe keys whose rows a transaction deleted. */
  removed: string;
}

/** Responses: `usage_rows.billed` (schema v7). */
const BILLED: MarkSpec = {
  rows: 'usage_rows',
  attrs: 'event_attrs',
  attrId: 'attr_id',
  mark: 'billed',
  attrCols: 'a.harness, a.source_file',
  partition: 'harness, dedupe_key',
  order: WINNER_ORDER,
  removed: 'txu_removed_keys',
};

/**
 * Units of work: `unit_rows.kept` (schema v11, issue 37), the rule v10's
 * work_units view applied at every query — per (harness, kind, dedupe key)
 * the lowest rank (originals before fork copies), then the most units, then
 * a stable order — so that work_units is the kept rows joined with their
 * strings instead of a grouping of every unit row per reference (four per
 * compare run).
 */
export const UNIT_KEPT_ORDER = 'dedupe_rank, n DESC, source_key, ts_ms';
const KEPT: MarkSpec = {
  rows: 'unit_rows',
  attrs: 'unit_attrs',
  attrId: 'unit_attr_id',
  mark: 'kept',
  attrCols: 'a.harness, a.source_key',
  partition: 'harness, kind, dedupe_key',
  order: UNIT_KEPT_ORDER,
  removed: 'txu_removed_unit_keys',
};

/**
 * Sessions whose facts (session_stats, store/session-stats.ts) may have
 * changed in the open transaction besides those of its new rows: the
 * sessions of deleted rows and of rows whose billed mark was decided again.
 */
export const TOUCHED_SESSIONS = 'txu_touched_sessions';

async function ensureTemp(conn: DuckDBConnection): Promise<void> {
  await conn.run(`CREATE TEMP TABLE IF NOT EXISTS ${BILLED.removed} (dedupe_key VARCHAR)`);
  await conn.run(`CREATE TEMP TABLE IF NOT EXISTS ${KEPT.removed} (dedupe_key BIGINT)`);
  await conn.run(`CREATE TEMP TABLE IF NOT EXISTS ${TOUCHED_SESSIONS} (harness VARCHAR, session_id VARCHAR)`);
}

/**
 * Records what the caller is about to delete of sources `keys` (a list
 * parameter $keys): the dedupe keys of their responses and units (the
 * transaction's commit marks those keys' remaining rows again) and the
 * sessions of their responses (their facts are made again).
 */
export async function noteRemovedKeys(conn: DuckDBConnection, params: Record<string, unknown>, types: Record<string, unknown>): Promise<void> {
  await ensureTemp(conn);
  const ofSources = `attr_id IN (SELECT attr_id FROM event_attrs WHERE list_contains($keys, source_key))`;
  await conn.run(`INSERT INTO temp.${BILLED.removed} SELECT dedupe_key FROM usage_rows WHERE ${ofSources}`, params as never, types as never);
  await conn.run(
    `INSERT INTO temp.${TOUCHED_SESSIONS} SELECT DISTINCT harness, session_id FROM event_attrs WHERE list_contains($keys, source_key)`,
    params as never,
    types as never,
  );
  await conn.run(
    `INSERT INTO temp.${KEPT.removed} SELECT dedupe_key FROM unit_rows WHERE unit_attr_id IN (SELECT unit_attr_id FROM unit_attrs WHERE list_contains($keys, source_key))`,
    params as never,
    types as never,
  );
}

/**
 * Brings one kind of marks up to date, inside the caller's transaction, for
 * the keys it touched: rows appended (marked) with an attr id >= `firstNew`
 * (null: none) and rows deleted after noteRemovedKeys. `decided` is told the
 * temp table of the keys decided again, before it goes.
 */
async function maintainMarks(conn: DuckDBConnection, m: MarkSpec, firstNew: number | null, removed: boolean, decided?: (table: string) => Promise<void>): Promise<void> {
  if (firstNew === null && !removed) return;
  // Keys to decide: appended ones that now have several rows, and every key that lost a row.
  const parts: string[] = [];
  if (firstNew !== null) {
    parts.push(`
      SELECT dedupe_key FROM ${m.rows}
      WHERE dedupe_key IN (SELECT dedupe_key FROM ${m.rows} WHERE ${m.attrId} >= $first)
      GROUP BY dedupe_key HAVING count(*) > 1`);
  }
  if (removed) parts.push(`SELECT dedupe_key FROM temp.${m.removed}`);
  const decide = `CREATE OR REPLACE TEMP TABLE txu_decide AS SELECT DISTINCT dedupe_key FROM (${parts.join(' UNION ALL ')})`;
  if (firstNew !== null) await conn.run(decide, { first: firstNew }, { first: INTEGER });
  else await conn.run(decide);
  await conn.run(`
    UPDATE ${m.rows} SET ${m.mark} = rowid IN (
      SELECT rid FROM (
        SELECT r.rowid AS rid, r.*, ${m.attrCols} FROM ${m.rows} r JOIN ${m.attrs} a USING (${m.attrId})
        WHERE r.dedupe_key IN (SELECT dedupe_key FROM temp.txu_decide)
      )
      QUALIFY row_number() OVER (PARTITION BY ${m.partition} ORDER BY ${m.order}) = 1
    )
    WHERE dedupe_key IN (SELECT dedupe_key FROM temp.txu_decide)`);
  await decided?.('temp.txu_decide');
  await conn.run(`DROP TABLE temp.txu_decide`);
  if (removed) await conn.run(`DELETE FROM temp.${m.removed}`);
}

/**
 * Brings the billed marks up to date, inside the caller's transaction, for
 * the keys it touched: rows appended (marked) with attr_id >= `firstNewAttr`
 * (null: none) and rows deleted after noteRemovedKeys. The sessions of the
 * rows whose marks were decided again are noted (TOUCHED_SESSIONS).
 */
export async function maintainBilled(conn: DuckDBConnection, firstNewAttr: number | null, removed: boolean): Promise<void> {
  await maintainMarks(conn, BILLED, firstNewAttr, removed, async (decide) => {
    await ensureTemp(conn);
    await conn.run(`
      INSERT INTO temp.${TOUCHED_SESSIONS}
      SELECT DISTINCT a.harness, a.session_id FROM usage_rows r JOIN event_attrs a USING (attr_id)
      WHERE r.dedupe_key IN (SELECT dedupe_key FROM ${decide})`);
  });
}

/** The units' kept marks, as maintainBilled keeps the billed ones: units appended with unit_attr_id >= `firstNewUnitAttr`, and deleted ones. */
export async function maintainKept(conn: DuckDBConnection, firstNewUnitAttr: number | null, removed: boolean): Promise<void> {
  await maintainMarks(conn, KEPT, firstNewUnitAttr, removed);
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

/** The units' invariant, as BILLED_AUDIT: work_units holds exactly the rows v10's rule picks over unit_events, each once. */
export const KEPT_AUDIT = `
  WITH reference AS (
    SELECT harness, session_id, kind, dedupe_key, ts_ms, n FROM unit_events
    QUALIFY row_number() OVER (PARTITION BY harness, kind, dedupe_key ORDER BY ${UNIT_KEPT_ORDER}) = 1
  ),
  kept AS (SELECT harness, session_id, kind, dedupe_key, ts_ms, n FROM work_units)
  (SELECT 'extra' AS problem, * FROM (SELECT * FROM kept EXCEPT ALL SELECT * FROM reference))
  UNION ALL
  (SELECT 'missing' AS problem, * FROM (SELECT * FROM reference EXCEPT ALL SELECT * FROM kept))`;
