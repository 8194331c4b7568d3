-- report: cursor_days
-- Cursor's billed usage beside its local chats, per local day: the billed
-- responses of imported dashboard usage CSVs (`tx-usage import cursor-usage`;
-- Cursor keeps no billed usage on disk, so every billed cursor-agent row is an
-- imported one) next to the chats the Cursor Agent CLI left on this machine,
-- so that a user sees which days an import covers and which local activity
-- has none. A day is listed when it has billed rows or local chat activity.
-- Chats are context rows (chats and subagents, each its own): a chat is active
-- on every day from its first to its last activity; its turns are not dated
-- one by one, so they count on its last day (as the summary places it).
-- An import covers the days from its first to its last billed row (rows that
-- another import also holds count for the one the store keeps).
-- The dashboard also bills the editor and other machines, so billed rows
-- without local chats are expected; local chats on a day no import covers
-- mean that day's billing has not been imported.
-- Kind classes (the Kind column as Cursor writes it, case-insensitive):
-- included = Included*, Free; usage-based = On-Demand, Usage-based; other =
-- everything else stated (errored with usage, User API Key, ...); unknown =
-- no Kind column (the oldest export generation).
-- param: since DATE              first local calendar day included
-- param: until DATE              last local calendar day included
-- param: tz VARCHAR              IANA zone the days are cut in
-- param: cost_mode VARCHAR       auto | computed | recorded
-- column: day                    VARCHAR  YYYY-MM-DD
-- column: billed_rows            BIGINT   billed responses in imported usage CSVs
-- column: request_units          DOUBLE   their `Requests` charge (NULL when no row states one)
-- column: included_rows          BIGINT
-- column: usage_based_rows       BIGINT
-- column: other_rows             BIGINT   other or unknown kind
-- column: total_tokens           HUGEINT
-- column: cost_e10               HUGEINT  under cost_mode (NULL when nothing priced)
-- column: charged_cost_e10       HUGEINT  recorded cost of usage-based rows (NULL when none states one)
-- column: priced_rows            BIGINT   billed rows with a cost under cost_mode
-- column: local_chats            BIGINT   chats (and subagents) active that day
-- column: local_turns            HUGEINT  turns of the chats whose last activity is that day
-- column: in_import              BOOLEAN  the day lies within some import's first..last day
-- column: status                 VARCHAR  billed | billed, no local chats | local, none billed | local, not imported
-- report_events: billed events with local_ts, cost_e10 and uses_recorded (src/report/macros.ts)
WITH b AS (
  SELECT *, CAST(local_ts AS DATE) AS d,
         CASE
           WHEN billing_kind IS NULL THEN 'unknown'
           WHEN lower(billing_kind) LIKE 'included%' OR lower(billing_kind) = 'free' THEN 'included'
           WHEN lower(billing_kind) IN ('on-demand', 'usage-based', 'usage based') THEN 'usage-based'
           ELSE 'other'
         END AS kind_class
  FROM report_events($tz, ['cursor-agent'], '', $cost_mode)
),
spans AS (
  SELECT min(d) AS first_day, max(d) AS last_day FROM b GROUP BY source_key
),
billed AS (
  SELECT d,
         count(*) AS billed_rows,
         sum(request_units_e6) / 1e6 AS request_units,
         count(*) FILTER (WHERE kind_class = 'included') AS included_rows,
         count(*) FILTER (WHERE kind_class = 'usage-based') AS usage_based_rows,
         count(*) FILTER (WHERE kind_class IN ('other', 'unknown')) AS other_rows,
         sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens)::HUGEINT AS total_tokens,
         sum(cost_e10)::HUGEINT AS cost_e10,
         sum(recorded_cost_e10) FILTER (WHERE kind_class = 'usage-based')::HUGEINT AS charged_cost_e10,
         count(cost_e10) AS priced_rows
  FROM b
  WHERE d BETWEEN $since AND $until
  GROUP BY d
),
chats AS (
  SELECT turns,
         CAST(timezone($tz, make_timestamptz(coalesce(first_ts_ms, last_ts_ms) * 1000)) AS DATE) AS first_day,
         CAST(timezone($tz, make_timestamptz(coalesce(last_ts_ms, first_ts_ms) * 1000)) AS DATE) AS last_day
  FROM context_rows
  WHERE harness = 'cursor-agent' AND coalesce(last_ts_ms, first_ts_ms) IS NOT NULL
),
days AS (
  SELECT CAST(x AS DATE) AS d
  FROM range(CAST($since AS TIMESTAMP), CAST($until AS TIMESTAMP) + INTERVAL 1 DAY, INTERVAL 1 DAY) t(x)
),
local AS (
  SELECT days.d,
         count(*) AS local_chats,
         coalesce(sum(c.turns) FILTER (WHERE c.last_day = days.d), 0)::HUGEINT AS local_turns
  FROM days JOIN chats c ON days.d BETWEEN c.first_day AND c.last_day
  GROUP BY days.d
)
SELECT strftime(days.d, '%Y-%m-%d') AS day,
       coalesce(billed_rows, 0) AS billed_rows,
       request_units,
       coalesce(included_rows, 0) AS included_rows,
       coalesce(usage_based_rows, 0) AS usage_based_rows,
       coalesce(other_rows, 0) AS other_rows,
       coalesce(total_tokens, 0)::HUGEINT AS total_tokens,
       cost_e10,
       charged_cost_e10,
       coalesce(priced_rows, 0) AS priced_rows,
       coalesce(local_chats, 0) AS local_chats,
       coalesce(local_turns, 0)::HUGEINT AS local_turns,
       EXISTS (SELECT 1 FROM spans s WHERE days.d BETWEEN s.first_day AND s.last_day) AS in_import,
       CASE
         WHEN billed_rows IS NOT NULL AND local_chats IS NOT NULL THEN 'billed'
         WHEN billed_rows IS NOT NULL THEN 'billed, no local chats'
         WHEN EXISTS (SELECT 1 FROM spans s WHERE days.d BETWEEN s.first_day AND s.last_day) THEN 'local, none billed'
         ELSE 'local, not imported'
       END AS status
FROM days
LEFT JOIN billed ON billed.d = days.d
LEFT JOIN local ON local.d = days.d
WHERE billed_rows IS NOT NULL OR local_chats IS NOT NULL
ORDER BY days.d
