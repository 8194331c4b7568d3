-- report: compare
-- include: metrics            the shared usage and cost aggregates (queries/fragments/metrics.sql)
-- Harness efficiency: usage, cost and per-request / per-session figures per
-- harness and one optional detail key (e.g. model), over billed responses
-- (one row per dedupe key, see the billed_events view), every harness over the
-- same local-day range. Ratios are fractions (0.25 = 25%), NULL when their
-- denominator is 0. Cost figures use only what is priced: cost per request
-- divides the cost by the requests of priced responses, cost per session
-- averages over sessions whose every response is priced.
-- param: since DATE              first local calendar day included
-- param: until DATE              last local calendar day included
-- param: tz VARCHAR              IANA zone the range is read in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: models VARCHAR[]        exact model ids to include ([] = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- slot: detail                   ONE grouping expression from the code whitelist, or '' for per harness only
-- column: harness                VARCHAR
-- column: detail                 VARCHAR  the detail key's value ('' at harness level)
-- column: requests               HUGEINT
-- column: input_tokens           HUGEINT  uncached input
-- column: cache_read_tokens      HUGEINT
-- column: cache_write_tokens     HUGEINT
-- column: output_tokens          HUGEINT  all output, reasoning included
-- column: reasoning_tokens       HUGEINT
-- column: total_tokens           HUGEINT
-- column: cost_e10               HUGEINT  under cost_mode (NULL when nothing priced)
-- column: computed_cost_e10      HUGEINT
-- column: recorded_cost_e10      HUGEINT
-- column: usage_events           BIGINT
-- column: priced_events          BIGINT
-- column: recorded_events        BIGINT
-- column: sessions               BIGINT   distinct sessions
-- column: priced_sessions        BIGINT   of those, sessions whose every response is priced
-- column: active_days            BIGINT   distinct local days with a billed response
-- column: cost_per_request_usd   DOUBLE   cost / requests of priced responses
-- column: cost_per_session_usd   DOUBLE   cost of fully priced sessions / their number
-- column: tokens_per_request     DOUBLE   total tokens / requests
-- column: output_tokens_per_request DOUBLE
-- column: cache_hit_rate         DOUBLE   cache_read / (input + cache_read + cache_write)
-- column: cache_write_share      DOUBLE   cache_write / (input + cache_read + cache_write)
-- column: reasoning_share        DOUBLE   reasoning / output
-- column: unpriced_requests      HUGEINT  requests of responses without a cost under cost_mode
-- column: unpriced_tokens        HUGEINT  their total tokens
-- report_slots: billed responses per 15-minute slot with local_ts and the cost
-- figures under cost_mode (src/report/macros.ts)
WITH f AS (
  SELECT * FROM report_slots($tz, $harnesses, $project, $cost_mode, p_models := $models)
  WHERE near_days(slot_ms, $since, $until) AND CAST(local_ts AS DATE) BETWEEN $since AND $until
),
k AS (
  SELECT *, CAST({{detail}} AS VARCHAR) AS detail FROM f
),
per_session AS (
  SELECT harness, detail, session_id, sum(cost_e10) AS cost_e10, sum(priced_events) = sum(events) AS fully_priced
  FROM k
  GROUP BY ALL
),
sessions AS (
  SELECT harness, detail,
         count(*) AS sessions,
         count(*) FILTER (WHERE fully_priced) AS priced_sessions,
         sum(cost_e10) FILTER (WHERE fully_priced) AS priced_session_cost_e10
  FROM per_session
  GROUP BY ALL
),
m AS (
  SELECT harness, detail,
         {{metrics}},
         sum(requests - unpriced_requests) AS priced_requests,
         count(DISTINCT CAST(local_ts AS DATE)) AS active_days
  FROM k
  GROUP BY ALL
)
SELECT m.harness, m.detail, requests, input_tokens, cache_read_tokens, cache_write_tokens, output_tokens,
       reasoning_tokens, total_tokens, cost_e10, computed_cost_e10, recorded_cost_e10, usage_events,
       priced_events, recorded_events, sessions, priced_sessions, active_days,
       cost_e10 / nullif(priced_requests, 0) / 1e10 AS cost_per_request_usd,
       priced_session_cost_e10 / nullif(priced_sessions, 0) / 1e10 AS cost_per_session_usd,
       total_tokens / nullif(requests, 0) AS tokens_per_request,
       output_tokens / nullif(requests, 0) AS output_tokens_per_request,
       cache_read_tokens / nullif(input_tokens + cache_read_tokens + cache_write_tokens, 0) AS cache_hit_rate,
       cache_write_tokens / nullif(input_tokens + cache_read_tokens + cache_write_tokens, 0) AS cache_write_share,
       reasoning_tokens / nullif(output_tokens, 0) AS reasoning_share,
       unpriced_requests, unpriced_tokens
FROM m JOIN sessions s ON s.harness = m.harness AND s.detail IS NOT DISTINCT FROM m.detail
ORDER BY m.harness, cost_e10 DESC NULLS LAST, total_tokens DESC, m.detail
