-- report: live_sessions
-- Whole-history totals of the sessions the live views may show: those with
-- a billed response since an instant, and those with rows in given sources
-- (the transcripts a status line may be reading). Sums in the summary
-- template's column names (src/live/blocks.ts EventSums).
-- param: harnesses VARCHAR[]   harness ids to include
-- param: cost_mode VARCHAR     auto | computed | recorded
-- param: from_ms BIGINT        sessions active since this instant (ms since the epoch)
-- param: source_keys VARCHAR[] sessions with rows in these sources
-- column: harness VARCHAR
-- column: session_id VARCHAR
-- column: requests HUGEINT
-- column: input_tokens HUGEINT
-- column: cache_read_tokens HUGEINT
-- column: cache_write_tokens HUGEINT
-- column: output_tokens HUGEINT
-- column: reasoning_tokens HUGEINT
-- column: total_tokens HUGEINT
-- column: cost_e10 HUGEINT          NULL when nothing is priced
-- column: computed_cost_e10 HUGEINT
-- column: recorded_cost_e10 HUGEINT
-- column: usage_events BIGINT
-- column: priced_events BIGINT
-- column: recorded_events BIGINT
-- column: unpriced_requests HUGEINT
-- column: unpriced_tokens HUGEINT
-- column: first_ts_ms BIGINT
-- column: last_ts_ms BIGINT
-- report_events: billed events with cost_e10 and uses_recorded (src/report/macros.ts)
WITH wanted AS (
  SELECT DISTINCT harness, session_id FROM report_events('UTC', $harnesses, '', $cost_mode) WHERE ts_ms >= $from_ms
  UNION
  SELECT DISTINCT harness, session_id FROM usage_events WHERE list_contains($source_keys, source_key) AND list_contains($harnesses, harness)
)
SELECT e.harness, e.session_id,
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
       coalesce(sum(requests) FILTER (WHERE cost_e10 IS NULL), 0)::HUGEINT AS unpriced_requests,
       coalesce(sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens) FILTER (WHERE cost_e10 IS NULL), 0)::HUGEINT AS unpriced_tokens,
       min(ts_ms) AS first_ts_ms,
       max(ts_ms) AS last_ts_ms
FROM report_events('UTC', $harnesses, '', $cost_mode) e SEMI JOIN wanted w ON e.harness = w.harness AND e.session_id = w.session_id
GROUP BY e.harness, e.session_id
ORDER BY e.harness, e.session_id
