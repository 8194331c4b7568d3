// The store's schema, as versioned migrations. The store holds only token
// counts, costs, models, projects, session ids, timestamps and source paths.
// Costs are BIGINT in units of 1e-10 USD so sums are exact (no float drift).

export const COST_SCALE = 10_000_000_000; // 1e10 units per USD

/**
 * Migration N brings a store from version N-1 to N. Append only; never edit
 * a shipped one. From v4 on each runs on stores that hold data (migrate.ts
 * applies the missing ones in one transaction): CREATE TABLE, ALTER TABLE
 * ... ADD COLUMN, CREATE OR REPLACE VIEW, INSERT ... SELECT — never a DROP of
 * rows that cannot be read again.
 */
export const MIGRATIONS: readonly string[] = [
  // v1
  `
  CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR);
  CREATE TABLE usage_events (
    source_key VARCHAR NOT NULL,
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    project VARCHAR,
    model VARCHAR,
    provider VARCHAR,
    ts_ms BIGINT NOT NULL,
    dedupe_key VARCHAR NOT NULL,
    dedupe_rank INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    input_tokens BIGINT NOT NULL,
    cache_read_tokens BIGINT NOT NULL,
    cache_write_tokens BIGINT NOT NULL,
    cache_write_5m_tokens BIGINT,
    cache_write_1h_tokens BIGINT,
    output_tokens BIGINT NOT NULL,
    reasoning_tokens BIGINT NOT NULL,
    recorded_cost_e10 BIGINT,
    computed_cost_e10 BIGINT,
    source_file VARCHAR NOT NULL,
    source_line INTEGER
  );
  CREATE TABLE session_estimates (
    source_key VARCHAR NOT NULL,
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    recorded_cost_e10 BIGINT NOT NULL,
    ts_ms BIGINT,
    seq BIGINT NOT NULL
  );
  CREATE TABLE context_rows (
    source_key VARCHAR NOT NULL,
    harness VARCHAR NOT NULL,
    session VARCHAR NOT NULL,
    project VARCHAR,
    model VARCHAR,
    turns BIGINT NOT NULL,
    latest_used_tokens BIGINT,
    max_tokens BIGINT,
    peak_used_tokens BIGINT,
    first_ts_ms BIGINT,
    last_ts_ms BIGINT
  );
  CREATE TABLE sources (
    source_key VARCHAR PRIMARY KEY,
    harness VARCHAR NOT NULL,
    path VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    fingerprint VARCHAR NOT NULL,
    size BIGINT NOT NULL,
    ino VARCHAR,
    resume_offset BIGINT,
    resume_lines BIGINT,
    resume_state VARCHAR,
    tail_hash VARCHAR,
    ingested_at_ms BIGINT NOT NULL
  );
  CREATE TABLE source_issues (
    source_key VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    count BIGINT NOT NULL,
    first_location VARCHAR
  );
  -- One row per billed response: duplicates of a dedupe key (split lines,
  -- fork copies, moved files) collapse to the largest usage, then the
  -- lowest rank (originals before copies), then a stable source order.
  CREATE VIEW billed_events AS
    SELECT * FROM usage_events
    QUALIFY row_number() OVER (
      PARTITION BY harness, dedupe_key
      ORDER BY input_tokens + cache_read_tokens + cache_write_tokens + output_tokens DESC,
               dedupe_rank, source_file, source_line
    ) = 1;
  -- Last estimate per session wins.
  CREATE VIEW session_estimate_latest AS
    SELECT harness, session_id, recorded_cost_e10, ts_ms FROM session_estimates
    QUALIFY row_number() OVER (PARTITION BY harness, session_id ORDER BY ts_ms DESC NULLS LAST, seq DESC) = 1;
  `,
  // v2: the same rows as v1's billed_events, cheaper. Almost every dedupe key
  // has one row; the window (a sort by partition) now runs only over the keys
  // that have several, the rest pass through an anti join. Measured on the
  // benchmark store: the first report query after opening went from about 45
  // to about 22 ms, and every report query reads this view.
  `
  CREATE OR REPLACE VIEW billed_events AS
    WITH repeated AS (
      SELECT harness, dedupe_key FROM usage_events GROUP BY ALL HAVING count(*) > 1
    )
    SELECT e.* FROM usage_events e ANTI JOIN repeated r ON e.harness = r.harness AND e.dedupe_key = r.dedupe_key
    UNION ALL
    SELECT * FROM (
      SELECT e.* FROM usage_events e SEMI JOIN repeated r ON e.harness = r.harness AND e.dedupe_key = r.dedupe_key
    )
    QUALIFY row_number() OVER (
      PARTITION BY harness, dedupe_key
      ORDER BY input_tokens + cache_read_tokens + cache_write_tokens + output_tokens DESC,
               dedupe_rank, source_file, source_line
    ) = 1;
  `,
  // v3: usage_events becomes a view over two tables. The six strings that
  // repeat for every response of a source (its key and file, harness,
  // session, project, model, provider) are kept once per distinct
  // combination in event_attrs; usage_rows holds the per-response numbers,
  // the dedupe key and the combination's id. Writing a response took 21
  // appender calls, 8 of them strings; it is now one row of a data chunk
  // with one string (store/usage-rows.ts). Every query reads usage_events
  // (and billed_events) as before, columns in the same order. (A store of
  // an older schema is rebuilt from the sources, see store.ts: no rows move.)
  `
  CREATE TABLE event_attrs (
    attr_id INTEGER NOT NULL,
    source_key VARCHAR NOT NULL,
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    project VARCHAR,
    model VARCHAR,
    provider VARCHAR,
    source_file VARCHAR NOT NULL
  );
  CREATE TABLE usage_rows (
    attr_id INTEGER NOT NULL,
    ts_ms BIGINT NOT NULL,
    dedupe_key VARCHAR NOT NULL,
    dedupe_rank INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    input_tokens BIGINT NOT NULL,
    cache_read_tokens BIGINT NOT NULL,
    cache_write_tokens BIGINT NOT NULL,
    cache_write_5m_tokens BIGINT,
    cache_write_1h_tokens BIGINT,
    output_tokens BIGINT NOT NULL,
    reasoning_tokens BIGINT NOT NULL,
    recorded_cost_e10 BIGINT,
    computed_cost_e10 BIGINT,
    source_line INTEGER
  );
  DROP VIEW billed_events;
  DROP TABLE usage_events;
  CREATE VIEW usage_events AS
    SELECT a.source_key, a.harness, a.session_id, a.project, a.model, a.provider,
           r.ts_ms, r.dedupe_key, r.dedupe_rank, r.requests,
           r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.cache_write_5m_tokens, r.cache_write_1h_tokens,
           r.output_tokens, r.reasoning_tokens, r.recorded_cost_e10, r.computed_cost_e10,
           a.source_file, r.source_line
    FROM usage_rows r JOIN event_attrs a USING (attr_id);
  -- v2's rule; the keys that repeat are found in usage_rows alone (by key,
  -- whatever the harness: a superset of the repeated (harness, key) pairs,
  -- whose rows the window then sorts out exactly), without the view's join:
  -- ~12 -> ~6 ms for the benchmark's cold 30-day store.
  CREATE VIEW billed_events AS
    WITH repeated AS (
      SELECT dedupe_key FROM usage_rows GROUP BY dedupe_key HAVING count(*) > 1
    )
    SELECT e.* FROM usage_events e ANTI JOIN repeated r ON e.dedupe_key = r.dedupe_key
    UNION ALL
    SELECT * FROM (
      SELECT e.* FROM usage_events e SEMI JOIN repeated r ON e.dedupe_key = r.dedupe_key
    )
    QUALIFY row_number() OVER (
      PARTITION BY harness, dedupe_key
      ORDER BY input_tokens + cache_read_tokens + cache_write_tokens + output_tokens DESC,
               dedupe_rank, source_file, source_line
    ) = 1;
  `,
  // v4: the store's marker. From here on a store holds history that cannot
  // be rebuilt (rows of transcripts the harness has deleted), so a store is
  // migrated in place, never dropped (migrate.ts), and tx-usage opens for
  // writing only a file that carries this row (recognise.ts).
  `
  INSERT OR REPLACE INTO meta VALUES ('app', 'tx-usage');
  `,
  // v5: history outlives the transcripts. A source whose file is gone keeps
  // its rows and bookkeeping, marked with the time it was first found
  // missing; its rows are replaced only when the same source reappears
  // changed (ingest.ts). NULL: the source is on disk.
  `
  ALTER TABLE sources ADD COLUMN retained_since_ms BIGINT;
  `,
  // v6: \`usage\`, the view for people (\`tx-usage sql\`, docs/sql.md): one row
  // per billed response, its time as TIMESTAMPTZ, costs as exact DECIMAL
  // dollars, the dimensions by name. Reports keep reading billed_events.
  `
  CREATE OR REPLACE VIEW usage AS
    SELECT make_timestamptz(ts_ms * 1000) AS ts,
           harness, project, model, provider, session_id,
           requests, input_tokens, cache_read_tokens, cache_write_tokens,
           cache_write_5m_tokens, cache_write_1h_tokens, output_tokens, reasoning_tokens,
           input_tokens + cache_read_tokens + cache_write_tokens + output_tokens AS total_tokens,
           CAST(CAST(coalesce(recorded_cost_e10, computed_cost_e10) AS DECIMAL(38,0)) * 0.0000000001 AS DECIMAL(38,10)) AS cost_usd,
           CASE WHEN recorded_cost_e10 IS NOT NULL THEN 'recorded' WHEN computed_cost_e10 IS NOT NULL THEN 'computed' ELSE 'none' END AS cost_source,
           CAST(CAST(computed_cost_e10 AS DECIMAL(38,0)) * 0.0000000001 AS DECIMAL(38,10)) AS computed_cost_usd,
           CAST(CAST(recorded_cost_e10 AS DECIMAL(38,0)) * 0.0000000001 AS DECIMAL(38,10)) AS recorded_cost_usd,
           dedupe_key AS response_key
    FROM billed_events;
  `,
  // v7: deduplicated at write time. usage_rows.billed marks the
  // one row per billed response — per (harness, dedupe key), the rule's
  // winner (the same rule as v1's view) — and each write transaction keeps
  // the marks exact for the keys it touched (store/billed.ts, which also
  // holds the audit query). billed_events, with the same columns as before,
  // is the marked rows joined with their strings: report queries are plain
  // aggregates instead of a deduplicating window per query. Marked here for
  // the rows the store holds.
  `
  ALTER TABLE usage_rows ADD COLUMN billed BOOLEAN;
  UPDATE usage_rows SET billed = rowid IN (
    SELECT rid FROM (SELECT r.rowid AS rid, r.*, a.harness, a.source_file FROM usage_rows r JOIN event_attrs a USING (attr_id))
    QUALIFY row_number() OVER (
      PARTITION BY harness, dedupe_key
      ORDER BY input_tokens + cache_read_tokens + cache_write_tokens + output_tokens DESC,
               dedupe_rank, source_file, source_line
    ) = 1
  );
  CREATE OR REPLACE VIEW billed_events AS
    SELECT a.source_key, a.harness, a.session_id, a.project, a.model, a.provider,
           r.ts_ms, r.dedupe_key, r.dedupe_rank, r.requests,
           r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.cache_write_5m_tokens, r.cache_write_1h_tokens,
           r.output_tokens, r.reasoning_tokens, r.recorded_cost_e10, r.computed_cost_e10,
           a.source_file, r.source_line
    FROM usage_rows r JOIN event_attrs a USING (attr_id)
    WHERE r.billed;
  `,
  // v8: billing details some sources state per response (Cursor's usage CSV,
  // imported with `tx-usage import cursor-usage`): the row's Kind (Included,
  // On-Demand, ...) with the strings of its combination, and its charge in
  // Cursor's request units (the Requests column, fractional) in 1e-6 units.
  // NULL for every other source. Both views are re-made to carry them last
  // (billed_events keeps v7's rule: the marked rows).
  `
  ALTER TABLE event_attrs ADD COLUMN billing_kind VARCHAR;
  ALTER TABLE usage_rows ADD COLUMN request_units_e6 BIGINT;
  CREATE OR REPLACE VIEW usage_events AS
    SELECT a.source_key, a.harness, a.session_id, a.project, a.model, a.provider,
           r.ts_ms, r.dedupe_key, r.dedupe_rank, r.requests,
           r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.cache_write_5m_tokens, r.cache_write_1h_tokens,
           r.output_tokens, r.reasoning_tokens, r.recorded_cost_e10, r.computed_cost_e10,
           a.source_file, r.source_line, a.billing_kind, r.request_units_e6
    FROM usage_rows r JOIN event_attrs a USING (attr_id);
  CREATE OR REPLACE VIEW billed_events AS
    SELECT a.source_key, a.harness, a.session_id, a.project, a.model, a.provider,
           r.ts_ms, r.dedupe_key, r.dedupe_rank, r.requests,
           r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.cache_write_5m_tokens, r.cache_write_1h_tokens,
           r.output_tokens, r.reasoning_tokens, r.recorded_cost_e10, r.computed_cost_e10,
           a.source_file, r.source_line, a.billing_kind, r.request_units_e6
    FROM usage_rows r JOIN event_attrs a USING (attr_id)
    WHERE r.billed;
  `,
  // v9: plan rate-limit snapshots as harnesses record them (Codex
  // token_count.rate_limits, src/harnesses/codex/rate-limits.ts): figures
  // only, one row per run of identical snapshots in a source, seen from
  // first_seen_ms to last_seen_ms. Read by `tx-usage limits` and `watch`.
  `
  CREATE TABLE IF NOT EXISTS rate_limit_snapshots (
    source_key VARCHAR NOT NULL,
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    first_seen_ms BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL,
    limit_id VARCHAR,
    plan_type VARCHAR,
    primary_used_percent DOUBLE,
    primary_window_minutes INTEGER,
    primary_resets_at_ms BIGINT,
    secondary_used_percent DOUBLE,
    secondary_window_minutes INTEGER,
    secondary_resets_at_ms BIGINT,
    credits_has_credits BOOLEAN,
    credits_unlimited BOOLEAN,
    credits_balance VARCHAR,
    reached_type VARCHAR,
    source_file VARCHAR NOT NULL,
    source_line INTEGER
  );
  `,
  // v10: units of work and session facts. A unit is a prompt typed
  // by a person, an assistant turn that ended, the tool calls of a response,
  // or a prompt a parent agent wrote for a subagent: counts and timestamps
  // only, never text. Kept like responses: the repeated strings (source,
  // harness, session) once per combination in unit_attrs, one row per
  // unit (or group of units copied together, n of them) with the 64-bit hash
  // of its dedupe key and its kind (index in WORK_UNIT_KINDS) in unit_rows
  // (numbers only, written as data chunks,
  // store/unit-rows.ts; core/unit-columns.ts). work_units
  // keeps one row per (harness, kind, dedupe_key): the lowest rank (originals
  // before fork copies), then the most units, then a stable order.
  // session_fact_rows: a session's title (never prompt text) and parent
  // session, per source; session_facts picks, per session, the title of the
  // lowest title_rank, latest seq ('' = cleared) and any parent.
  `
  CREATE TABLE unit_attrs (
    unit_attr_id INTEGER NOT NULL,
    source_key VARCHAR NOT NULL,
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL
  );
  CREATE TABLE unit_rows (
    unit_attr_id INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    dedupe_key BIGINT NOT NULL,
    dedupe_rank INTEGER NOT NULL,
    ts_ms BIGINT NOT NULL,
    n INTEGER NOT NULL
  );
  CREATE TABLE session_fact_rows (
    source_key VARCHAR NOT NULL,
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    title VARCHAR,
    title_rank INTEGER NOT NULL,
    parent_session_id VARCHAR,
    seq BIGINT NOT NULL
  );
  CREATE VIEW unit_events AS
    SELECT a.source_key, a.harness, a.session_id,
           ['prompt', 'turn', 'tool_call', 'subagent_task'][r.kind + 1] AS kind,
           r.dedupe_key, r.dedupe_rank, r.ts_ms, r.n
    FROM unit_rows r JOIN unit_attrs a USING (unit_attr_id);
  -- As billed_events: only the keys that repeat go through the window.
  CREATE VIEW work_units AS
    WITH repeated AS (
      SELECT dedupe_key FROM unit_rows GROUP BY dedupe_key HAVING count(*) > 1
    )
    SELECT harness, session_id, kind, dedupe_key, ts_ms, n
    FROM unit_events u ANTI JOIN repeated r ON u.dedupe_key = r.dedupe_key
    UNION ALL
    SELECT harness, session_id, kind, dedupe_key, ts_ms, n FROM (
      SELECT u.* FROM unit_events u SEMI JOIN repeated r ON u.dedupe_key = r.dedupe_key
    )
    QUALIFY row_number() OVER (PARTITION BY harness, kind, dedupe_key ORDER BY dedupe_rank, n DESC, source_key, ts_ms) = 1;
  CREATE VIEW session_facts AS
    SELECT harness, session_id,
           nullif(first(title ORDER BY title_rank, seq DESC) FILTER (WHERE title IS NOT NULL), '') AS title,
           first(parent_session_id ORDER BY seq DESC) FILTER (WHERE parent_session_id IS NOT NULL) AS parent_session_id
    FROM session_fact_rows
    GROUP BY harness, session_id;
  `,
  // v11: what a response is billed at beyond its tokens, kept so
  // that a price change re-prices every row exactly (cli/pricing.ts
  // repriceStore reads them):
  // - event_attrs.speed: the speed it was served at where not standard
  //   (Claude Code \`usage.speed: "fast"\`: the model's fast-mode rates);
  // - usage_rows.web_search_requests: server-side web searches, a fee each;
  // - usage_rows.iteration: for a response billed per sampling iteration (a
  //   Claude Code advisor turn), the iteration a row holds: its long-context
  //   tier is decided on its own input; NULL for a row holding a whole response.
  // The three views carry them last.
  // Claude Code transcripts still on disk are read again by the next ingest
  // (their rows replaced: fast mode, advisor iterations and web searches were
  // not kept before); a retained transcript's rows stay as they were.
  // OpenCode's recorded cost of 0 for a response with tokens is "no recorded
  // cost" from now on (the computed one applies; src/harnesses/opencode).
  `
  ALTER TABLE event_attrs ADD COLUMN speed VARCHAR;
  ALTER TABLE usage_rows ADD COLUMN web_search_requests INTEGER;
  ALTER TABLE usage_rows ADD COLUMN iteration INTEGER;
  CREATE OR REPLACE VIEW usage_events AS
    SELECT a.source_key, a.harness, a.session_id, a.project, a.model, a.provider,
           r.ts_ms, r.dedupe_key, r.dedupe_rank, r.requests,
           r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.cache_write_5m_tokens, r.cache_write_1h_tokens,
           r.output_tokens, r.reasoning_tokens, r.recorded_cost_e10, r.computed_cost_e10,
           a.source_file, r.source_line, a.billing_kind, r.request_units_e6,
           a.speed, r.web_search_requests, r.iteration
    FROM usage_rows r JOIN event_attrs a USING (attr_id);
  CREATE OR REPLACE VIEW billed_events AS
    SELECT a.source_key, a.harness, a.session_id, a.project, a.model, a.provider,
           r.ts_ms, r.dedupe_key, r.dedupe_rank, r.requests,
           r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.cache_write_5m_tokens, r.cache_write_1h_tokens,
           r.output_tokens, r.reasoning_tokens, r.recorded_cost_e10, r.computed_cost_e10,
           a.source_file, r.source_line, a.billing_kind, r.request_units_e6,
           a.speed, r.web_search_requests, r.iteration
    FROM usage_rows r JOIN event_attrs a USING (attr_id)
    WHERE r.billed;
  CREATE OR REPLACE VIEW usage AS
    SELECT make_timestamptz(ts_ms * 1000) AS ts,
           harness, project, model, provider, session_id,
           requests, input_tokens, cache_read_tokens, cache_write_tokens,
           cache_write_5m_tokens, cache_write_1h_tokens, output_tokens, reasoning_tokens,
           input_tokens + cache_read_tokens + cache_write_tokens + output_tokens AS total_tokens,
           CAST(CAST(coalesce(recorded_cost_e10, computed_cost_e10) AS DECIMAL(38,0)) * 0.0000000001 AS DECIMAL(38,10)) AS cost_usd,
           CASE WHEN recorded_cost_e10 IS NOT NULL THEN 'recorded' WHEN computed_cost_e10 IS NOT NULL THEN 'computed' ELSE 'none' END AS cost_source,
           CAST(CAST(computed_cost_e10 AS DECIMAL(38,0)) * 0.0000000001 AS DECIMAL(38,10)) AS computed_cost_usd,
           CAST(CAST(recorded_cost_e10 AS DECIMAL(38,0)) * 0.0000000001 AS DECIMAL(38,10)) AS recorded_cost_usd,
           dedupe_key AS response_key,
           speed, web_search_requests, iteration
    FROM billed_events;
  UPDATE usage_rows SET recorded_cost_e10 = NULL
    WHERE recorded_cost_e10 = 0 AND input_tokens + cache_read_tokens + cache_write_tokens + output_tokens > 0
      AND attr_id IN (SELECT attr_id FROM event_attrs WHERE harness = 'opencode');
  UPDATE sources SET fingerprint = 'read again: schema v11', resume_offset = NULL, resume_lines = NULL, resume_state = NULL, tail_hash = NULL
    WHERE harness = 'claude-code' AND retained_since_ms IS NULL;
  DELETE FROM meta WHERE key = 'sources_digest';
  `,
  // v12: units of work deduplicated at write time and session facts kept by
  // the ingest, as v7 did for responses. unit_rows.kept marks the
  // one row per (harness, kind, dedupe_key) that v10's work_units picked at
  // every query — the lowest rank, then the most units, then a stable order —
  // kept exact by each write transaction (store/billed.ts); work_units is
  // the kept rows joined with their strings. session_stats holds per session
  // the latest project and the main model (most tokens, then the model's
  // name) of its billed responses, the rule v10's session_attrs macro
  // applied at every query, made again by each write transaction for the
  // sessions it touched (store/session-stats.ts). Both filled here for the
  // rows the store holds. The marks and facts are settled once per ingest,
  // from what each write transaction records as pending (the smallest
  // combination id appended under, in meta; the keys and sessions of deleted
  // rows, in the *_pending tables; store/billed.ts).
  `
  ALTER TABLE unit_rows ADD COLUMN kept BOOLEAN;
  UPDATE unit_rows SET kept = rowid IN (
    SELECT rid FROM (SELECT r.rowid AS rid, r.*, a.harness, a.source_key FROM unit_rows r JOIN unit_attrs a USING (unit_attr_id))
    QUALIFY row_number() OVER (PARTITION BY harness, kind, dedupe_key ORDER BY dedupe_rank, n DESC, source_key, ts_ms) = 1
  );
  CREATE OR REPLACE VIEW work_units AS
    SELECT a.harness, a.session_id, ['prompt', 'turn', 'tool_call', 'subagent_task'][r.kind + 1] AS kind, r.dedupe_key, r.ts_ms, r.n
    FROM unit_rows r JOIN unit_attrs a USING (unit_attr_id)
    WHERE r.kept;
  CREATE TABLE session_stats (
    harness VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    project VARCHAR,
    model VARCHAR
  );
  CREATE TABLE billed_pending (dedupe_key VARCHAR NOT NULL);
  CREATE TABLE kept_pending (dedupe_key BIGINT NOT NULL);
  CREATE TABLE sessions_pending (harness VARCHAR NOT NULL, session_id VARCHAR NOT NULL);
  INSERT INTO session_stats
    WITH e AS (
      SELECT a.harness, a.session_id, a.model, a.project, r.ts_ms,
             r.input_tokens + r.cache_read_tokens + r.cache_write_tokens + r.output_tokens AS tokens
      FROM usage_rows r JOIN event_attrs a USING (attr_id) WHERE r.billed
    ),
    m AS (SELECT harness, session_id, model, sum(tokens) AS tokens FROM e GROUP BY ALL),
    em AS (SELECT harness, session_id, first(model ORDER BY tokens DESC, model NULLS LAST) AS model FROM m GROUP BY ALL),
    ep AS (SELECT harness, session_id, first(project ORDER BY ts_ms DESC) AS project FROM e GROUP BY ALL)
    SELECT ep.harness, ep.session_id, ep.project, em.model FROM ep JOIN em USING (harness, session_id);
  `,
  // v13: the Codex lineage rule (src/harnesses/codex/README.md).
  // A fork's or sub-agent's copy of its parent's responses is keyed by the
  // parent's thread, and a sub-agent's own spend belongs to its root session.
  // Rows read by earlier builds keep the old keys (re-stamped copies counted
  // again under the child's thread), so every Codex file still on disk is
  // read again, whole, by the next ingest (its rows replaced); the rows of
  // files that are gone are kept as they are.
  `
  UPDATE sources SET fingerprint = 'read again: codex lineage' WHERE harness = 'codex' AND retained_since_ms IS NULL;
  DELETE FROM meta WHERE key = 'sources_digest'; -- (store/sources-digest.ts: the sources changed)
  `,
  // v14: the second round of field traps (issue 42) changed what is stored
  // for the files of eight harnesses: OpenCode and Kilo 1.x responses are
  // keyed by what a Session.fork copy keeps, and 1.x session totals leave a
  // residual; Cline, Roo and Kilo no longer count a failed stream without
  // usage; pi and OpenClaw key entries without an id by time and usage;
  // Gemini CLI counts messages first seen in a $set checkpoint and lines
  // written with JSON whitespace; Claude Code keeps usage.inference_geo as
  // the billing kind, counts older lines' 5m + 1h cache writes, and no
  // longer takes a freely named folder for the project. Every such file
  // still on disk is read again, whole, by the next ingest (its rows
  // replaced; a JSONL file from its first byte, a task document with the
  // memory of what left it); retained rows stay as they were. Prices are
  // applied again by the pricing engine's own version (pricing-5).
  `
  UPDATE sources SET fingerprint = 'read again: schema v14', resume_offset = NULL, resume_lines = NULL, resume_state = NULL, tail_hash = NULL
    WHERE harness IN ('claude-code', 'gemini-cli', 'pi', 'openclaw') AND retained_since_ms IS NULL;
  UPDATE sources SET fingerprint = 'read again: schema v14'
    WHERE harness IN ('opencode', 'kilo-code', 'cline', 'roo-code') AND retained_since_ms IS NULL;
  DELETE FROM meta WHERE key = 'sources_digest';
  `,
  // v15: roll-ups kept by the ingest (issue 41; store/rollups.ts): what
  // every report reads instead of aggregating the billed responses per query.
  // usage_slots sums the billed responses per 15-minute UTC slot (an instant
  // on a boundary is a slot of its own) × harness × session × project ×
  // model × provider under each cost mode; session_slots holds each
  // session's activity and units of work per slot; prompt_stats one row per
  // prompt typed by a person with what answered it; session_links each
  // sub-agent session's root as prompt_stats was made with. Made by the next
  // ingest's settle: every session is noted pending here, and the sources
  // digest dropped so that the ingest gets there. CREATE OR REPLACE: a store
  // set back to an earlier version (as tests of the earlier migrations do)
  // has its roll-ups made again whole, which is what this migration means.
  `
  CREATE OR REPLACE TABLE usage_slots (
    slot_ms BIGINT NOT NULL, harness VARCHAR NOT NULL, session_id VARCHAR NOT NULL, project VARCHAR, model VARCHAR, provider VARCHAR,
    events BIGINT NOT NULL, requests HUGEINT NOT NULL, input_tokens HUGEINT NOT NULL, cache_read_tokens HUGEINT NOT NULL,
    cache_write_tokens HUGEINT NOT NULL, cache_write_1h_tokens HUGEINT, output_tokens HUGEINT NOT NULL, reasoning_tokens HUGEINT NOT NULL,
    cost_e10 HUGEINT, computed_cost_e10 HUGEINT, recorded_cost_e10 HUGEINT,
    priced_events BIGINT NOT NULL, computed_events BIGINT NOT NULL, recorded_events BIGINT NOT NULL,
    unpriced_requests HUGEINT NOT NULL, unpriced_tokens HUGEINT NOT NULL, uncomputed_requests HUGEINT NOT NULL,
    uncomputed_tokens HUGEINT NOT NULL, unrecorded_requests HUGEINT NOT NULL, unrecorded_tokens HUGEINT NOT NULL,
    first_ts_ms BIGINT NOT NULL, last_ts_ms BIGINT NOT NULL, first_key VARCHAR NOT NULL
  );
  CREATE OR REPLACE TABLE session_slots (
    slot_ms BIGINT NOT NULL, harness VARCHAR NOT NULL, session_id VARCHAR NOT NULL,
    first_ts_ms BIGINT NOT NULL, last_ts_ms BIGINT NOT NULL, active_ms BIGINT NOT NULL,
    prompts HUGEINT NOT NULL, turns HUGEINT NOT NULL, tool_calls HUGEINT NOT NULL, subagent_tasks HUGEINT NOT NULL
  );
  CREATE OR REPLACE TABLE prompt_stats (
    harness VARCHAR NOT NULL, session_id VARCHAR NOT NULL, root_session_id VARCHAR NOT NULL, prompt_key BIGINT NOT NULL, ts_ms BIGINT NOT NULL,
    model VARCHAR, project VARCHAR, answered BOOLEAN NOT NULL, requests HUGEINT NOT NULL, total_tokens HUGEINT NOT NULL,
    cost_e10 HUGEINT, computed_cost_e10 HUGEINT, recorded_cost_e10 HUGEINT, tool_calls HUGEINT NOT NULL
  );
  CREATE OR REPLACE TABLE session_links (harness VARCHAR NOT NULL, session_id VARCHAR NOT NULL, root_session_id VARCHAR NOT NULL);
  INSERT INTO sessions_pending SELECT harness, session_id FROM event_attrs UNION SELECT harness, session_id FROM unit_attrs;
  DELETE FROM meta WHERE key = 'sources_digest';
  `,
  // v16: the grain of a billed row (core/types.ts GRAINS): what it was made
  // from. event_attrs.grain is NULL for a row of one response (every row
  // written before) and 'session' or 'snapshot' for a row made from a
  // session's running totals (Factory Droid, Goose's per-session totals,
  // Copilot CLI's shutdown summaries). The three views carry it last, as
  // 'response' where NULL. usage_slots keeps it as a key (last; its builder,
  // store/rollups.ts, writes it there), so that reports read the session
  // totals' share from the slots and the live views leave them out. Every
  // row written before this migration is a response's, so the slots it
  // finds are all of grain 'response': the column's default fills them
  // exactly, with no rebuild. (A store set back to an earlier version has
  // its slots made again whole by v15, and this adds the column to them.)
  `
  ALTER TABLE event_attrs ADD COLUMN IF NOT EXISTS grain VARCHAR;
  CREATE OR REPLACE VIEW usage_events AS
    SELECT a.source_key, a.harness, a.session_id, a.project, a.model, a.provider,
           r.ts_ms, r.dedupe_key, r.dedupe_rank, r.requests,
           r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.cache_write_5m_tokens, r.cache_write_1h_tokens,
           r.output_tokens, r.reasoning_tokens, r.recorded_cost_e10, r.computed_cost_e10,
           a.source_file, r.source_line, a.billing_kind, r.request_units_e6,
           a.speed, r.web_search_requests, r.iteration, coalesce(a.grain, 'response') AS grain
    FROM usage_rows r JOIN event_attrs a USING (attr_id);
  CREATE OR REPLACE VIEW billed_events AS
    SELECT a.source_key, a.harness, a.session_id, a.project, a.model, a.provider,
           r.ts_ms, r.dedupe_key, r.dedupe_rank, r.requests,
           r.input_tokens, r.cache_read_tokens, r.cache_write_tokens, r.cache_write_5m_tokens, r.cache_write_1h_tokens,
           r.output_tokens, r.reasoning_tokens, r.recorded_cost_e10, r.computed_cost_e10,
           a.source_file, r.source_line, a.billing_kind, r.request_units_e6,
           a.speed, r.web_search_requests, r.iteration, coalesce(a.grain, 'response') AS grain
    FROM usage_rows r JOIN event_attrs a USING (attr_id)
    WHERE r.billed;
  CREATE OR REPLACE VIEW usage AS
    SELECT make_timestamptz(ts_ms * 1000) AS ts,
           harness, project, model, provider, session_id,
           requests, input_tokens, cache_read_tokens, cache_write_tokens,
           cache_write_5m_tokens, cache_write_1h_tokens, output_tokens, reasoning_tokens,
           input_tokens + cache_read_tokens + cache_write_tokens + output_tokens AS total_tokens,
           CAST(CAST(coalesce(recorded_cost_e10, computed_cost_e10) AS DECIMAL(38,0)) * 0.0000000001 AS DECIMAL(38,10)) AS cost_usd,
           CASE WHEN recorded_cost_e10 IS NOT NULL THEN 'recorded' WHEN computed_cost_e10 IS NOT NULL THEN 'computed' ELSE 'none' END AS cost_source,
           CAST(CAST(computed_cost_e10 AS DECIMAL(38,0)) * 0.0000000001 AS DECIMAL(38,10)) AS computed_cost_usd,
           CAST(CAST(recorded_cost_e10 AS DECIMAL(38,0)) * 0.0000000001 AS DECIMAL(38,10)) AS recorded_cost_usd,
           dedupe_key AS response_key,
           speed, web_search_requests, iteration, grain
    FROM billed_events;
  ALTER TABLE usage_slots ADD COLUMN IF NOT EXISTS grain VARCHAR DEFAULT 'response';
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The oldest schema a store is migrated from. v1-v2 kept responses in a
 * table that v3 replaced without moving rows (such a store was rebuilt from
 * the sources then): one is moved aside and a new store built instead.
 */
export const OLDEST_MIGRATED = 3;
