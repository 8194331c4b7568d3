-- report: compare_prompt_costs
-- The cost of each priced prompt above zero in the local-day range, per
-- harness: the points behind the HTML's per-prompt cost distribution (the
-- same prompts and costs as compare_prompts.sql's cost figures).
-- param: since DATE              first local calendar day included
-- param: until DATE              last local calendar day included
-- param: tz VARCHAR              IANA zone the range is read in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- column: harness                VARCHAR
-- column: cost_usd               DOUBLE
SELECT harness, (cost_e10 / 1e10)::DOUBLE AS cost_usd
FROM report_prompts($tz, $harnesses, $project, $cost_mode)
WHERE CAST(local_ts AS DATE) BETWEEN $since AND $until AND cost_e10 > 0
ORDER BY harness, cost_e10
