-- report: monthly_costfit
-- Monthly spend review, cost by component: the store keeps one cost per
-- response (what the harness recorded or what pricing computed), not its
-- split into input, cache reads, cache writes and output. Within one month,
-- harness, provider and model every priced response was billed at the same
-- per-token rates, so cost = Σ rate_k × tokens_k holds for each of them; this
-- query returns the sums of products (the normal equations of that linear
-- system) from which src/report/costshares.ts recovers the rates exactly
-- (least squares, rates ≥ 0) and so each component's share. Only responses
-- with a cost are used; the shares become right as soon as costs are filled.
-- Months from the one containing $since to $until (the last month ends there).
-- param: since DATE              any day of the first month
-- param: until DATE              the last local day included (the last month ends here)
-- param: tz VARCHAR              IANA zone that months are cut in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: models VARCHAR[]        exact model ids to include ([] = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- column: month                  VARCHAR  YYYY-MM
-- column: harness                VARCHAR
-- column: provider               VARCHAR
-- column: model                  VARCHAR
-- column: responses              BIGINT   priced responses
-- column: cost_e10               HUGEINT  Σ cost (exact)
-- column: sum_cost               DOUBLE   Σ cost
-- column: sum_cost_cost          DOUBLE   Σ cost²
-- column: sum_in                 DOUBLE   Σ uncached input
-- column: sum_cr                 DOUBLE   Σ cache reads
-- column: sum_cw                 DOUBLE   Σ cache writes other than 1-hour ones
-- column: sum_cw1h               DOUBLE   Σ 1-hour cache writes
-- column: sum_out                DOUBLE   Σ output (reasoning included)
-- column: sum_in_in              DOUBLE
-- column: sum_in_cr              DOUBLE
-- column: sum_in_cw              DOUBLE
-- column: sum_in_cw1h            DOUBLE
-- column: sum_in_out             DOUBLE
-- column: sum_cr_cr              DOUBLE
-- column: sum_cr_cw              DOUBLE
-- column: sum_cr_cw1h            DOUBLE
-- column: sum_cr_out             DOUBLE
-- column: sum_cw_cw              DOUBLE
-- column: sum_cw_cw1h            DOUBLE
-- column: sum_cw_out             DOUBLE
-- column: sum_cw1h_cw1h          DOUBLE
-- column: sum_cw1h_out           DOUBLE
-- column: sum_out_out            DOUBLE
-- column: sum_in_cost            DOUBLE
-- column: sum_cr_cost            DOUBLE
-- column: sum_cw_cost            DOUBLE
-- column: sum_cw1h_cost          DOUBLE
-- column: sum_out_cost           DOUBLE
WITH ev AS (
  SELECT *,
         timezone($tz, make_timestamptz(ts_ms * 1000)) AS local_ts,
         CASE $cost_mode
           WHEN 'computed' THEN computed_cost_e10
           WHEN 'recorded' THEN recorded_cost_e10
           ELSE coalesce(recorded_cost_e10, computed_cost_e10)
         END AS cost_e10
  FROM billed_events
  WHERE in_filter($harnesses, $project, $models, harness, project, model)
),
f AS (
  SELECT * FROM ev
  WHERE near_days(ts_ms, CAST(date_trunc('month', $since) AS DATE), $until)
    AND CAST(local_ts AS DATE) BETWEEN CAST(date_trunc('month', $since) AS DATE) AND $until
    AND cost_e10 IS NOT NULL
),
x AS (
  -- The 1-hour share of cache writes, as pricing reads it: a recorded 1h count
  -- is authoritative, a lone 5m count implies 1h = the rest.
  SELECT *,
         least(cache_write_tokens, greatest(0, coalesce(cache_write_1h_tokens,
           CASE WHEN cache_write_5m_tokens IS NOT NULL THEN cache_write_tokens - cache_write_5m_tokens ELSE 0 END))) AS w1h
  FROM f
),
v AS (
  SELECT strftime(local_ts, '%Y-%m') AS month, harness, provider, model, cost_e10,
         cost_e10::DOUBLE AS y,
         input_tokens AS x_in,
         cache_read_tokens AS x_cr,
         cache_write_tokens - w1h AS x_cw,
         w1h AS x_cw1h,
         output_tokens AS x_out
  FROM x
)
SELECT month, harness, provider, model,
       count(*) AS responses,
       sum(cost_e10)::HUGEINT AS cost_e10,
       sum(y)::DOUBLE AS sum_cost,
       sum(y * y)::DOUBLE AS sum_cost_cost,
       sum(x_in)::DOUBLE AS sum_in,
       sum(x_cr)::DOUBLE AS sum_cr,
       sum(x_cw)::DOUBLE AS sum_cw,
       sum(x_cw1h)::DOUBLE AS sum_cw1h,
       sum(x_out)::DOUBLE AS sum_out,
       sum(x_in::DOUBLE * x_in)::DOUBLE AS sum_in_in,
       sum(x_in::DOUBLE * x_cr)::DOUBLE AS sum_in_cr,
       sum(x_in::DOUBLE * x_cw)::DOUBLE AS sum_in_cw,
       sum(x_in::DOUBLE * x_cw1h)::DOUBLE AS sum_in_cw1h,
       sum(x_in::DOUBLE * x_out)::DOUBLE AS sum_in_out,
       sum(x_cr::DOUBLE * x_cr)::DOUBLE AS sum_cr_cr,
       sum(x_cr::DOUBLE * x_cw)::DOUBLE AS sum_cr_cw,
       sum(x_cr::DOUBLE * x_cw1h)::DOUBLE AS sum_cr_cw1h,
       sum(x_cr::DOUBLE * x_out)::DOUBLE AS sum_cr_out,
       sum(x_cw::DOUBLE * x_cw)::DOUBLE AS sum_cw_cw,
       sum(x_cw::DOUBLE * x_cw1h)::DOUBLE AS sum_cw_cw1h,
       sum(x_cw::DOUBLE * x_out)::DOUBLE AS sum_cw_out,
       sum(x_cw1h::DOUBLE * x_cw1h)::DOUBLE AS sum_cw1h_cw1h,
       sum(x_cw1h::DOUBLE * x_out)::DOUBLE AS sum_cw1h_out,
       sum(x_out::DOUBLE * x_out)::DOUBLE AS sum_out_out,
       sum(x_in::DOUBLE * y)::DOUBLE AS sum_in_cost,
       sum(x_cr::DOUBLE * y)::DOUBLE AS sum_cr_cost,
       sum(x_cw::DOUBLE * y)::DOUBLE AS sum_cw_cost,
       sum(x_cw1h::DOUBLE * y)::DOUBLE AS sum_cw1h_cost,
       sum(x_out::DOUBLE * y)::DOUBLE AS sum_out_cost
FROM v
GROUP BY ALL
ORDER BY month, harness, provider NULLS FIRST, model NULLS FIRST
