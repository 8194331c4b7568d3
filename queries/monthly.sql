-- report: monthly
-- Monthly spend review, one breakdown: usage and cost per calendar month and
-- key, beside the same key's figures in the month before, over billed
-- responses (one row per dedupe key, see the billed_events view). The range is
-- widened to whole months: every month from the one containing $since to the
-- one containing $until, each compared with its previous month (the month
-- before the first is read for that comparison only and is not listed).
-- A key appears in a month when it has usage in that month or the previous one
-- (a model you stopped using shows as zero with a negative change).
-- param: since DATE              any day of the first month
-- param: until DATE              any day of the last month
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
-- column: sessions               BIGINT
-- column: active_days            BIGINT
-- column: previous_requests      HUGEINT  the same key in the previous month
-- column: previous_total_tokens  HUGEINT
-- column: previous_cost_e10      HUGEINT  0 when the key had no usage then; NULL when nothing was priced
-- column: total_tokens_change    HUGEINT  this month minus the previous
-- column: total_tokens_change_ratio DOUBLE change / previous (NULL when previous is 0)
-- column: cost_change_e10        HUGEINT  NULL when either month's cost is unknown
-- column: cost_change_ratio      DOUBLE   change / previous cost (NULL when previous is 0 or unknown)
-- report_events: billed events with local_ts, cost_e10 and uses_recorded (src/report/macros.ts)
WITH ev AS (
  SELECT * FROM report_events($tz, $harnesses, $project, $cost_mode)
),
f AS (
  SELECT * FROM ev
  WHERE CAST(local_ts AS DATE) BETWEEN CAST(date_trunc('month', $since) - INTERVAL 1 MONTH AS DATE)
                                   AND last_day($until)
),
g AS (
  SELECT strftime(local_ts, '%Y-%m') AS month,
         {{key}} AS key,
         sum(requests)::HUGEINT AS requests,
         sum(input_tokens)::HUGEINT AS input_tokens,
         sum(cache_read_tokens)::HUGEINT AS cache_read_tokens,
         sum(cache_write_tokens)::HUGEINT AS cache_write_tokens,
         sum(output_tokens)::HUGEINT AS output_tokens,
         sum(reasoning_tokens)::HUGEINT AS reasoning_tokens,
         sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens)::HUGEINT AS total_tokens,
         sum(cost_e10)::HUGEINT AS cost_e10,
         sum(computed_cost_e10)::HUGEINT AS computed_cost_e10,
         sum(recorded_cost_e10)::HUGEINT AS recorded_cost_e10,
         count(*) AS usage_events,
         count(cost_e10) AS priced_events,
         count(*) FILTER (WHERE uses_recorded AND cost_e10 IS NOT NULL) AS recorded_events,
         count(DISTINCT harness || ':' || session_id) AS sessions,
         count(DISTINCT CAST(local_ts AS DATE)) AS active_days
  FROM f
  GROUP BY ALL
),
months AS (
  SELECT strftime(m, '%Y-%m') AS month, strftime(m - INTERVAL 1 MONTH, '%Y-%m') AS previous_month
  FROM generate_series(date_trunc('month', $since), date_trunc('month', $until), INTERVAL 1 MONTH) AS t(m)
),
keyed AS (
  SELECT DISTINCT months.month, months.previous_month, g.key
  FROM months JOIN g ON g.month = months.month OR g.month = months.previous_month
),
joined AS (
  SELECT k.month, k.key, c.requests, c.input_tokens, c.cache_read_tokens, c.cache_write_tokens,
         c.output_tokens, c.reasoning_tokens, c.total_tokens, c.computed_cost_e10, c.recorded_cost_e10,
         c.usage_events, c.priced_events, c.recorded_events, c.sessions, c.active_days,
         p.requests AS p_requests, p.total_tokens AS p_total_tokens,
         -- A month without usage of the key spent nothing on it (0); a month
         -- with usage but no priced response has an unknown cost (NULL).
         CASE WHEN c.usage_events IS NULL THEN 0 ELSE c.cost_e10 END AS cur_cost,
         CASE WHEN p.usage_events IS NULL THEN 0 ELSE p.cost_e10 END AS prev_cost
  FROM keyed k
  LEFT JOIN g c ON c.month = k.month AND c.key IS NOT DISTINCT FROM k.key
  LEFT JOIN g p ON p.month = k.previous_month AND p.key IS NOT DISTINCT FROM k.key
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
       coalesce(sessions, 0) AS sessions,
       coalesce(active_days, 0) AS active_days,
       coalesce(p_requests, 0)::HUGEINT AS previous_requests,
       coalesce(p_total_tokens, 0)::HUGEINT AS previous_total_tokens,
       prev_cost::HUGEINT AS previous_cost_e10,
       (coalesce(total_tokens, 0) - coalesce(p_total_tokens, 0))::HUGEINT AS total_tokens_change,
       (coalesce(total_tokens, 0) - coalesce(p_total_tokens, 0)) / nullif(coalesce(p_total_tokens, 0), 0) AS total_tokens_change_ratio,
       (cur_cost - prev_cost)::HUGEINT AS cost_change_e10,
       (cur_cost - prev_cost) / nullif(prev_cost, 0) AS cost_change_ratio
FROM joined
ORDER BY month, cost_e10 DESC NULLS LAST, total_tokens DESC, key
