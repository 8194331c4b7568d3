-- report: context
-- Cursor-style context-window occupancy per chat. Not billed usage: never
-- added into token totals or costs.
-- param: since DATE            first local calendar day included
-- param: until DATE            last local calendar day included
-- param: tz VARCHAR            IANA zone the range is read in
-- param: harnesses VARCHAR[]   harness ids to include
-- param: project VARCHAR       substring that the project must contain ('' = any)
-- param: models VARCHAR[]      exact model ids to include ([] = any)
-- column: harness VARCHAR
-- column: session VARCHAR      chat id, or <chatId>/<subagentId>
-- column: project VARCHAR
-- column: model VARCHAR
-- column: turns BIGINT
-- column: latest_used_tokens BIGINT
-- column: max_tokens BIGINT
-- column: peak_used_tokens BIGINT
-- column: first_ts_ms BIGINT
-- column: last_ts_ms BIGINT
SELECT harness, session, project, model, turns, latest_used_tokens, max_tokens, peak_used_tokens,
       first_ts_ms, last_ts_ms
FROM context_rows
WHERE in_filter($harnesses, $project, $models, harness, project, model)
  -- A chat is in range when its activity overlaps the range; one without
  -- any timestamp cannot be placed, so it is always listed.
  AND (coalesce(last_ts_ms, first_ts_ms) IS NULL OR (
        CAST(timezone($tz, make_timestamptz(coalesce(last_ts_ms, first_ts_ms) * 1000)) AS DATE) >= $since
    AND CAST(timezone($tz, make_timestamptz(coalesce(first_ts_ms, last_ts_ms) * 1000)) AS DATE) <= $until))
ORDER BY harness, project, session
