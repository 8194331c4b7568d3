-- report: summary
-- Usage and cost per group over billed responses (one row per dedupe key, see
-- the billed_events view), read from their roll-up per 15-minute slot
-- (usage_slots), plus Cursor chats as zero-usage rows so that a harness with
-- context data but no billed usage still shows up.
-- param: since DATE              first local calendar day included
-- param: until DATE              last local calendar day included
-- param: tz VARCHAR              IANA zone that days, weeks and months are cut in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: models VARCHAR[]        exact model ids to include ([] = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- slot: keys                     grouping expressions from the code whitelist, each "expr AS key,"
-- column: <one per key>          VARCHAR
-- column: requests               HUGEINT  billed responses
-- column: input_tokens           HUGEINT  uncached input
-- column: cache_read_tokens      HUGEINT
-- column: cache_write_tokens     HUGEINT
-- column: cache_write_1h_tokens  HUGEINT  1-hour share of cache writes, where recorded
-- column: output_tokens          HUGEINT  all output, reasoning included
-- column: reasoning_tokens       HUGEINT  subset of output
-- column: total_tokens           HUGEINT  input + cache read + cache write + output
-- column: cost_e10               HUGEINT  cost in 1e-10 USD under cost_mode (NULL when nothing priced)
-- column: computed_cost_e10      HUGEINT
-- column: recorded_cost_e10      HUGEINT
-- column: usage_events           BIGINT   billed usage events in the group
-- column: priced_events          BIGINT   of those, events with a cost under cost_mode
-- column: recorded_events        BIGINT   of those, events whose cost is the harness's recorded one
-- column: sessions               BIGINT   distinct sessions
-- column: active_days            BIGINT   distinct local days with activity
-- column: unpriced_requests      HUGEINT  requests of billed events without a cost under cost_mode
-- column: unpriced_tokens        HUGEINT  their total tokens
-- column: session_grain_requests HUGEINT  of the requests, those of rows made from session totals (grain session or snapshot)
-- column: session_grain_tokens   HUGEINT  their total tokens
-- column: session_grain_cost_e10 HUGEINT  their cost under cost_mode (NULL when none is priced)
-- report_slots: the billed responses summed per 15-minute slot and grain, with
-- local_ts and the cost figures under cost_mode (src/report/macros.ts).
WITH raw AS (
  SELECT harness, session_id, project, model, slot_ms AS ts_ms, local_ts, events, requests, input_tokens, cache_read_tokens,
         cache_write_tokens, cache_write_1h_tokens, output_tokens, reasoning_tokens,
         cost_e10, computed_cost_e10, recorded_cost_e10, priced_events, recorded_events, unpriced_requests, unpriced_tokens, machine,
         grain <> 'response' AS session_grain
  FROM report_slots($tz, $harnesses, $project, $cost_mode, p_models := $models)
  UNION ALL
  SELECT harness, session, project, model, coalesce(last_ts_ms, first_ts_ms),
         timezone($tz, make_timestamptz(coalesce(last_ts_ms, first_ts_ms) * 1000)),
         0, 0, 0, 0, 0, NULL, 0, 0, NULL, NULL, NULL, 0, 0, 0, 0, machine, FALSE
  FROM context_rows
  WHERE coalesce(last_ts_ms, first_ts_ms) IS NOT NULL
    AND in_filter($harnesses, $project, $models, harness, project, model)
),
f AS (
  SELECT * FROM raw WHERE near_days(ts_ms, $since, $until) AND CAST(local_ts AS DATE) BETWEEN $since AND $until
)
SELECT {{keys}}
       coalesce(sum(requests), 0)::HUGEINT AS requests,
       coalesce(sum(input_tokens), 0)::HUGEINT AS input_tokens,
       coalesce(sum(cache_read_tokens), 0)::HUGEINT AS cache_read_tokens,
       coalesce(sum(cache_write_tokens), 0)::HUGEINT AS cache_write_tokens,
       coalesce(sum(cache_write_1h_tokens), 0)::HUGEINT AS cache_write_1h_tokens,
       coalesce(sum(output_tokens), 0)::HUGEINT AS output_tokens,
       coalesce(sum(reasoning_tokens), 0)::HUGEINT AS reasoning_tokens,
       coalesce(sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens), 0)::HUGEINT AS total_tokens,
       sum(cost_e10)::HUGEINT AS cost_e10,
       sum(computed_cost_e10)::HUGEINT AS computed_cost_e10,
       sum(recorded_cost_e10)::HUGEINT AS recorded_cost_e10,
       coalesce(sum(events), 0)::BIGINT AS usage_events,
       coalesce(sum(priced_events), 0)::BIGINT AS priced_events,
       coalesce(sum(recorded_events), 0)::BIGINT AS recorded_events,
       count(DISTINCT harness || ':' || session_id) AS sessions,
       count(DISTINCT CAST(local_ts AS DATE)) AS active_days,
       coalesce(sum(unpriced_requests), 0)::HUGEINT AS unpriced_requests,
       coalesce(sum(unpriced_tokens), 0)::HUGEINT AS unpriced_tokens,
       coalesce(sum(requests) FILTER (WHERE session_grain), 0)::HUGEINT AS session_grain_requests,
       coalesce(sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens) FILTER (WHERE session_grain), 0)::HUGEINT AS session_grain_tokens,
       sum(cost_e10) FILTER (WHERE session_grain)::HUGEINT AS session_grain_cost_e10
FROM f
GROUP BY ALL
ORDER BY ALL
