-- report: monthly_days
-- include: metrics            the shared usage and cost aggregates (queries/fragments/metrics.sql)
-- Monthly spend review: the days with the highest spend in each month (by
-- cost, then by tokens while costs are unknown). Months from the one
-- containing $since to $until (the last month ends there).
-- param: since DATE              any day of the first month
-- param: until DATE              the last local day included (the last month ends here)
-- param: tz VARCHAR              IANA zone that days are cut in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: models VARCHAR[]        exact model ids to include ([] = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- param: top INTEGER             days listed per month
-- column: month                  VARCHAR  YYYY-MM
-- column: rank                   BIGINT   1 = highest spend
-- column: day                    VARCHAR  YYYY-MM-DD, local
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
-- column: sessions               BIGINT
-- report_slots: billed responses per 15-minute slot with local_ts and the cost
-- figures under cost_mode (src/report/macros.ts)
WITH f AS (
  SELECT * FROM report_slots($tz, $harnesses, $project, $cost_mode, p_models := $models)
  WHERE near_days(slot_ms, CAST(date_trunc('month', $since) AS DATE), $until)
    AND CAST(local_ts AS DATE) BETWEEN CAST(date_trunc('month', $since) AS DATE) AND $until
),
d AS (
  SELECT strftime(local_ts, '%Y-%m') AS month,
         strftime(local_ts, '%Y-%m-%d') AS day,
         {{metrics}},
         count(DISTINCT harness || ':' || session_id) AS sessions
  FROM f
  GROUP BY ALL
),
ranked AS (
  SELECT *, row_number() OVER (PARTITION BY month ORDER BY cost_e10 DESC NULLS LAST, total_tokens DESC, day) AS rank
  FROM d
)
SELECT month, rank, day, requests, input_tokens, cache_read_tokens, cache_write_tokens, output_tokens,
       reasoning_tokens, total_tokens, cost_e10, computed_cost_e10, recorded_cost_e10, usage_events,
       priced_events, recorded_events, unpriced_requests, unpriced_tokens, sessions
FROM ranked
WHERE rank <= $top
ORDER BY month, rank
