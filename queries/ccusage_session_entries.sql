-- report: ccusage_session_entries
-- The billed responses of one session, one by one in time order, for
-- `tx-usage session --id ID --json` in ccusage's shape (src/compat/ccusage:
-- its `entries`). Rows made from session totals (grain session or snapshot)
-- are in it too, at their session's last activity, as the session's report row has them.
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- param: session VARCHAR         the session id
-- column: harness VARCHAR
-- column: session_id VARCHAR
-- column: model VARCHAR
-- column: ts_ms BIGINT
-- column: requests INTEGER
-- column: input_tokens BIGINT
-- column: cache_read_tokens BIGINT
-- column: cache_write_tokens BIGINT
-- column: output_tokens BIGINT
-- column: reasoning_tokens BIGINT
-- column: cost_e10 BIGINT        cost under cost_mode (NULL when unpriced)
-- report_events: billed events with cost_e10 under cost_mode (src/report/macros.ts)
SELECT harness, session_id, model, ts_ms, requests, input_tokens, cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens, cost_e10
FROM report_events('UTC', $harnesses, $project, $cost_mode)
WHERE session_id = $session
ORDER BY ts_ms, harness
