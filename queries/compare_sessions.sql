-- report: compare_sessions
-- Harness efficiency per session: units of work in the local-day
-- range (prompts, turns, tool calls, subagent tasks), active time (the time
-- between a session's records with idle gaps over 10 minutes removed,
-- session_active in src/report/unit-macros.ts) and cost per active hour as
-- mean, median and 90th percentile over the sessions that have both a cost
-- (every response priced) and active time. A session's detail key: its main
-- model, its project, its first activity in the range, itself, its machine.
-- Per session from compare_session_rows.sql, kept in a temporary table of
-- that name for the run by src/report/compare-units.ts.
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
WITH k AS (
  SELECT *, CAST({{detail}} AS VARCHAR) AS detail,
         CASE WHEN active_ms > 0 AND cost_e10 IS NOT NULL AND billed THEN cost_e10 / 1e10 / (active_ms / 3600000.0) END AS per_hour
  FROM temp.compare_session_rows
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
