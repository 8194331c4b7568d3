-- report: live_events
-- Billed responses one by one, in time order, for the live views (5-hour
-- blocks, watch, statusline): src/live/events.ts turns them into LiveEvents
-- and src/live/blocks.ts groups them.
-- param: harnesses VARCHAR[]   harness ids to include
-- param: project VARCHAR       substring that the project must contain ('' = any)
-- param: cost_mode VARCHAR     auto | computed | recorded
-- param: from_ms BIGINT        first instant included (ms since the epoch)
-- param: until_ms BIGINT       first instant excluded
-- column: harness VARCHAR
-- column: session_id VARCHAR
-- column: project VARCHAR
-- column: model VARCHAR
-- column: provider VARCHAR
-- column: ts_ms BIGINT
-- column: dedupe_key VARCHAR
-- column: dedupe_rank INTEGER
-- column: requests INTEGER
-- column: input_tokens BIGINT
-- column: cache_read_tokens BIGINT
-- column: cache_write_tokens BIGINT
-- column: output_tokens BIGINT
-- column: reasoning_tokens BIGINT
-- column: cost_e10 BIGINT           cost under cost_mode (NULL when unpriced)
-- column: computed_cost_e10 BIGINT
-- column: recorded_cost_e10 BIGINT
-- column: uses_recorded BOOLEAN     the cost is the harness's recorded one
-- response_events: billed events of grain response, with cost_e10 and uses_recorded (src/report/macros.ts); session totals left out
SELECT harness, session_id, project, model, provider, ts_ms, dedupe_key, dedupe_rank, requests,
       input_tokens, cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens,
       cost_e10, computed_cost_e10, recorded_cost_e10, uses_recorded
FROM response_events('UTC', $harnesses, $project, $cost_mode)
WHERE ts_ms >= $from_ms AND ts_ms < $until_ms
ORDER BY ts_ms, harness, dedupe_key
