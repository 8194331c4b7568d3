-- report: live_rate_limits
-- Plan rate-limit snapshots recorded by harnesses (rate_limit_snapshots,
-- schema v4): those seen since an instant, and each harness's latest one
-- whenever it was seen. src/live/limits.ts groups them into windows.
-- param: harnesses VARCHAR[]   harness ids to include
-- param: from_ms BIGINT        snapshots last seen at or after this instant (ms since the epoch)
-- column: harness VARCHAR
-- column: session_id VARCHAR
-- column: first_seen_ms BIGINT
-- column: last_seen_ms BIGINT
-- column: limit_id VARCHAR
-- column: plan_type VARCHAR
-- column: primary_used_percent DOUBLE
-- column: primary_window_minutes INTEGER
-- column: primary_resets_at_ms BIGINT
-- column: secondary_used_percent DOUBLE
-- column: secondary_window_minutes INTEGER
-- column: secondary_resets_at_ms BIGINT
-- column: credits_has_credits BOOLEAN
-- column: credits_unlimited BOOLEAN
-- column: credits_balance VARCHAR
-- column: reached_type VARCHAR
WITH s AS (
  SELECT * FROM rate_limit_snapshots WHERE list_contains($harnesses, harness)
),
latest AS (
  SELECT * FROM s QUALIFY row_number() OVER (PARTITION BY harness ORDER BY last_seen_ms DESC, first_seen_ms DESC, source_file, source_line) = 1
)
SELECT DISTINCT harness, session_id, first_seen_ms, last_seen_ms, limit_id, plan_type,
       primary_used_percent, primary_window_minutes, primary_resets_at_ms,
       secondary_used_percent, secondary_window_minutes, secondary_resets_at_ms,
       credits_has_credits, credits_unlimited, credits_balance, reached_type
FROM (SELECT * FROM s WHERE last_seen_ms >= $from_ms UNION ALL SELECT * FROM latest)
ORDER BY harness, first_seen_ms, last_seen_ms
