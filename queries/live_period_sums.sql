-- report: live_period_sums
-- Cost of billed responses per harness and project between two instants:
-- what the live snapshot keeps of the month before its window, for monthly
-- budgets (src/live/budgets.ts).
-- param: from_ms BIGINT        first instant included (ms since the epoch)
-- param: until_ms BIGINT       first instant excluded
-- param: harnesses VARCHAR[]    every harness id (HARNESS_IDS)
-- column: harness VARCHAR
-- column: project VARCHAR
-- column: cost_e10 HUGEINT           cost under 'auto' of the priced responses (NULL when none)
-- column: unpriced_requests HUGEINT
-- response_events: billed events of grain response, with cost_e10 (src/report/macros.ts); session totals left out
SELECT harness, project,
       sum(cost_e10)::HUGEINT AS cost_e10,
       coalesce(sum(requests) FILTER (WHERE cost_e10 IS NULL), 0)::HUGEINT AS unpriced_requests
FROM response_events('UTC', $harnesses, '', 'auto')
WHERE ts_ms >= $from_ms AND ts_ms < $until_ms
GROUP BY ALL
ORDER BY ALL
