-- report: explain_sources
-- The sources the store knows, for `tx-usage explain` to find the ones a
-- path or a session id names (src/explain/targets.ts): each with its
-- harness, path and kind, whether its file is gone (retained: its rows are
-- kept, it cannot be read again), which of the session ids asked about its
-- responses are of, and its one session when all of its responses are of
-- one (a file of that session alone: its skipped records and warnings are
-- that session's too). Read from event_attrs (one row per combination of
-- strings, not per response).
-- param: sessions VARCHAR[]      the arguments that may be session ids
-- column: source_key VARCHAR
-- column: harness VARCHAR
-- column: path VARCHAR
-- column: kind VARCHAR
-- column: retained BOOLEAN       its file is gone; its rows are kept
-- column: sessions VARCHAR[]     the asked-about sessions it holds responses of
-- column: one_session VARCHAR    the session of all of its responses, when they have one
SELECT s.source_key, s.harness, s.path, s.kind,
       s.retained_since_ms IS NOT NULL AS retained,
       coalesce(c.sessions, []) AS sessions,
       c.one_session
FROM sources s
LEFT JOIN (
  SELECT source_key,
         list(DISTINCT session_id) FILTER (WHERE list_contains($sessions, session_id)) AS sessions,
         CASE WHEN count(DISTINCT session_id) = 1 THEN min(session_id) END AS one_session
  FROM event_attrs
  GROUP BY source_key
) c USING (source_key)
ORDER BY s.harness, s.path
