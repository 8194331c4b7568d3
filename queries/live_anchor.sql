-- report: live_anchor
-- Per harness, the latest response at or before an instant that starts a
-- chain of 5-hour blocks: the harness's first response, or one more than a
-- block's length after the response before it. Blocks computed from it on
-- are the blocks computed from the whole history (src/live/blocks.ts). Read
-- from the 15-minute slots (usage_slots, src/store/rollups.ts): a gap of
-- more than a block's length lies between slots, so the chain starts are
-- slots' first responses.
-- param: harnesses VARCHAR[]   harness ids to include
-- param: project VARCHAR       substring that the project must contain ('' = any)
-- param: before_ms BIGINT      the instant (ms since the epoch)
-- param: block_ms BIGINT       a block's length in ms
-- column: harness VARCHAR
-- column: anchor_ms BIGINT
-- response_slots: billed responses of grain response per slot (src/report/macros.ts); the cost mode does not matter here; session totals left out
WITH s AS (
  SELECT harness, slot_ms, min(first_ts_ms) AS first_ts_ms, max(last_ts_ms) AS last_ts_ms
  FROM response_slots('UTC', $harnesses, $project, 'auto')
  WHERE first_ts_ms <= $before_ms
  GROUP BY ALL
),
g AS (
  SELECT harness, first_ts_ms, first_ts_ms - lag(last_ts_ms) OVER (PARTITION BY harness ORDER BY slot_ms) AS gap FROM s
)
SELECT harness, max(first_ts_ms) AS anchor_ms
FROM g
WHERE gap IS NULL OR gap > $block_ms
GROUP BY harness
ORDER BY harness
