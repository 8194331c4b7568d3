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
-- param: cost_mode VARCHAR       auto | computed | recorded
-- column: harness                VARCHAR
-- column: session_id             VARCHAR  the prompt's own session
-- column: prompt_key             BIGINT   the prompt's dedupe key (hash)
-- column: ts_ms                  BIGINT
-- column: local_ts               TIMESTAMP the prompt's time in tz
-- column: model                  VARCHAR  main model of its responses (most tokens), else its session's
-- column: project                VARCHAR
-- column: machine                VARCHAR
-- column: requests               HUGEINT  billed responses that answered it (NULL: session_total)
-- column: total_tokens           HUGEINT  input + cache read + cache write + output (NULL: session_total)
-- column: cost_e10               HUGEINT  NULL when a response is unpriced, or session_total; 0 when unanswered
-- column: answered               BOOLEAN  at least one billed response (NULL: session_total)
-- column: tool_calls             HUGEINT
-- column: session_total          BOOLEAN  its session (or one of its sub-agents') records usage as session totals
-- Per-prompt figures rest on responses only (issue 43 "Grain"): a session
-- total (grain session or snapshot) is placed at its session's last activity,
-- so the prompt before it would take the whole session's usage. A prompt of
-- a root session with any such row has its usage figures NULL (unknown per
-- prompt: left out of the means and quantiles) and session_total set; it
-- still counts as a prompt, with its tool calls.
-- prompt_stats (src/store/rollups.ts) keeps these figures per prompt, made by
-- the ingest; its model and project, when no response gave one, are the
-- root session's (session_attrs).
WITH st AS (
  SELECT DISTINCT u.harness, coalesce(sr.root_session_id, u.session_id) AS root_session_id
  FROM usage_slots u LEFT JOIN session_roots() sr ON sr.harness = u.harness AND sr.session_id = u.session_id
  WHERE u.grain <> 'response' AND list_contains($harnesses, u.harness)
),
r AS (
  SELECT ps.harness, ps.session_id, ps.prompt_key, ps.ts_ms,
         timezone($tz, make_timestamptz(ps.ts_ms * 1000)) AS local_ts,
         coalesce(ps.model, sa.model) AS model, coalesce(ps.project, sa.project) AS project, ps.machine,
         CASE WHEN st.harness IS NULL THEN ps.requests END AS requests,
         CASE WHEN st.harness IS NULL THEN ps.total_tokens END AS total_tokens,
         CASE WHEN st.harness IS NOT NULL THEN NULL
              WHEN $cost_mode = 'computed' THEN ps.computed_cost_e10 WHEN $cost_mode = 'recorded' THEN ps.recorded_cost_e10 ELSE ps.cost_e10 END AS cost_e10,
         CASE WHEN st.harness IS NULL THEN ps.answered END AS answered, ps.tool_calls,
         st.harness IS NOT NULL AS session_total
  FROM prompt_stats ps
  LEFT JOIN session_attrs($harnesses) sa ON sa.harness = ps.harness AND sa.session_id = ps.root_session_id
  LEFT JOIN st ON st.harness = ps.harness AND st.root_session_id = ps.root_session_id
  WHERE list_contains($harnesses, ps.harness) AND near_days(ps.ts_ms, $since, $until)
)
SELECT * FROM r
WHERE CAST(local_ts AS DATE) BETWEEN $since AND $until
  AND ($project = '' OR contains(coalesce(project, ''), $project))
