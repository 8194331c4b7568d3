-- report: monthly_sessions
-- include: slot_units         the shared counts of units of work (queries/fragments/slot_units.sql)
-- include: metrics            the shared usage and cost aggregates (queries/fragments/metrics.sql)
-- Monthly spend review: the sessions that cost the most in each month (by
-- cost, then by tokens while costs are unknown). A session that spans months
-- is ranked in each month with that month's part. Months from the one
-- containing $since to $until (the last month ends there).
-- param: since DATE              any day of the first month
-- param: until DATE              the last local day included (the last month ends here)
-- param: tz VARCHAR              IANA zone that months are cut in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: models VARCHAR[]        exact model ids to include ([] = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- param: top INTEGER             sessions listed per month
-- column: month                  VARCHAR  YYYY-MM
-- column: rank                   BIGINT   1 = most expensive
-- column: harness                VARCHAR
-- column: session                VARCHAR
-- column: project                VARCHAR  the session's working directory ('unknown' when not recorded)
-- column: models                 VARCHAR  models used, comma-separated, sorted
-- column: requests               HUGEINT
-- column: input_tokens           HUGEINT
-- column: cache_read_tokens      HUGEINT
-- column: cache_write_tokens     HUGEINT
-- column: output_tokens          HUGEINT
-- column: reasoning_tokens       HUGEINT
-- column: total_tokens           HUGEINT
-- column: cost_e10               HUGEINT  NULL when nothing priced
-- column: computed_cost_e10      HUGEINT
-- column: recorded_cost_e10      HUGEINT
-- column: usage_events           BIGINT
-- column: priced_events          BIGINT
-- column: recorded_events        BIGINT
-- column: unpriced_requests      HUGEINT  requests without a cost under cost_mode
-- column: unpriced_tokens        HUGEINT  their total tokens
-- column: first_ts_ms            BIGINT   first response of the session in the month
-- column: last_ts_ms             BIGINT
-- column: prompts                HUGEINT  prompts typed by a person in the session in the month
-- column: tool_calls             HUGEINT  tool calls in the session in the month
-- report_slots: billed responses per 15-minute slot with local_ts and the cost
-- figures under cost_mode (src/report/macros.ts); session_slots: each
-- session's units of work per slot (src/store/rollups.ts)
WITH f AS (
  SELECT * FROM report_slots($tz, $harnesses, $project, $cost_mode, p_models := $models)
  WHERE near_days(slot_ms, CAST(date_trunc('month', $since) AS DATE), $until)
    AND CAST(local_ts AS DATE) BETWEEN CAST(date_trunc('month', $since) AS DATE) AND $until
),
s AS (
  SELECT strftime(local_ts, '%Y-%m') AS month,
         harness,
         session_id AS session,
         coalesce(min(project), 'unknown') AS project,
         array_to_string(list_sort(list_distinct(list(coalesce(model, 'unknown')))), ', ') AS models,
         {{metrics}},
         min(first_ts_ms) AS first_ts_ms,
         max(last_ts_ms) AS last_ts_ms
  FROM f
  GROUP BY month, harness, session_id
),
ranked AS (
  SELECT *, row_number() OVER (PARTITION BY month ORDER BY cost_e10 DESC NULLS LAST, total_tokens DESC, harness, session) AS rank
  FROM s
),
u AS (
  SELECT strftime(timezone($tz, make_timestamptz(slot_ms * 1000)), '%Y-%m') AS month, harness, session_id AS session,
         {{slot_units}}
  FROM session_slots
  WHERE list_contains($harnesses, harness)
    AND near_days(slot_ms, CAST(date_trunc('month', $since) AS DATE), $until)
    AND CAST(timezone($tz, make_timestamptz(slot_ms * 1000)) AS DATE) BETWEEN CAST(date_trunc('month', $since) AS DATE) AND $until
  GROUP BY ALL
)
SELECT r.month, rank, r.harness, r.session, project, models, requests, input_tokens, cache_read_tokens,
       cache_write_tokens, output_tokens, reasoning_tokens, total_tokens, cost_e10, computed_cost_e10,
       recorded_cost_e10, usage_events, priced_events, recorded_events, unpriced_requests, unpriced_tokens, first_ts_ms, last_ts_ms,
       coalesce(u.prompts, 0)::HUGEINT AS prompts, coalesce(u.tool_calls, 0)::HUGEINT AS tool_calls
FROM ranked r
LEFT JOIN u ON u.month = r.month AND u.harness = r.harness AND u.session = r.session
WHERE rank <= $top
ORDER BY r.month, rank
