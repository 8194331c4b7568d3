-- report: session_view
-- include: slot_units         the shared counts of units of work (queries/fragments/slot_units.sql)
-- What `--by session` shows beside each session's usage (issues 25 and 27):
-- its harness, project, first and last activity, the models of its billed
-- responses, its title where the harness keeps one (never prompt text), and
-- its units of work in the local-day range: prompts typed by a person,
-- turns, tool calls, subagent tasks and active minutes (the time between its
-- records with idle gaps over 10 minutes removed), and how many sub-agent
-- threads active in the range have it as their root (session_facts' parent
-- links, up the tree; Codex puts their spend in the root session). Every
-- session with a billed response or a unit of work in the range.
-- param: since DATE              first local calendar day included
-- param: until DATE              last local calendar day included
-- param: tz VARCHAR              IANA zone the range is read in
-- param: harnesses VARCHAR[]     harness ids to include
-- param: project VARCHAR         substring that the project must contain ('' = any)
-- param: models VARCHAR[]        exact model ids to include ([] = any)
-- column: harness                VARCHAR
-- column: session_id             VARCHAR
-- column: project                VARCHAR  latest project of its responses (else its Cursor chat's)
-- column: models                 VARCHAR[] models of its billed responses in the range
-- column: title                  VARCHAR
-- column: first_ts_ms            BIGINT   first activity in the range
-- column: last_ts_ms             BIGINT   last activity in the range
-- column: active_ms              BIGINT
-- column: prompts                HUGEINT
-- column: turns                  HUGEINT
-- column: tool_calls             HUGEINT
-- column: subagent_tasks         HUGEINT
-- column: subagent_threads       BIGINT   sub-agent threads active in the range whose root is this session
WITH a AS (SELECT * FROM session_active($tz, $harnesses, $since, $until)),
e AS (
  SELECT harness, session_id, list(DISTINCT model ORDER BY model) FILTER (WHERE model IS NOT NULL) AS models
  FROM report_slots($tz, $harnesses, '', 'auto', p_models := $models)
  WHERE near_days(slot_ms, $since, $until) AND CAST(local_ts AS DATE) BETWEEN $since AND $until
  GROUP BY ALL
),
u AS (
  SELECT harness, session_id,
         {{slot_units}}
  FROM session_slots
  WHERE list_contains($harnesses, harness) AND near_days(slot_ms, $since, $until)
    AND CAST(timezone($tz, make_timestamptz(slot_ms * 1000)) AS DATE) BETWEEN $since AND $until
  GROUP BY ALL
),
sr AS (
  SELECT r.harness, r.root_session_id AS session_id, count(*) AS subagent_threads
  FROM session_roots() r JOIN a ON a.harness = r.harness AND a.session_id = r.session_id
  GROUP BY ALL
)
SELECT a.harness, a.session_id, sa.project, coalesce(e.models, []) AS models, f.title,
       a.first_ts_ms, a.last_ts_ms, a.active_ms,
       coalesce(u.prompts, 0)::HUGEINT AS prompts, coalesce(u.turns, 0)::HUGEINT AS turns,
       coalesce(u.tool_calls, 0)::HUGEINT AS tool_calls, coalesce(u.subagent_tasks, 0)::HUGEINT AS subagent_tasks,
       coalesce(sr.subagent_threads, 0)::BIGINT AS subagent_threads
FROM a
LEFT JOIN e ON e.harness = a.harness AND e.session_id = a.session_id
LEFT JOIN u ON u.harness = a.harness AND u.session_id = a.session_id
LEFT JOIN session_facts f ON f.harness = a.harness AND f.session_id = a.session_id
LEFT JOIN sr ON sr.harness = a.harness AND sr.session_id = a.session_id
LEFT JOIN session_attrs($harnesses) sa ON sa.harness = a.harness AND sa.session_id = a.session_id
-- With --model, a session whose responses in the range include none of its models is not one of the report's (e is theirs).
WHERE in_filter($harnesses, $project, [], a.harness, sa.project, NULL) AND (len($models) = 0 OR e.session_id IS NOT NULL)
ORDER BY a.harness, a.session_id
