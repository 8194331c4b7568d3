-- report: compare_session_rows
-- include: slot_units         the shared counts of units of work (queries/fragments/slot_units.sql)
-- One row per session with a billed response or a unit of work in the
-- local-day range: its units of work in the range (prompts, turns, tool
-- calls, subagent tasks), its active time in the range (the time between its
-- records with idle gaps over 10 minutes removed, session_active in
-- src/report/unit-macros.ts), its cost in the range (NULL when a response is
-- unpriced), its main model, project and machine. The compare report keeps
-- these rows in a temporary table once per run (src/report/compare-units.ts),
-- which compare_sessions.sql aggregates per harness and detail key.
-- param: since DATE              first local calendar day included
-- param: until DATE              last local calendar day included
-- param: tz VARCHAR              IANA zone the range is read in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: models VARCHAR[]        exact model ids to include ([] = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- column: harness                VARCHAR
-- column: session_id             VARCHAR
-- column: active_ms              BIGINT   active time in the range
-- column: first_ts_ms            BIGINT   first activity in the range
-- column: cost_e10               HUGEINT  NULL when a response is unpriced
-- column: billed                 BOOLEAN  a billed response in the range
-- column: prompts                HUGEINT
-- column: turns                  HUGEINT
-- column: tool_calls             HUGEINT
-- column: subagent_tasks         HUGEINT
-- column: model                  VARCHAR
-- column: project                VARCHAR
-- column: machine                VARCHAR
-- column: local_ts               TIMESTAMP first activity in tz
-- session_slots and report_slots: each session's units of work and billed
-- responses per 15-minute slot (src/store/rollups.ts, src/report/macros.ts).
WITH uc AS (
  SELECT harness, session_id,
         {{slot_units}}
  FROM session_slots
  WHERE list_contains($harnesses, harness) AND near_days(slot_ms, $since, $until)
    AND CAST(timezone($tz, make_timestamptz(slot_ms * 1000)) AS DATE) BETWEEN $since AND $until
  GROUP BY ALL
),
e AS (
  SELECT harness, session_id, CASE WHEN sum(priced_events) = sum(events) THEN sum(cost_e10) END AS cost_e10
  FROM report_slots($tz, $harnesses, '', $cost_mode, p_models := $models)
  WHERE near_days(slot_ms, $since, $until) AND CAST(local_ts AS DATE) BETWEEN $since AND $until
  GROUP BY ALL
),
a AS (SELECT * FROM session_active($tz, $harnesses, $since, $until)),
s AS (
  SELECT a.harness, a.session_id, a.active_ms, a.first_ts_ms, e.cost_e10, e.session_id IS NOT NULL AS billed,
         coalesce(uc.prompts, 0) AS prompts, coalesce(uc.turns, 0) AS turns,
         coalesce(uc.tool_calls, 0) AS tool_calls, coalesce(uc.subagent_tasks, 0) AS subagent_tasks,
         sa.model, sa.project, sa.machine,
         timezone($tz, make_timestamptz(a.first_ts_ms * 1000)) AS local_ts
  FROM a
  LEFT JOIN e ON e.harness = a.harness AND e.session_id = a.session_id
  LEFT JOIN uc ON uc.harness = a.harness AND uc.session_id = a.session_id
  LEFT JOIN session_attrs($harnesses) sa ON sa.harness = a.harness AND sa.session_id = a.session_id
  -- With --model: the sessions with a response of one of its models in the range, their cost that of those responses.
  WHERE in_filter($harnesses, $project, [], a.harness, sa.project, NULL) AND (len($models) = 0 OR e.session_id IS NOT NULL)
)
SELECT * FROM s
