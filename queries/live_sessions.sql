-- report: live_sessions
-- include: metrics            the shared usage and cost aggregates (queries/fragments/metrics.sql)
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
-- response_slots: billed responses of grain response per 15-minute slot with the cost figures under cost_mode (src/report/macros.ts); session totals left out
WITH wanted AS (
  SELECT DISTINCT harness, session_id FROM usage_slots WHERE list_contains($harnesses, harness) AND grain = 'response' AND last_ts_ms >= $from_ms
  UNION
  SELECT DISTINCT harness, session_id FROM usage_events WHERE list_contains($source_keys, source_key) AND list_contains($harnesses, harness)
)
SELECT e.harness, e.session_id,
       {{metrics}},
       min(first_ts_ms) AS first_ts_ms,
       max(last_ts_ms) AS last_ts_ms
FROM response_slots('UTC', $harnesses, '', $cost_mode) e SEMI JOIN wanted w ON e.harness = w.harness AND e.session_id = w.session_id
GROUP BY e.harness, e.session_id
ORDER BY e.harness, e.session_id
