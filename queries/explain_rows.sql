-- report: explain_rows
-- include: metrics              the report's own aggregates (queries/fragments/metrics.sql)
-- What the store holds of the sources `tx-usage explain` was asked about
-- (each a target: a source, or that source's rows of one session): every row
-- the ingest wrote for it (one per usage event, billed or not), in line order,
-- with the row the store bills for the same response (per harness and
-- dedupe key: the marked row of billed_events, store/billed.ts), and, for a
-- row that is billed and whose local day is in the window, what it adds to a
-- report of that window: the report's aggregates over that one row, under
-- the report's cost rule (queries/summary.sql). Summed over the rows
-- (report/summary-rows.ts sumTemplateRows), they are what the report sums.
-- A row that adds nothing has NULL aggregates. One query for every target:
-- the billed rows are looked up once, not once per file.
-- param: sources VARCHAR[]       each target's source (sources.source_key)
-- param: sessions VARCHAR[]      each target's session, in the same order ('' = every row of its source)
-- param: since DATE              first local calendar day of the window
-- param: until DATE              last local calendar day of the window
-- param: tz VARCHAR              IANA zone the window's days are cut in
-- param: cost_mode VARCHAR       auto | computed | recorded
-- column: target_source VARCHAR  the target the row is listed under: its source
-- column: target_session VARCHAR and session ('' = the whole source)
-- column: row_id BIGINT          the row (usage_rows.rowid), to tell rows of one key and line apart
-- column: harness VARCHAR
-- column: session_id VARCHAR
-- column: model VARCHAR
-- column: ts_ms BIGINT
-- column: dedupe_key VARCHAR
-- column: source_line INTEGER    NULL for database rows
-- column: billed BOOLEAN         this row is the one billed for its response
-- column: in_window BOOLEAN      its local day is in the window
-- column: local_day VARCHAR      that day (YYYY-MM-DD in $tz)
-- column: row_total_tokens BIGINT  the tokens this row carries
-- column: billed_source_key VARCHAR  the source of the billed row of its response
-- column: billed_file VARCHAR    its file
-- column: billed_line INTEGER    its line
-- column: billed_session VARCHAR its session
-- column: <metrics>              what it adds (fragments/metrics.sql), NULL when nothing
WITH targets AS (
  -- Unnested side by side: the lists are zipped.
  SELECT DISTINCT unnest($sources) AS target_source, unnest($sessions) AS target_session
),
mine AS (
  SELECT t.target_source, t.target_session, r.rowid AS row_id, a.harness, a.session_id, a.model, r.ts_ms, r.dedupe_key, r.source_line, r.billed,
         r.requests, r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.output_tokens, r.reasoning_tokens,
         r.computed_cost_e10, r.recorded_cost_e10
  FROM targets t
  JOIN event_attrs a ON a.source_key = t.target_source AND (t.target_session = '' OR a.session_id = t.target_session)
  JOIN usage_rows r USING (attr_id)
),
won AS (
  SELECT b.harness, b.dedupe_key, b.source_key, b.source_file, b.source_line, b.session_id
  FROM billed_events b SEMI JOIN mine m ON b.harness = m.harness AND b.dedupe_key = m.dedupe_key
),
ev AS (
  SELECT *,
         CAST(timezone($tz, make_timestamptz(ts_ms * 1000)) AS DATE) AS day,
         CASE $cost_mode
           WHEN 'computed' THEN computed_cost_e10
           WHEN 'recorded' THEN recorded_cost_e10
           ELSE coalesce(recorded_cost_e10, computed_cost_e10)
         END AS cost_e10,
         ($cost_mode = 'recorded' OR ($cost_mode = 'auto' AND recorded_cost_e10 IS NOT NULL)) AS uses_recorded
  FROM mine
),
added AS (
  SELECT target_source, target_session, row_id,
         {{metrics}}
  FROM ev
  WHERE billed AND day BETWEEN $since AND $until
  GROUP BY target_source, target_session, row_id
)
SELECT ev.target_source, ev.target_session, ev.row_id, ev.harness, ev.session_id, ev.model, ev.ts_ms, ev.dedupe_key, ev.source_line, ev.billed,
       ev.day BETWEEN $since AND $until AS in_window, CAST(ev.day AS VARCHAR) AS local_day,
       ev.input_tokens + ev.cache_read_tokens + ev.cache_write_tokens + ev.output_tokens AS row_total_tokens,
       w.source_key AS billed_source_key, w.source_file AS billed_file, w.source_line AS billed_line, w.session_id AS billed_session,
       added.* EXCLUDE (target_source, target_session, row_id)
FROM ev
LEFT JOIN won w ON w.harness = ev.harness AND w.dedupe_key = ev.dedupe_key
LEFT JOIN added ON added.target_source = ev.target_source AND added.target_session = ev.target_session AND added.row_id = ev.row_id
ORDER BY ev.target_source, ev.target_session, ev.source_line NULLS LAST, ev.row_id
