// Deduplication at write time. A response written more than once
// (split streaming lines, fork copies, moved files) has several rows in
// usage_rows; `usage_rows.billed` marks exactly one of them per (harness,
// dedupe key), so that `billed_events` (the view every report reads, schema
// v7) is the marked rows joined with their strings, and report queries are
// plain aggregates instead of a deduplicating window per query.
//
// The rule: each harness's winner order (src/harnesses/dedupe.ts), the one
// its extractors fold split lines by: the largest usage (input + cache read +
// cache write + output), then the lowest dedupe_rank (originals before
// copies), then source_file, then source_line. BILLED_AUDIT states it as a
// query over every row.
//
// Units of work are marked the same way (`unit_rows.kept`, schema v12;
// KEPT_AUDIT), and the facts of the sessions whose responses changed are
// made again (store/session-stats.ts).
//
// Kept exact by the ingest that writes the rows (once per ingest,
// not per transaction). Every row is appended marked (most keys have one
// row). Each write transaction records, in the store and with its rows, what
// it touched: the smallest combination id it appended responses and units
// under (meta `billed_pending_from`, `kept_pending_from`), the keys of the
// rows it deleted (billed_pending, kept_pending) and the sessions whose
// responses it added or deleted (sessions_pending). settleMarks, in the
// ingest's last transaction, decides the marks of the touched keys that now
// have several rows or lost one, notes the sessions of those rows, makes
// those sessions' facts again and clears the pending state. A key no
// transaction touched keeps its rows, so its mark stays right; an ingest
// killed half-way leaves its pending state committed with its rows, and the
// next ingest settles it before any report reads the store (every command
// that reads the store ingests first). BILLED_AUDIT and KEPT_AUDIT state the
// invariant as queries that must return no rows.
//
// (A table holding a copy of each winning row was measured first: inserting
// the copies cost 280-440 ms of CPU per 190k responses on a cold run, the
// marks cost a grouping of the new keys, ~30-50 ms. Settled per transaction
// instead of per ingest, a cold ingest of the 1 GiB benchmark corpus, which
// commits every 2 s, decided the marks and session facts three times over a
// growing store.)
import { winnerOrderSql } from '../harnesses/dedupe.js';
import { HARNESSES } from '../harnesses/registry.js';
import type { DuckDBConnection } from './duckdb.js';
import { INTEGER } from './duckdb.js';
import { refreshSessionStats, SESSIONS_PENDING } from './session-stats.js';
import { refreshRollups } from './rollups.js';

const WINNER_ORDER = winnerOrderSql(HARNESSES);

/**
 * A table whose rows are marked, one per dedupe key, at write time: its
 * combinations table, the mark column, the partition a key is unique in and
 * the rule's order (the first row wins), and its pending state.
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
  /** Table of the dedupe keys whose rows were deleted since the last settle. */
  removed: string;
  /** meta key: the smallest attr id rows were appended under since the last settle. */
  from: string;
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
  removed: 'billed_pending',
  from: 'billed_pending_from',
};

/**
 * Units of work: `unit_rows.kept` (schema v12), by the rule KEPT_AUDIT
 * states — per (harness, kind, dedupe key)
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
  removed: 'kept_pending',
  from: 'kept_pending_from',
};

/**
 * Records, inside the open transaction, that responses were appended under
 * combinations with attr_id >= `firstAttr` and units under unit_attr_id >=
 * `firstUnitAttr` (null: none): the sessions of the new responses, and where
 * the keys to decide start.
 */
export async function notePending(
  conn: DuckDBConnection,
  firstAttr: number | null,
  firstUnitAttr: number | null,
): Promise<void> {
  for (const [m, first] of [
    [BILLED, firstAttr],
    [KEPT, firstUnitAttr],
  ] as const) {
    if (first === null) continue;
    await conn.run(
      `INSERT OR REPLACE INTO meta SELECT '${m.from}', CAST(least(min(TRY_CAST(value AS BIGINT)), $first) AS VARCHAR) FROM meta WHERE key = '${m.from}'`,
      { first },
      { first: INTEGER },
    );
  }
  if (firstAttr !== null) {
    await conn.run(
      `INSERT INTO ${SESSIONS_PENDING} SELECT DISTINCT harness, session_id FROM event_attrs WHERE attr_id >= $first`,
      { first: firstAttr },
      { first: INTEGER },
    );
  }
  // The sessions of new units too: their roll-ups (store/rollups.ts) are made again.
  if (firstUnitAttr !== null) {
    await conn.run(
      `INSERT INTO ${SESSIONS_PENDING} SELECT DISTINCT harness, session_id FROM unit_attrs WHERE unit_attr_id >= $first`,
      { first: firstUnitAttr },
      { first: INTEGER },
    );
  }
}

/**
 * Records what the caller is about to delete of sources `keys` (a list
 * parameter $keys): the dedupe keys of their responses and units (their
 * remaining rows are marked again) and the sessions of their responses
 * (their facts are made again).
 */
