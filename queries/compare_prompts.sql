-- report: compare_prompts
-- Harness efficiency per unit of work: per harness and one
-- optional detail key, what a prompt typed by a person cost, as mean, median
-- and 90th percentile over the prompts of the local-day range (a prompt is in
-- the range by its own time; what answered it counts with it). Per prompt:
-- the billed responses of its session (a subagent's own session counts with
-- the session that spawned it) from the prompt to the next one, their
-- requests (agent steps), tokens and cost, and the tool calls in the same
-- span (compare_prompt_rows.sql, kept in a temporary table of that name
-- for the run by src/report/compare-units.ts). A prompt with an
-- unpriced response has no cost and is left out of the cost figures (see
-- priced_prompts). Detail keys read the prompt's main model (most tokens),
-- project, local time, session and machine. Medians and percentiles are
-- interpolated (quantile_cont).
-- slot: detail                   ONE grouping expression from the code whitelist, or '' for per harness only
-- column: harness                VARCHAR
-- column: detail                 VARCHAR  the detail key's value ('' at harness level)
-- column: prompts                BIGINT   prompts typed by a person in the range
-- column: answered_prompts       BIGINT   of those, prompts with at least one billed response
-- column: priced_prompts         BIGINT   of those, prompts whose every response is priced (behind the cost figures)
-- column: session_total_prompts  BIGINT   prompts of sessions whose usage is recorded as session totals: counted, but not in the usage figures (compare_prompt_rows.sql)
-- column: requests_per_prompt_mean DOUBLE  (and _median, _p90) billed responses (agent steps) per prompt
-- column: tokens_per_prompt_mean DOUBLE    (and _median, _p90) input + cache read + cache write + output
-- column: cost_per_prompt_usd_mean DOUBLE  (and _median, _p90) over priced prompts
-- column: tool_calls_per_prompt_mean DOUBLE (and _median, _p90)
WITH k AS (
  SELECT *, CAST({{detail}} AS VARCHAR) AS detail FROM temp.compare_prompt_rows
)
SELECT harness, detail,
       count(*) AS prompts,
       count(*) FILTER (WHERE answered) AS answered_prompts,
       count(cost_e10) AS priced_prompts,
       count(*) FILTER (WHERE session_total) AS session_total_prompts,
       avg(requests)::DOUBLE AS requests_per_prompt_mean,
       quantile_cont(requests, 0.5)::DOUBLE AS requests_per_prompt_median,
       quantile_cont(requests, 0.9)::DOUBLE AS requests_per_prompt_p90,
       avg(total_tokens)::DOUBLE AS tokens_per_prompt_mean,
       quantile_cont(total_tokens, 0.5)::DOUBLE AS tokens_per_prompt_median,
       quantile_cont(total_tokens, 0.9)::DOUBLE AS tokens_per_prompt_p90,
       (avg(cost_e10) / 1e10)::DOUBLE AS cost_per_prompt_usd_mean,
       (quantile_cont(cost_e10, 0.5) / 1e10)::DOUBLE AS cost_per_prompt_usd_median,
       (quantile_cont(cost_e10, 0.9) / 1e10)::DOUBLE AS cost_per_prompt_usd_p90,
       avg(tool_calls)::DOUBLE AS tool_calls_per_prompt_mean,
       quantile_cont(tool_calls, 0.5)::DOUBLE AS tool_calls_per_prompt_median,
       quantile_cont(tool_calls, 0.9)::DOUBLE AS tool_calls_per_prompt_p90
FROM k
GROUP BY ALL
ORDER BY harness, prompts DESC, detail
