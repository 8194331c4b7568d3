// Session facts kept by the ingest (issue 37): per session its latest
// project and its main model (the one with the most tokens) over its billed
// responses, in `session_stats` (schema v11). Reports join this small table
// (session_attrs in src/report/unit-macros.ts) instead of aggregating every
// billed response of the whole history per query (~215 ms of each `--by
// session` or compare at 1G before).
//
// Kept exact by each write transaction, after the billed marks
// (store/billed.ts): the sessions it may have changed — those of its new
// responses, of the responses it deleted and of the responses whose billed
// mark it decided again — get their row made again from their billed
// responses. A session no transaction touched keeps its responses, so its
// row stays right. SESSION_STATS_AUDIT states the invariant as a query that
// must return no rows.
import type { DuckDBConnection } from './duckdb.js';
import { INTEGER } from './duckdb.js';
import { TOUCHED_SESSIONS } from './billed.js';

/**
 * One row per session of `events` (rows with harness, session_id, model,
 * project, ts_ms and the token columns): the rule, as v10's session_attrs
 * macro applied it at every query. `extra` adds aggregates (a roll-up's
 * machine).
 */
export function sessionStatsOf(events: string, extra = ''): string {
  return `
    WITH e AS (
      SELECT harness, session_id, model, project, ts_ms${extra ? ', machine' : ''},
             input_tokens + cache_read_tokens + cache_write_tokens + output_tokens AS tokens
      FROM ${events}
    ),
    m AS (SELECT harness, session_id, model, sum(tokens) AS tokens FROM e GROUP BY ALL),
    em AS (SELECT harness, session_id, first(model ORDER BY tokens DESC, model NULLS LAST) AS model FROM m GROUP BY ALL),
    ep AS (SELECT harness, session_id, first(project ORDER BY ts_ms DESC) AS project${extra} FROM e GROUP BY ALL)
    SELECT ep.*, em.model FROM ep JOIN em USING (harness, session_id)`;
}

/** The store's billed responses, read from its tables (a connection may shadow billed_events with a labelled view). */
const BILLED_ROWS = `(
  SELECT a.harness, a.session_id, a.model, a.project, r.ts_ms, r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.output_tokens
  FROM usage_rows r JOIN event_attrs a USING (attr_id) WHERE r.billed)`;

/**
 * Makes the rows of the sessions the open transaction touched again: those
 * noted in TOUCHED_SESSIONS (deleted or re-decided responses) and those of
 * combinations with attr_id >= `firstNewAttr` (its new responses; null: none).
 */
export async function refreshSessionStats(conn: DuckDBConnection, firstNewAttr: number | null): Promise<void> {
  await conn.run(`CREATE TEMP TABLE IF NOT EXISTS ${TOUCHED_SESSIONS} (harness VARCHAR, session_id VARCHAR)`);
  const ofNew = firstNewAttr === null ? '' : `UNION SELECT harness, session_id FROM event_attrs WHERE attr_id >= $first`;
  const sql = `CREATE OR REPLACE TEMP TABLE txu_sessions AS SELECT harness, session_id FROM temp.${TOUCHED_SESSIONS} ${ofNew}`;
  if (firstNewAttr === null) await conn.run(sql);
  else await conn.run(sql, { first: firstNewAttr }, { first: INTEGER });
  await conn.run(`DELETE FROM session_stats s USING temp.txu_sessions t WHERE s.harness = t.harness AND s.session_id = t.session_id`);
  await conn.run(`
    INSERT INTO session_stats (harness, session_id, project, model)
    SELECT harness, session_id, project, model FROM (${sessionStatsOf(`(SELECT * FROM ${BILLED_ROWS} b SEMI JOIN temp.txu_sessions t USING (harness, session_id))`)})`);
  await conn.run(`DROP TABLE temp.txu_sessions`);
  await conn.run(`DELETE FROM temp.${TOUCHED_SESSIONS}`);
}

/** The invariant: session_stats holds exactly the rows the rule makes of the billed responses. */
export const SESSION_STATS_AUDIT = `
  WITH reference AS (SELECT harness, session_id, project, model FROM (${sessionStatsOf(BILLED_ROWS)})),
  kept AS (SELECT harness, session_id, project, model FROM session_stats)
  (SELECT 'extra' AS problem, * FROM (SELECT * FROM kept EXCEPT ALL SELECT * FROM reference))
  UNION ALL
  (SELECT 'missing' AS problem, * FROM (SELECT * FROM reference EXCEPT ALL SELECT * FROM kept))`;
