-- report: explain_sources
-- The sources the store knows, for `tx-usage explain` to find the ones a
-- path or a session id names (src/explain/targets.ts): each with its
-- harness, path and kind, whether its file is gone (retained: its rows are
-- kept, it cannot be read again), and how its responses relate to $session:
-- whether some are of that session, and whether every one is (a file of
-- that session alone, whose skipped records and warnings are the session's
-- too). Read from event_attrs, one row per combination of strings, not per
-- response.
-- param: session VARCHAR         a session id ('' when none was asked for)
-- column: source_key VARCHAR
-- column: harness VARCHAR
-- column: path VARCHAR
-- column: kind VARCHAR
-- column: retained BOOLEAN       its file is gone; its rows are kept
-- column: has_session BOOLEAN    some of its responses are of $session
-- column: only_session BOOLEAN   every one of its responses is of $session
SELECT s.source_key, s.harness, s.path, s.kind,
       s.retained_since_ms IS NOT NULL AS retained,
       coalesce(c.has_session, FALSE) AS has_session,
       coalesce(c.only_session, FALSE) AS only_session
FROM sources s
LEFT JOIN (
  SELECT source_key, bool_or(session_id = $session) AS has_session, bool_and(session_id = $session) AS only_session
  FROM event_attrs
  GROUP BY source_key
) c USING (source_key)
ORDER BY s.harness, s.path
