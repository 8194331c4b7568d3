-- report: compare_prompt_costs
-- The cost of each priced prompt above zero in the local-day range, per
-- harness: the points behind the HTML's per-prompt cost distribution (the
-- same prompts and costs as compare_prompts.sql's cost figures), from the
-- run's temporary table of compare_prompt_rows.sql.
-- column: harness                VARCHAR
-- column: cost_usd               DOUBLE
SELECT harness, (cost_e10 / 1e10)::DOUBLE AS cost_usd
FROM temp.compare_prompt_rows
WHERE cost_e10 > 0
ORDER BY harness, cost_e10