export async function noteRemovedKeys(
  conn: DuckDBConnection,
  params: Record<string, unknown>,
  types: Record<string, unknown>,
): Promise<void> {
  const run = (sql: string) => conn.run(sql, params as never, types as never);
  await run(
    `INSERT INTO ${BILLED.removed} SELECT dedupe_key FROM usage_rows WHERE attr_id IN (SELECT attr_id FROM event_attrs WHERE list_contains($keys, source_key))`,
  );
  await run(
    `INSERT INTO ${SESSIONS_PENDING} SELECT DISTINCT harness, session_id FROM event_attrs WHERE list_contains($keys, source_key)`,
  );
  await run(
    `INSERT INTO ${KEPT.removed} SELECT dedupe_key FROM unit_rows WHERE unit_attr_id IN (SELECT unit_attr_id FROM unit_attrs WHERE list_contains($keys, source_key))`,
  );
  await run(
    `INSERT INTO ${SESSIONS_PENDING} SELECT DISTINCT harness, session_id FROM unit_attrs WHERE list_contains($keys, source_key)`,
  );
}

/**
 * Decides one kind of marks again for the keys touched since the last
 * settle: rows appended with an attr id >= `from` (null: none) that now
 * share their key, and keys in the removed table. `decided` is told the temp
 * table of those keys, before it goes.
 */
async function settle(
  conn: DuckDBConnection,
  m: MarkSpec,
  from: number | null,
  removed: boolean,
  decided?: (table: string) => Promise<void>,
): Promise<void> {
  if (from === null && !removed) return;
  const parts: string[] = [];
  if (from !== null) {
    parts.push(`
      SELECT dedupe_key FROM ${m.rows}
      WHERE dedupe_key IN (SELECT dedupe_key FROM ${m.rows} WHERE ${m.attrId} >= $first)
      GROUP BY dedupe_key HAVING count(*) > 1`);
  }
  if (removed) parts.push(`SELECT dedupe_key FROM ${m.removed}`);
  const decide = `CREATE OR REPLACE TEMP TABLE txu_decide AS SELECT DISTINCT dedupe_key FROM (${parts.join(' UNION ALL ')})`;
  if (from !== null) await conn.run(decide, { first: from }, { first: INTEGER });
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
}

/**
 * Settles, inside the caller's transaction, everything pending: the billed
 * and kept marks of the keys touched since the last settle, then the
 * roll-ups and facts of the sessions touched (those noted, and those of the
 * responses and units whose mark was decided again). Returns whether
 * anything was pending.
 */
export async function settleMarks(conn: DuckDBConnection): Promise<boolean> {
  const r = await conn.runAndReadAll(`
    SELECT (SELECT max(value) FILTER (WHERE key = '${BILLED.from}') FROM meta) AS billed_from,
           (SELECT max(value) FILTER (WHERE key = '${KEPT.from}') FROM meta) AS kept_from,
           EXISTS (SELECT 1 FROM ${BILLED.removed}) AS billed_removed,
           EXISTS (SELECT 1 FROM ${KEPT.removed}) AS kept_removed,
           EXISTS (SELECT 1 FROM ${SESSIONS_PENDING}) AS sessions`);
  const p = r.getRowObjectsJson()[0] as {
    billed_from: string | null;
    kept_from: string | null;
    billed_removed: boolean;
    kept_removed: boolean;
    sessions: boolean;
  };
  const num = (v: string | null) => (v === null ? null : Number(v));
  if (p.billed_from === null && p.kept_from === null && !p.billed_removed && !p.kept_removed && !p.sessions)
    return false;
  await settle(conn, BILLED, num(p.billed_from), p.billed_removed, async (decide) => {
    await conn.run(`
      INSERT INTO ${SESSIONS_PENDING}
      SELECT DISTINCT a.harness, a.session_id FROM usage_rows r JOIN event_attrs a USING (attr_id)
      WHERE r.dedupe_key IN (SELECT dedupe_key FROM ${decide})`);
  });
  await settle(conn, KEPT, num(p.kept_from), p.kept_removed, async (decide) => {
    await conn.run(`
      INSERT INTO ${SESSIONS_PENDING}
      SELECT DISTINCT a.harness, a.session_id FROM unit_rows r JOIN unit_attrs a USING (unit_attr_id)
      WHERE r.dedupe_key IN (SELECT dedupe_key FROM ${decide})`);
  });
  // The roll-ups read the pending sessions before their facts clear them.
  await refreshRollups(conn);
  await refreshSessionStats(conn);
  await conn.run(`DELETE FROM meta WHERE key IN ('${BILLED.from}', '${KEPT.from}')`);
  if (p.billed_removed) await conn.run(`DELETE FROM ${BILLED.removed}`);
  if (p.kept_removed) await conn.run(`DELETE FROM ${KEPT.removed}`);
  return true;
}

/**
 * The invariant, as an audit that must return no rows: billed_events holds
 * exactly the rows the rule picks over usage_events, each once.
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

/** The units' invariant, as BILLED_AUDIT: work_units holds exactly the rows the rule picks over unit_events, each once. */
export const KEPT_AUDIT = `
  WITH reference AS (
    SELECT harness, session_id, kind, dedupe_key, ts_ms, n FROM unit_events
    QUALIFY row_number() OVER (PARTITION BY harness, kind, dedupe_key ORDER BY ${UNIT_KEPT_ORDER}) = 1
  ),
  kept AS (SELECT harness, session_id, kind, dedupe_key, ts_ms, n FROM work_units)
  (SELECT 'extra' AS problem, * FROM (SELECT * FROM kept EXCEPT ALL SELECT * FROM reference))
  UNION ALL
  (SELECT 'missing' AS problem, * FROM (SELECT * FROM reference EXCEPT ALL SELECT * FROM kept))`;
