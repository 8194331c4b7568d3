-- report: live_period_sums
-- include: span               slots wholly in a window, responses of the slots its bounds cut (queries/fragments/span.sql)
-- Cost of billed responses (grain response: session totals left out) per
-- harness and project between two instants: what the live snapshot keeps of
-- the month before its window, for monthly budgets (src/live/budgets.ts).
-- param: harnesses VARCHAR[]   every harness id (HARNESS_IDS)
-- param: project VARCHAR       '' (any)
-- param: cost_mode VARCHAR     'auto'
-- param: from_ms BIGINT[]      the first instant included (one window)
-- param: until_ms BIGINT[]     the first instant excluded
-- column: harness VARCHAR
-- column: project VARCHAR
-- column: cost_e10 HUGEINT           cost under the mode of the priced responses (NULL when none)
-- column: unpriced_requests HUGEINT
WITH {{span}}
SELECT harness, project,
       sum(cost_e10)::HUGEINT AS cost_e10,
       coalesce(sum(unpriced_requests), 0)::HUGEINT AS unpriced_requests
FROM span
GROUP BY ALL
ORDER BY ALL
