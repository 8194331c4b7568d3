// Units of work as reports see them (issue 27): connection-local table
// macros over work_units, session_facts, billed_events and context_rows, so
// every template reads them by name and they resolve to whatever the
// connection shows under those names (the store's views labelled with a
// machine, export/local.ts, or a roll-up's Parquet views, export/rollup.ts).
//
// - session_roots(): a subagent's own session (Codex child thread, OpenCode
//   child session, Cursor subagent) → the session it was spawned from, up the
//   chain (at most 8 levels): its responses answer that session's prompts.
// - session_attrs(harnesses): per session its project and main model (of
//   its responses, kept by the ingest in session_stats, else of its Cursor
//   context row) and machine.
// - report_units(tz, harnesses): units with local time and root session.
// - report_prompts(tz, harnesses, project, cost_mode, from_ms): one row per
//   prompt typed by a person from from_ms on, with what answered it: the
//   billed responses of its root session from the prompt up to the next
//   prompt (an as-of join on time; responses before a session's first prompt
//   belong to none), their requests, tokens and cost (NULL when any of them
//   is unpriced: a partial sum is not a prompt's cost), the tool calls in the
//   same span, and the prompt's main model (the one with the most tokens
//   among its responses). Prompts, responses and tool calls before from_ms
//   are left out of the join alike: a response can only answer a prompt
//   before it, so those after from_ms are matched as over the whole history
//   (its prompt is kept, or it answers none of the prompts kept).
// - session_active(tz, harnesses, since, until): per session, first and last
//   activity and active milliseconds in the local-day range: the time
//   between its records (responses and units of work), idle gaps over 10
//   minutes removed.
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../export/schema.js';

/** Gaps between a session's records longer than this are idle time. */
export const IDLE_GAP_MS = 10 * 60 * 1000;

