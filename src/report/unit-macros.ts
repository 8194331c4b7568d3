// Units of work and sessions as reports see them (issue 27): connection-local
// table macros over session_facts, session_stats, session_slots and
// context_rows, so every template reads them by name and they resolve to
// whatever the connection shows under those names (the store's tables and
// views labelled with a machine, export/local.ts, or a roll-up's Parquet
// views, export/rollup.ts).
//
// - session_roots(): a subagent's own session (Codex child thread, OpenCode
//   child session, Cursor subagent) → the session it was spawned from, up the
//   chain (at most 8 levels; store/rollups.ts sessionRootsSelect, the rule
//   prompt_stats is kept by).
// - session_attrs(harnesses): per session its project and main model (of
//   its responses, kept by the ingest in session_stats, else of its Cursor
//   context row) and machine.
// - session_active(tz, harnesses, since, until): per session, first and last
//   activity and active milliseconds in the local-day range: the time
//   between its records (responses and units of work), idle gaps over 10
//   minutes removed. From session_slots: the gaps inside each slot are kept
//   there, those between a session's consecutive slots in the range are
//   added here, so the sum is the one over its records.
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../export/schema.js';
import { IDLE_GAP_MS, sessionRootsSelect } from '../store/rollups.js';

export { IDLE_GAP_MS };

const MACROS = [
  `CREATE OR REPLACE TEMP MACRO session_roots() AS TABLE ${sessionRootsSelect('session_facts')}`,
  // Responses' facts per session are kept by the ingest (session_stats,
  // store/session-stats.ts; a roll-up's view computes them, export/rollup.ts).
  `CREATE OR REPLACE TEMP MACRO session_attrs(p_harnesses) AS TABLE
    WITH ep AS (SELECT harness, session_id, project, model, machine FROM session_stats WHERE list_contains(p_harnesses, harness)),
    c AS (SELECT harness, session AS session_id, first(project) AS project, first(model) AS model, first(machine) AS machine
          FROM context_rows WHERE list_contains(p_harnesses, harness) GROUP BY ALL)
    SELECT coalesce(ep.harness, c.harness) AS harness, coalesce(ep.session_id, c.session_id) AS session_id,
           coalesce(ep.project, c.project) AS project, coalesce(ep.model, c.model) AS model,
           coalesce(ep.machine, c.machine) AS machine
    FROM ep FULL JOIN c ON c.harness = ep.harness AND c.session_id = ep.session_id`,
  `CREATE OR REPLACE TEMP MACRO session_active(p_tz, p_harnesses, p_since, p_until) AS TABLE
    WITH s AS (
      SELECT * FROM session_slots
      WHERE list_contains(p_harnesses, harness) AND near_days(slot_ms, p_since, p_until)
        AND CAST(timezone(p_tz, make_timestamptz(slot_ms * 1000)) AS DATE) BETWEEN p_since AND p_until
    ),
    d AS (SELECT *, first_ts_ms - lag(last_ts_ms) OVER (PARTITION BY harness, session_id ORDER BY slot_ms) AS gap FROM s)
    SELECT harness, session_id, min(first_ts_ms) AS first_ts_ms, max(last_ts_ms) AS last_ts_ms,
           (sum(active_ms) + coalesce(sum(gap) FILTER (WHERE gap <= ${IDLE_GAP_MS}), 0))::HUGEINT AS active_ms
    FROM d GROUP BY ALL`,
];

/** Work a connection does before its first report that reads units of work (a roll-up's prompts, export/rollup.ts). */
const deferred = new WeakMap<DuckDBConnection, () => Promise<void>>();

export function whenUnitsRead(conn: DuckDBConnection, make: () => Promise<void>): void {
  deferred.set(conn, make);
}

/** Local stores' label (export/local.ts): their database and machine name, per connection. */
const labels = new WeakMap<DuckDBConnection, { db: string; machine: string }>();
const ready = new WeakSet<DuckDBConnection>();

/** export/local.ts: this connection shows the store's rows with a machine column (billed_events, context_rows, usage_slots now; the units' and sessions' when needed). */
export function noteLocalLabel(conn: DuckDBConnection, db: string, machine: string): void {
  labels.set(conn, { db, machine });
  ready.delete(conn);
}

/**
 * Defines the macros above on `conn` (once), and first, on a labelled local
 * store, the machine-labelled views of work_units, session_facts,
 * session_stats and prompt_stats. Only the
 * reports that read units of work call it: a summary report (the cold run)
 * does not pay for ~10 statements it never uses.
 */
export async function ensureUnitMacros(conn: DuckDBConnection): Promise<void> {
  if (ready.has(conn)) return;
  await deferred.get(conn)?.();
  const label = labels.get(conn);
  if (label) {
    for (const view of ['work_units', 'session_facts', 'session_stats', 'prompt_stats']) {
      await conn.run(
        `CREATE OR REPLACE TEMP VIEW ${view} AS SELECT *, ${sqlString(label.machine)} AS machine FROM ${label.db}.main.${view}`,
      );
    }
  }
  for (const m of MACROS) await conn.run(m);
  ready.add(conn);
}
