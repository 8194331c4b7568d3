-- report: monthly
-- include: metrics            the shared usage and cost aggregates (queries/fragments/metrics.sql)
-- Monthly spend review, one breakdown: usage and cost per calendar month and
-- key, beside the same key's figures in the period it is compared with, over
-- billed responses (one row per dedupe key, see the billed_events view).
-- Every month from the one containing $since to the one containing $until is
-- listed; the last one ends at $until. A whole month is compared with the
-- whole previous month; a month cut short at $until (month to date) with the
-- same days of the previous month (days 1..D, D = the last day's number, at
-- most the previous month's length), so that the 4th is not compared with a
-- whole month. The month before the first is read for that comparison only.
-- A key appears in a month when it has usage in that month or in the period
-- it is compared with (a model you stopped using shows as zero with a
-- negative change); a key absent from both is not listed.
-- param: since DATE              any day of the first month
-- param: until DATE              the last local day included (the last month ends here)
-- param: tz VARCHAR              IANA zone that months and days are cut in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- slot: key                      ONE grouping expression from the code whitelist, or 'total'
-- column: month                  VARCHAR  YYYY-MM
-- column: key                    VARCHAR  the breakdown value ('total' for month totals)
-- column: requests               HUGEINT
-- column: input_tokens           HUGEINT  uncached input
-- column: cache_read_tokens      HUGEINT
-- column: cache_write_tokens     HUGEINT
-- column: output_tokens          HUGEINT  all output, reasoning included
-- column: reasoning_tokens       HUGEINT
-- column: total_tokens           HUGEINT
-- column: cost_e10               HUGEINT  under cost_mode; 0 when the key has no usage this month; NULL when nothing priced
-- column: computed_cost_e10      HUGEINT
-- column: recorded_cost_e10      HUGEINT
-- column: usage_events           BIGINT
-- column: priced_events          BIGINT
-- column: recorded_events        BIGINT
-- column: unpriced_requests      HUGEINT  requests without a cost under cost_mode
-- column: unpriced_tokens        HUGEINT  their total tokens
-- column: sessions               BIGINT
-- column: active_days            BIGINT
-- column: session_grain_requests HUGEINT  of the requests, those of rows made from session totals (grain session or snapshot)
-- column: session_grain_tokens   HUGEINT  their total tokens
-- column: session_grain_cost_e10 HUGEINT  their cost under cost_mode (NULL when none is priced)
-- column: previous_requests      HUGEINT  the same key in the compared period of the previous month
-- column: previous_total_tokens  HUGEINT
-- column: previous_cost_e10      HUGEINT  0 when the key had no usage then; NULL when nothing was priced
-- column: previous_usage_events  BIGINT
-- column: previous_priced_events BIGINT
-- column: previous_recorded_events BIGINT
-- column: total_tokens_change    HUGEINT  this month minus the previous
-- column: total_tokens_change_ratio DOUBLE change / previous (NULL when previous is 0)
-- column: cost_change_e10        HUGEINT  NULL when either month's cost is unknown
-- column: cost_change_ratio      DOUBLE   change / previous cost (NULL when previous is 0 or unknown)
-- report_slots: billed responses per 15-minute slot with local_ts and the cost
-- figures under cost_mode (src/report/macros.ts)
WITH f AS (
  SELECT *, CAST(local_ts AS DATE) AS d FROM report_slots($tz, $harnesses, $project, $cost_mode)
  WHERE near_days(slot_ms, CAST(date_trunc('month', $since) - INTERVAL 1 MONTH AS DATE), $until)
    AND CAST(local_ts AS DATE) BETWEEN CAST(date_trunc('month', $since) - INTERVAL 1 MONTH AS DATE) AND $until
),
months AS (
  SELECT strftime(m, '%Y-%m') AS month,
         CAST(m AS DATE) AS first_day,
         least(last_day(m), $until) AS through,
         CAST(m - INTERVAL 1 MONTH AS DATE) AS prev_first,
         CASE WHEN $until >= last_day(m) THEN last_day(m - INTERVAL 1 MONTH)
              ELSE least(last_day(m - INTERVAL 1 MONTH), CAST(m - INTERVAL 1 MONTH AS DATE) + CAST(day($until) - 1 AS INTEGER))
         END AS prev_through
  FROM generate_series(date_trunc('month', $since), date_trunc('month', $until), INTERVAL 1 MONTH) AS t(m)
),
cur AS (
  SELECT months.month,
         {{key}} AS key,
         {{metrics}},
         count(DISTINCT harness || ':' || session_id) AS sessions,
         count(DISTINCT d) AS active_days,
         -- As summary.sql: the share made from session totals (grain session or snapshot).
         coalesce(sum(requests) FILTER (WHERE grain <> 'response'), 0)::HUGEINT AS session_grain_requests,
         coalesce(sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens) FILTER (WHERE grain <> 'response'), 0)::HUGEINT AS session_grain_tokens,
         sum(cost_e10) FILTER (WHERE grain <> 'response')::HUGEINT AS session_grain_cost_e10
  FROM f JOIN months ON f.d BETWEEN months.first_day AND months.through
  GROUP BY ALL
),
prev AS (
  SELECT months.month,
         {{key}} AS key,
         sum(requests)::HUGEINT AS requests,
         sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens)::HUGEINT AS total_tokens,
         sum(cost_e10)::HUGEINT AS cost_e10,
         sum(events)::BIGINT AS usage_events,
         sum(priced_events)::BIGINT AS priced_events,
         sum(recorded_events)::BIGINT AS recorded_events
  FROM f JOIN months ON f.d BETWEEN months.prev_first AND months.prev_through
  GROUP BY ALL
),
keyed AS (
  SELECT month, key FROM cur
  UNION
  SELECT month, key FROM prev
),
joined AS (
  SELECT k.month, k.key, c.requests, c.input_tokens, c.cache_read_tokens, c.cache_write_tokens,
         c.output_tokens, c.reasoning_tokens, c.total_tokens, c.computed_cost_e10, c.recorded_cost_e10,
         c.usage_events, c.priced_events, c.recorded_events, c.unpriced_requests, c.unpriced_tokens,
         c.sessions, c.active_days, c.session_grain_requests, c.session_grain_tokens, c.session_grain_cost_e10,
         p.requests AS p_requests, p.total_tokens AS p_total_tokens,
         p.usage_events AS p_usage_events, p.priced_events AS p_priced_events, p.recorded_events AS p_recorded_events,
         -- A period without usage of the key spent nothing on it (0); one
         -- with usage but no priced response has an unknown cost (NULL).
         CASE WHEN c.usage_events IS NULL THEN 0 ELSE c.cost_e10 END AS cur_cost,
         CASE WHEN p.usage_events IS NULL THEN 0 ELSE p.cost_e10 END AS prev_cost
  FROM keyed k
  LEFT JOIN cur c ON c.month = k.month AND c.key IS NOT DISTINCT FROM k.key
  LEFT JOIN prev p ON p.month = k.month AND p.key IS NOT DISTINCT FROM k.key
)
SELECT month, key,
       coalesce(requests, 0)::HUGEINT AS requests,
       coalesce(input_tokens, 0)::HUGEINT AS input_tokens,
       coalesce(cache_read_tokens, 0)::HUGEINT AS cache_read_tokens,
       coalesce(cache_write_tokens, 0)::HUGEINT AS cache_write_tokens,
       coalesce(output_tokens, 0)::HUGEINT AS output_tokens,
       coalesce(reasoning_tokens, 0)::HUGEINT AS reasoning_tokens,
       coalesce(total_tokens, 0)::HUGEINT AS total_tokens,
       cur_cost::HUGEINT AS cost_e10,
       computed_cost_e10, recorded_cost_e10,
       coalesce(usage_events, 0) AS usage_events,
       coalesce(priced_events, 0) AS priced_events,
       coalesce(recorded_events, 0) AS recorded_events,
       coalesce(unpriced_requests, 0)::HUGEINT AS unpriced_requests,
       coalesce(unpriced_tokens, 0)::HUGEINT AS unpriced_tokens,
       coalesce(sessions, 0) AS sessions,
       coalesce(active_days, 0) AS active_days,
       coalesce(session_grain_requests, 0)::HUGEINT AS session_grain_requests,
       coalesce(session_grain_tokens, 0)::HUGEINT AS session_grain_tokens,
       session_grain_cost_e10,
       coalesce(p_requests, 0)::HUGEINT AS previous_requests,
       coalesce(p_total_tokens, 0)::HUGEINT AS previous_total_tokens,
       prev_cost::HUGEINT AS previous_cost_e10,
       coalesce(p_usage_events, 0) AS previous_usage_events,
       coalesce(p_priced_events, 0) AS previous_priced_events,
       coalesce(p_recorded_events, 0) AS previous_recorded_events,
       (coalesce(total_tokens, 0) - coalesce(p_total_tokens, 0))::HUGEINT AS total_tokens_change,
       (coalesce(total_tokens, 0) - coalesce(p_total_tokens, 0)) / nullif(coalesce(p_total_tokens, 0), 0) AS total_tokens_change_ratio,
       (cur_cost - prev_cost)::HUGEINT AS cost_change_e10,
       (cur_cost - prev_cost) / nullif(prev_cost, 0) AS cost_change_ratio
FROM joined
ORDER BY month, cost_e10 DESC NULLS LAST, total_tokens DESC, key
