// Session facts kept by the ingest: per session its latest
// project and its main model (the one with the most tokens) over its billed
// responses, in `session_stats` (schema v12). Reports join this small table
// (session_attrs in src/report/unit-macros.ts) instead of aggregating every
// billed response of the whole history per query (~215 ms of each `--by
// session` or compare at 1G before).
//
// Kept exact by the ingest, when it settles the billed marks
// (store/billed.ts settleMarks): the sessions whose responses may have
// changed since — those of new responses, of deleted ones and of the
// responses whose billed mark was decided again, noted in sessions_pending
// — get their row made again from their billed responses. A session nothing
// touched keeps its responses, so its row stays right. SESSION_STATS_AUDIT
// states the invariant as a query that must return no rows.
import type { DuckDBConnection } from './duckdb.js';

/** Sessions whose facts are to be made again at the next settle (schema v12). */
export const SESSIONS_PENDING = 'sessions_pending';

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

/** Makes the rows of the pending sessions again from their billed responses, and clears them (inside the caller's transaction). */
export async function refreshSessionStats(conn: DuckDBConnection): Promise<void> {
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE txu_sessions AS SELECT DISTINCT harness, session_id FROM ${SESSIONS_PENDING}`,
  );
  await conn.run(
    `DELETE FROM session_stats s USING temp.txu_sessions t WHERE s.harness = t.harness AND s.session_id = t.session_id`,
  );
  // The pending sessions' responses, found by their combinations' ids (an
  // integer semi join on usage_rows) before their strings are joined.
  await conn.run(`
    INSERT INTO session_stats (harness, session_id, project, model)
    SELECT harness, session_id, project, model FROM (${sessionStatsOf(`(
      SELECT a.harness, a.session_id, a.model, a.project, r.ts_ms, r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.output_tokens
      FROM usage_rows r JOIN event_attrs a USING (attr_id)
      WHERE r.billed AND r.attr_id IN (SELECT attr_id FROM event_attrs SEMI JOIN temp.txu_sessions USING (harness, session_id)))`)})`);
  await conn.run(`DROP TABLE temp.txu_sessions`);
  await conn.run(`DELETE FROM ${SESSIONS_PENDING}`);
}

/** The invariant: session_stats holds exactly the rows the rule makes of the billed responses. */
export const SESSION_STATS_AUDIT = `
  WITH reference AS (SELECT harness, session_id, project, model FROM (${sessionStatsOf(BILLED_ROWS)})),
  kept AS (SELECT harness, session_id, project, model FROM session_stats)
  (SELECT 'extra' AS problem, * FROM (SELECT * FROM kept EXCEPT ALL SELECT * FROM reference))
  UNION ALL
  (SELECT 'missing' AS problem, * FROM (SELECT * FROM reference EXCEPT ALL SELECT * FROM kept))`;
