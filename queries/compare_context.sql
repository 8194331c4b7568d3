-- report: compare_context
-- Harness efficiency, for harnesses that record context-window occupancy
-- instead of billed usage (Cursor): per harness, what its chats in the range
-- held. These are checkpoints of the context window, NOT billed tokens.
-- A chat is in range when its activity overlaps the range (as in context.sql);
-- one without any timestamp cannot be placed, so it is always counted.
-- Occupancy = used tokens / the window's maximum, for chats that record both.
-- param: since DATE              first local calendar day included
-- param: until DATE              last local calendar day included
-- param: tz VARCHAR              IANA zone the range is read in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: models VARCHAR[]        exact model ids to include ([] = any)
-- column: harness                VARCHAR
-- column: chats                  BIGINT
-- column: turns                  HUGEINT
-- column: avg_latest_used_tokens DOUBLE   mean over chats of the last checkpoint's used tokens
-- column: avg_peak_used_tokens   DOUBLE   mean over chats of the highest checkpoint
-- column: max_peak_used_tokens   BIGINT   the highest checkpoint of any chat
-- column: max_window_tokens      BIGINT   the largest context window seen
-- column: avg_latest_occupancy   DOUBLE   mean of latest_used / max over chats recording both
-- column: avg_peak_occupancy     DOUBLE   mean of peak_used / max over chats recording both
WITH c AS (
  SELECT * FROM context_rows
  WHERE in_filter($harnesses, $project, $models, harness, project, model)
    AND (coalesce(last_ts_ms, first_ts_ms) IS NULL OR (
          CAST(timezone($tz, make_timestamptz(coalesce(last_ts_ms, first_ts_ms) * 1000)) AS DATE) >= $since
      AND CAST(timezone($tz, make_timestamptz(coalesce(first_ts_ms, last_ts_ms) * 1000)) AS DATE) <= $until))
)
SELECT harness,
       count(*) AS chats,
       sum(turns)::HUGEINT AS turns,
       avg(latest_used_tokens)::DOUBLE AS avg_latest_used_tokens,
       avg(peak_used_tokens)::DOUBLE AS avg_peak_used_tokens,
       max(peak_used_tokens) AS max_peak_used_tokens,
       max(max_tokens) AS max_window_tokens,
       avg(latest_used_tokens / nullif(max_tokens, 0))::DOUBLE AS avg_latest_occupancy,
       avg(peak_used_tokens / nullif(max_tokens, 0))::DOUBLE AS avg_peak_occupancy
FROM c
GROUP BY harness
ORDER BY harness