const MACROS = [
  `CREATE OR REPLACE TEMP MACRO session_roots() AS TABLE
    WITH RECURSIVE up(harness, session_id, root, depth) AS (
      SELECT harness, session_id, parent_session_id, 1 FROM session_facts WHERE parent_session_id IS NOT NULL
      UNION ALL
      SELECT up.harness, up.session_id, f.parent_session_id, up.depth + 1
      FROM up JOIN session_facts f ON f.harness = up.harness AND f.session_id = up.root
      WHERE f.parent_session_id IS NOT NULL AND up.depth < 8
    )
    SELECT harness, session_id, arg_max(root, depth) AS root_session_id FROM up GROUP BY ALL`,
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
  `CREATE OR REPLACE TEMP MACRO report_units(p_tz, p_harnesses) AS TABLE
    SELECT u.*, coalesce(r.root_session_id, u.session_id) AS root_session_id,
           timezone(p_tz, make_timestamptz(u.ts_ms * 1000)) AS local_ts
    FROM work_units u LEFT JOIN session_roots() r ON r.harness = u.harness AND r.session_id = u.session_id
    WHERE list_contains(p_harnesses, u.harness)`,
  `CREATE OR REPLACE TEMP MACRO report_prompts(p_tz, p_harnesses, p_project, p_cost_mode, p_from_ms) AS TABLE
    WITH p AS (SELECT * FROM report_units(p_tz, p_harnesses) WHERE kind = 'prompt' AND ts_ms >= p_from_ms),
    e AS (
      SELECT ev.*, coalesce(r.root_session_id, ev.session_id) AS root_session_id,
             ev.input_tokens + ev.cache_read_tokens + ev.cache_write_tokens + ev.output_tokens AS tokens
      FROM report_events(p_tz, p_harnesses, '', p_cost_mode) ev
      LEFT JOIN session_roots() r ON r.harness = ev.harness AND r.session_id = ev.session_id
      WHERE ev.ts_ms >= p_from_ms
    ),
    a AS (
      SELECT p.dedupe_key AS prompt_key, p.harness, e.model, e.project, e.requests, e.tokens, e.cost_e10
      FROM e ASOF JOIN p ON e.harness = p.harness AND e.root_session_id = p.root_session_id AND e.ts_ms >= p.ts_ms
    ),
    pm AS (SELECT prompt_key, harness, model, sum(tokens) AS tokens FROM a GROUP BY ALL),
    main AS (SELECT prompt_key, harness, first(model ORDER BY tokens DESC, model NULLS LAST) AS model FROM pm GROUP BY ALL),
    agg AS (
      SELECT prompt_key, harness, sum(requests) AS requests, sum(tokens) AS tokens,
             CASE WHEN count(cost_e10) = count(*) THEN sum(cost_e10) END AS cost_e10,
             first(project ORDER BY tokens DESC) AS project
      FROM a GROUP BY ALL
    ),
    t AS (
      SELECT p.dedupe_key AS prompt_key, p.harness, sum(tu.n) AS tool_calls
      FROM (SELECT * FROM report_units(p_tz, p_harnesses) WHERE kind = 'tool_call' AND ts_ms >= p_from_ms) tu
      ASOF JOIN p ON tu.harness = p.harness AND tu.root_session_id = p.root_session_id AND tu.ts_ms >= p.ts_ms
      GROUP BY ALL
    ),
    rows AS (
      SELECT p.harness, p.session_id, p.dedupe_key AS prompt_key, p.ts_ms, p.local_ts,
             coalesce(main.model, sa.model) AS model, coalesce(agg.project, sa.project) AS project, p.machine,
             coalesce(agg.requests, 0) AS requests, coalesce(agg.tokens, 0) AS total_tokens,
             CASE WHEN agg.prompt_key IS NULL THEN 0 ELSE agg.cost_e10 END AS cost_e10,
             agg.prompt_key IS NOT NULL AS answered,
             coalesce(t.tool_calls, 0) AS tool_calls
      FROM p
      LEFT JOIN agg ON agg.prompt_key = p.dedupe_key AND agg.harness = p.harness
      LEFT JOIN main ON main.prompt_key = p.dedupe_key AND main.harness = p.harness
      LEFT JOIN t ON t.prompt_key = p.dedupe_key AND t.harness = p.harness
      LEFT JOIN session_attrs(p_harnesses) sa ON sa.harness = p.harness AND sa.session_id = p.root_session_id
    )
    SELECT * FROM rows WHERE p_project = '' OR contains(coalesce(project, ''), p_project)`,
  `CREATE OR REPLACE TEMP MACRO session_active(p_tz, p_harnesses, p_since, p_until) AS TABLE
    WITH t AS (
      SELECT harness, session_id, ts_ms FROM billed_events WHERE list_contains(p_harnesses, harness) AND near_days(ts_ms, p_since, p_until)
      UNION
      SELECT harness, session_id, ts_ms FROM work_units WHERE list_contains(p_harnesses, harness) AND near_days(ts_ms, p_since, p_until)
    ),
    d AS (
      SELECT harness, session_id, ts_ms,
             ts_ms - lag(ts_ms) OVER (PARTITION BY harness, session_id ORDER BY ts_ms) AS gap
      FROM t
      WHERE CAST(timezone(p_tz, make_timestamptz(ts_ms * 1000)) AS DATE) BETWEEN p_since AND p_until
    )
    SELECT harness, session_id, min(ts_ms) AS first_ts_ms, max(ts_ms) AS last_ts_ms,
           coalesce(sum(gap) FILTER (WHERE gap <= ${IDLE_GAP_MS}), 0) AS active_ms
    FROM d GROUP BY ALL`,
];

/** Local stores' label (export/local.ts): their database and machine name, per connection. */
const labels = new WeakMap<DuckDBConnection, { db: string; machine: string }>();
const ready = new WeakSet<DuckDBConnection>();

/** export/local.ts: this connection shows the store's rows with a machine column (billed_events, context_rows now; the units' and sessions' when needed). */
export function noteLocalLabel(conn: DuckDBConnection, db: string, machine: string): void {
  labels.set(conn, { db, machine });
  ready.delete(conn);
}

/**
 * Defines the macros above on `conn` (once), and first, on a labelled local
 * store, the machine-labelled views of work_units, session_facts and
 * session_stats. Only the
 * reports that read units of work call it: a summary report (the cold run)
 * does not pay for ~10 statements it never uses.
 */
export async function ensureUnitMacros(conn: DuckDBConnection): Promise<void> {
  if (ready.has(conn)) return;
  const label = labels.get(conn);
  if (label) {
    for (const view of ['work_units', 'session_facts', 'session_stats']) {
      await conn.run(`CREATE OR REPLACE TEMP VIEW ${view} AS SELECT *, ${sqlString(label.machine)} AS machine FROM ${label.db}.main.${view}`);
    }
  }
  for (const m of MACROS) await conn.run(m);
  ready.add(conn);
}
