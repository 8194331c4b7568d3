-- fragment: span
-- Billed responses of grain response (session totals left out) in windows
-- of time as the live views add them up: per 15-minute slot
-- (response_slots, src/report/macros.ts) where the slot lies
-- wholly inside a window, and one by one (a response as a slot of its own)
-- in a slot a window's bound cuts (slot_of, slot_last: src/store/rollups.ts).
-- A template that declares `-- include: span` gets these CTEs where it
-- writes {{span}} after WITH (the last one has no comma): `span` has one row
-- per slot or response and window `w` (1-based index into $from_ms and
-- $until_ms, the windows' first and first excluded instants), with
-- report_slots' figures under $cost_mode and `slot_ms` NULL for a response.
-- Reads $harnesses, $project, $cost_mode, $from_ms and $until_ms.
wins AS (
  SELECT unnest($from_ms) AS lo, unnest($until_ms) AS hi, unnest(range(1, len($from_ms) + 1)) AS w
),
edges AS (
  SELECT w, lo AS e_lo, least(hi, slot_last(slot_of(lo)) + 1) AS e_hi FROM wins WHERE lo < hi AND slot_of(lo) < lo
  UNION ALL
  SELECT w, greatest(lo, slot_of(hi - 1)), hi FROM wins
  WHERE lo < hi AND slot_last(slot_of(hi - 1)) >= hi AND NOT (slot_of(lo) < lo AND slot_of(lo) = slot_of(hi - 1))
),
span AS (
  SELECT wins.w, x.harness, x.session_id, x.project, x.model, x.provider, x.first_ts_ms AS ts_ms, x.first_key AS dedupe_key,
         x.slot_ms, x.last_ts_ms, x.events, x.requests, x.input_tokens, x.cache_read_tokens, x.cache_write_tokens, x.output_tokens,
         x.reasoning_tokens, x.cost_e10, x.computed_cost_e10, x.recorded_cost_e10, x.priced_events, x.recorded_events,
         x.unpriced_requests, x.unpriced_tokens, CAST(NULL AS BOOLEAN) AS uses_recorded
  FROM response_slots('UTC', $harnesses, $project, $cost_mode) x JOIN wins ON x.slot_ms >= wins.lo AND slot_last(x.slot_ms) < wins.hi
  UNION ALL
  SELECT edges.w, e.harness, e.session_id, e.project, e.model, e.provider, e.ts_ms, e.dedupe_key,
         CAST(NULL AS BIGINT), e.ts_ms, 1, e.requests, e.input_tokens, e.cache_read_tokens, e.cache_write_tokens, e.output_tokens,
         e.reasoning_tokens, e.cost_e10, e.computed_cost_e10, e.recorded_cost_e10,
         CASE WHEN e.cost_e10 IS NULL THEN 0 ELSE 1 END, CASE WHEN e.uses_recorded AND e.cost_e10 IS NOT NULL THEN 1 ELSE 0 END,
         CASE WHEN e.cost_e10 IS NULL THEN e.requests ELSE 0 END,
         CASE WHEN e.cost_e10 IS NULL THEN e.input_tokens + e.cache_read_tokens + e.cache_write_tokens + e.output_tokens ELSE 0 END,
         e.uses_recorded
  FROM response_events('UTC', $harnesses, $project, $cost_mode) e JOIN edges ON e.ts_ms >= edges.e_lo AND e.ts_ms < edges.e_hi
)
