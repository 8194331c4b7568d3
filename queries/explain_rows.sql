-- report: explain_rows
-- include: metrics              the report's own aggregates (queries/fragments/metrics.sql)
-- What the store holds of the sources `tx-usage explain` was asked about
-- (each a target: a source, or that source's rows of one session): every row
-- the ingest wrote for it (one per usage event, billed or not), in line order,
-- with the row the store bills for the same response (per harness and
-- dedupe key: the marked row of billed_events, store/billed.ts), and, for a
-- row that is billed and whose local day is in the window, what it adds to a
-- report of that window: the report's aggregates over that one row, read as
-- a report reads it (the report_events macro, src/report/macros.ts: local
-- time and the cost under --cost). Summed over the rows (report/summary-rows.ts
-- sumTemplateRows), they are what the report sums.
-- A row that adds nothing has NULL aggregates. One query for every target:
-- the billed rows are looked up once, not once per file.
-- param: sources VARCHAR[]       each target's source (sources.source_key)
-- param: sessions VARCHAR[]      each target's session, in the same order ('' = every row of its source)
-- param: since DATE              first local calendar day of the window
-- param: until DATE              last local calendar day of the window
-- param: tz VARCHAR              IANA zone the window's days are cut in
-- param: cost_mode VARCHAR       auto | computed | recorded
-- param: harnesses VARCHAR[]     the targets' harnesses
-- column: target_source VARCHAR  the target the row is listed under: its source
-- column: target_session VARCHAR and session ('' = the whole source)
-- column: row_id BIGINT          the row (usage_rows.rowid), to tell rows of one key and line apart
-- column: harness VARCHAR
-- column: session_id VARCHAR
-- column: model VARCHAR
-- column: ts_ms BIGINT
-- column: dedupe_key VARCHAR
-- column: source_line INTEGER    NULL for database rows
-- column: grain VARCHAR          what the row was made from: response, session or snapshot (core/types.ts GRAINS)
-- column: billed BOOLEAN         this row is the one billed for its response
-- column: in_window BOOLEAN      the billed row of its response is on a local day in the window
-- column: local_day VARCHAR      that day (YYYY-MM-DD in $tz)
-- column: row_total_tokens BIGINT  the tokens this row carries
-- column: billed_source_key VARCHAR  the source of the billed row of its response
-- column: billed_file VARCHAR    its file
-- column: billed_line INTEGER    its line
-- column: billed_session VARCHAR its session
-- column: <metrics>              what it adds (fragments/metrics.sql), NULL when nothing
-- column: session_grain_requests HUGEINT of those, rows made from session totals (grain session or snapshot)
-- column: session_grain_tokens   HUGEINT their total tokens
-- column: session_grain_cost_e10 HUGEINT their cost (NULL when none is priced)
WITH targets AS (
  -- Unnested side by side: the lists are zipped.
  SELECT DISTINCT unnest($sources) AS target_source, unnest($sessions) AS target_session
),
mine AS (
  SELECT t.target_source, t.target_session, r.rowid AS row_id, a.harness, a.session_id, a.model, r.ts_ms, r.dedupe_key, r.source_line, r.billed,
         coalesce(a.grain, 'response') AS grain,
         r.input_tokens + r.cache_read_tokens + r.cache_write_tokens + r.output_tokens AS row_total_tokens
  FROM targets t
  JOIN event_attrs a ON a.source_key = t.target_source AND (t.target_session = '' OR a.session_id = t.target_session)
  JOIN usage_rows r USING (attr_id)
),
-- The billed row of each of their responses, as a report reads it.
won AS (
  SELECT e.* FROM report_events($tz, $harnesses, '', $cost_mode) e
  SEMI JOIN mine m ON e.harness = m.harness AND e.dedupe_key = m.dedupe_key
),
added AS (
  SELECT target_source, target_session, row_id,
         {{metrics}},
         -- Of those, what rests on session totals (summary.sql's session_grain_* figures).
         coalesce(sum(requests) FILTER (WHERE grain <> 'response'), 0)::HUGEINT AS session_grain_requests,
         coalesce(sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens) FILTER (WHERE grain <> 'response'), 0)::HUGEINT AS session_grain_tokens,
         sum(cost_e10) FILTER (WHERE grain <> 'response')::HUGEINT AS session_grain_cost_e10
  FROM (
    -- One response in the shape of a roll-up slot (report_slots), which the shared aggregates read.
    SELECT m.target_source, m.target_session, m.row_id, w.*,
           1 AS events,
           (w.cost_e10 IS NOT NULL)::INTEGER AS priced_events,
           (w.uses_recorded AND w.cost_e10 IS NOT NULL)::INTEGER AS recorded_events,
           CASE WHEN w.cost_e10 IS NULL THEN w.requests ELSE 0 END AS unpriced_requests,
           CASE WHEN w.cost_e10 IS NULL THEN w.input_tokens + w.cache_read_tokens + w.cache_write_tokens + w.output_tokens ELSE 0 END AS unpriced_tokens
    FROM mine m JOIN won w ON w.harness = m.harness AND w.dedupe_key = m.dedupe_key
    WHERE m.billed AND CAST(w.local_ts AS DATE) BETWEEN $since AND $until
  )
  GROUP BY target_source, target_session, row_id
)
SELECT m.target_source, m.target_session, m.row_id, m.harness, m.session_id, m.model, m.ts_ms, m.dedupe_key, m.source_line, m.grain, m.billed,
       CAST(w.local_ts AS DATE) BETWEEN $since AND $until AS in_window,
       CAST(CAST(w.local_ts AS DATE) AS VARCHAR) AS local_day,
       m.row_total_tokens,
       w.source_key AS billed_source_key, w.source_file AS billed_file, w.source_line AS billed_line, w.session_id AS billed_session,
       added.* EXCLUDE (target_source, target_session, row_id)
FROM mine m
LEFT JOIN won w ON w.harness = m.harness AND w.dedupe_key = m.dedupe_key
LEFT JOIN added ON added.target_source = m.target_source AND added.target_session = m.target_session AND added.row_id = m.row_id
ORDER BY m.target_source, m.target_session, m.source_line NULLS LAST, m.row_id
