-- report: compare_sessions
-- include: unit_counts        the shared counts of units of work (queries/fragments/unit_counts.sql)
-- Harness efficiency per session (issue 27): units of work in the local-day
-- range (prompts, turns, tool calls, subagent tasks), active time (the time
-- between a session's records with idle gaps over 10 minutes removed,
-- session_active in src/report/unit-macros.ts) and cost per active hour as
-- mean, median and 90th percentile over the sessions that have both a cost
-- (every response priced) and active time. A session's detail key: its main
-- model, its project, its first activity in the range, itself, its machine.
-- param: since DATE              first local calendar day included
-- param: until DATE              last local calendar day included
-- param: tz VARCHAR              IANA zone the range is read in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- slot: detail                   ONE grouping expression from the code whitelist, or '' for per harness only
-- column: harness                VARCHAR
-- column: detail                 VARCHAR
-- column: work_sessions          BIGINT   sessions with a billed response or a unit of work in the range
-- column: prompts                HUGEINT
-- column: turns                  HUGEINT
-- column: tool_calls             HUGEINT
-- column: subagent_tasks         HUGEINT
-- column: active_hours           DOUBLE   summed over sessions
-- column: hourly_sessions        BIGINT   sessions behind the cost-per-active-hour figures
-- column: cost_per_active_hour_usd_mean DOUBLE (and _median, _p90) over those sessions
WITH u AS (
  SELECT harness, session_id, kind, n FROM report_units($tz, $harnesses)
  WHERE CAST(local_ts AS DATE) BETWEEN $since AND $until
),
uc AS (
  SELECT harness, session_id,
         {{unit_counts}}
  FROM u GROUP BY ALL
),
e AS (
  SELECT harness, session_id, CASE WHEN count(cost_e10) = count(*) THEN sum(cost_e10) END AS cost_e10
  FROM report_events($tz, $harnesses, '', $cost_mode)
  WHERE CAST(local_ts AS DATE) BETWEEN $since AND $until
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
  WHERE $project = '' OR contains(coalesce(sa.project, ''), $project)
),
k AS (
  SELECT *, CAST({{detail}} AS VARCHAR) AS detail,
         CASE WHEN active_ms > 0 AND cost_e10 IS NOT NULL AND billed THEN cost_e10 / 1e10 / (active_ms / 3600000.0) END AS per_hour
  FROM s
)
SELECT harness, detail,
       count(*) AS work_sessions,
       sum(prompts)::HUGEINT AS prompts,
       sum(turns)::HUGEINT AS turns,
       sum(tool_calls)::HUGEINT AS tool_calls,
       sum(subagent_tasks)::HUGEINT AS subagent_tasks,
       (sum(active_ms) / 3600000.0)::DOUBLE AS active_hours,
       count(per_hour) AS hourly_sessions,
       avg(per_hour ORDER BY per_hour)::DOUBLE AS cost_per_active_hour_usd_mean,
       quantile_cont(per_hour, 0.5)::DOUBLE AS cost_per_active_hour_usd_median,
       quantile_cont(per_hour, 0.9)::DOUBLE AS cost_per_active_hour_usd_p90
FROM k
GROUP BY ALL
ORDER BY harness, detail
