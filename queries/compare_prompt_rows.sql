-- report: compare_prompt_rows
-- One row per prompt typed by a person in the local-day range (a prompt is
-- in the range by its own time; what answered it counts with it): the billed
-- responses of its session (a subagent's own session counts with the session
-- that spawned it) from the prompt to the next one, their requests (agent
-- steps), tokens and cost, and the tool calls in the same span. The compare report keeps
-- these rows in a temporary table once per run (src/report/compare-units.ts),
-- which compare_prompts.sql and compare_prompt_costs.sql aggregate.
-- param: since DATE              first local calendar day included
-- param: until DATE              last local calendar day included
-- param: tz VARCHAR              IANA zone the range is read in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: models VARCHAR[]        exact model ids to include ([] = any)
-- param: cost_mode VARCHAR       auto | computed | recorded
-- column: harness                VARCHAR
-- column: session_id             VARCHAR  the prompt's own session
-- column: prompt_key             BIGINT   the prompt's dedupe key (hash)
-- column: ts_ms                  BIGINT
-- column: local_ts               TIMESTAMP the prompt's time in tz
-- column: model                  VARCHAR  main model of its responses (most tokens), else its session's
-- column: project                VARCHAR
-- column: machine                VARCHAR
-- column: requests               HUGEINT  billed responses that answered it
-- column: total_tokens           HUGEINT  input + cache read + cache write + output
-- column: cost_e10               HUGEINT  NULL when a response is unpriced; 0 when unanswered
-- column: answered               BOOLEAN  at least one billed response
-- column: tool_calls             HUGEINT
-- prompt_stats (src/store/rollups.ts) keeps these figures per prompt, made by
-- the ingest; its model and project, when no response gave one, are the
-- root session's (session_attrs).
WITH r AS (
  SELECT ps.harness, ps.session_id, ps.prompt_key, ps.ts_ms,
         timezone($tz, make_timestamptz(ps.ts_ms * 1000)) AS local_ts,
         coalesce(ps.model, sa.model) AS model, coalesce(ps.project, sa.project) AS project, ps.machine,
         ps.requests, ps.total_tokens,
         CASE $cost_mode WHEN 'computed' THEN ps.computed_cost_e10 WHEN 'recorded' THEN ps.recorded_cost_e10 ELSE ps.cost_e10 END AS cost_e10,
         ps.answered, ps.tool_calls
  FROM prompt_stats ps
  LEFT JOIN session_attrs($harnesses) sa ON sa.harness = ps.harness AND sa.session_id = ps.root_session_id
  WHERE list_contains($harnesses, ps.harness) AND near_days(ps.ts_ms, $since, $until)
)
SELECT * FROM r
WHERE CAST(local_ts AS DATE) BETWEEN $since AND $until
  AND in_filter($harnesses, $project, $models, harness, project, model)
