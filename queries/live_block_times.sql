-- report: live_block_times
-- The first and last response time of each 15-minute slot of some
-- harnesses from a block-chain start up to an instant, in time order:
-- src/live/events.ts walks them with the block rule (src/live/blocks.ts
-- latestBlockFirstTs; no block starts inside a slot) to find where the
-- latest block at or before the instant starts, so that the live snapshot
-- carries that block onwards, not the whole chain (on a busy history a
-- chain can run for months).
-- param: harnesses VARCHAR[]   harness ids to include (one family at a time)
-- param: project VARCHAR       substring that the project must contain ('' = any)
-- param: from_ms BIGINT        the chain's start (queries/live_anchor.sql)
-- param: until_ms BIGINT       last instant included
-- column: ts_ms BIGINT         the slot's first response
-- column: last_ts_ms BIGINT    its last
-- response_slots: billed responses of grain response per slot (src/report/macros.ts); the cost mode does not matter here; session totals left out
SELECT min(first_ts_ms) AS ts_ms, max(last_ts_ms) AS last_ts_ms
FROM response_slots('UTC', $harnesses, $project, 'auto')
WHERE first_ts_ms BETWEEN $from_ms AND $until_ms
GROUP BY slot_ms
ORDER BY ts_ms
