-- report: live_anchor
-- Per harness, the latest response at or before an instant that starts a
-- chain of 5-hour blocks: the harness's first response, or one more than a
-- block's length after the response before it. Blocks computed from it on
-- are the blocks computed from the whole history (src/live/blocks.ts).
-- param: harnesses VARCHAR[]   harness ids to include
-- param: project VARCHAR       substring that the project must contain ('' = any)
-- param: before_ms BIGINT      the instant (ms since the epoch)
-- param: block_ms BIGINT       a block's length in ms
-- column: harness VARCHAR
-- column: anchor_ms BIGINT
-- response_events: billed events of grain response (src/report/macros.ts); the cost mode does not matter here; session totals left out
WITH e AS (
  SELECT harness, ts_ms, ts_ms - lag(ts_ms) OVER (PARTITION BY harness ORDER BY ts_ms) AS gap
  FROM response_events('UTC', $harnesses, $project, 'auto')
  WHERE ts_ms <= $before_ms
)
SELECT harness, max(ts_ms) AS anchor_ms
FROM e
WHERE gap IS NULL OR gap > $block_ms
GROUP BY harness
ORDER BY harness
