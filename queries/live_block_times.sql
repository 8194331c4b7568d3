-- report: live_block_times
-- The distinct response times of some harnesses from a block-chain start up
-- to an instant, in time order: src/live/events.ts walks them with the block
-- rule (src/live/blocks.ts) to find where the latest block at or before the
-- instant starts, so that the live snapshot carries that block onwards, not
-- the whole chain (on a busy history a chain can run for months).
-- param: harnesses VARCHAR[]   harness ids to include (one family at a time)
-- param: project VARCHAR       substring that the project must contain ('' = any)
-- param: from_ms BIGINT        the chain's start (queries/live_anchor.sql)
-- param: until_ms BIGINT       last instant included
-- column: ts_ms BIGINT
-- response_events: billed events of grain response (src/report/macros.ts); the cost mode does not matter here; session totals left out
SELECT DISTINCT ts_ms
FROM response_events('UTC', $harnesses, $project, 'auto')
WHERE ts_ms BETWEEN $from_ms AND $until_ms
ORDER BY ts_ms
