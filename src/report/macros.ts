// The one definition of "billed events as a report sees them": local time in
// the report's zone, the cost under --cost, and the report's filter
// (in_filter: --harness, --project, --model). A connection-local table
// macro, so every template reads it by name (`FROM report_events($tz,
// $harnesses, $project, $cost_mode, p_models := $models)`) and binds its own
// parameters; `p_models` defaults to [] (any model), so the live views, which
// take no --model, call them without it. Macros expand where they are called, so `billed_events`
// resolves to whatever the connection shows under that name: the store's
// view with a machine label (export/local.ts) or a roll-up's Parquet views.
import type { DuckDBConnection } from '@duckdb/node-api';
import { slotLast, slotOf } from '../store/rollups.js';

// in_filter(harnesses, project, models, harness, project, model): whether a
// row passes the report's filter, the one test of it every template makes
// (--harness: one of the ids; --project: its path contains the text, '' =
// any; --model: one of the exact ids, [] = any). A row's model and project
// are the response's, the prompt's or the session's, as the row is.
export const IN_FILTER = `
CREATE OR REPLACE TEMP MACRO in_filter(p_harnesses, p_project, p_models, x_harness, x_project, x_model) AS
  list_contains(p_harnesses, x_harness)
  AND (p_project = '' OR contains(coalesce(x_project, ''), p_project))
  AND (len(p_models) = 0 OR list_contains(p_models, x_model))`;

const REPORT_EVENTS = `
CREATE OR REPLACE TEMP MACRO report_events(p_tz, p_harnesses, p_project, p_cost_mode, p_models := []::VARCHAR[]) AS TABLE
  SELECT *,
         timezone(p_tz, make_timestamptz(ts_ms * 1000)) AS local_ts,
         CASE p_cost_mode
           WHEN 'computed' THEN computed_cost_e10
           WHEN 'recorded' THEN recorded_cost_e10
           ELSE coalesce(recorded_cost_e10, computed_cost_e10)
         END AS cost_e10,
         (p_cost_mode = 'recorded' OR (p_cost_mode = 'auto' AND recorded_cost_e10 IS NOT NULL)) AS uses_recorded
  FROM billed_events
  WHERE in_filter(p_harnesses, p_project, p_models, harness, project, model)`;

// near_days(ts_ms, first, last): a test on the stored UTC milliseconds alone,
// true for every instant whose local calendar day lies in [first, last] in
// any zone (UTC offsets lie within -12 h .. +14 h; two days of margin each
// side). Written beside each exact local-day test: DuckDB then
// filters rows on the column in its scan, before it joins their strings and
// converts their times, so a query costs what its range holds, not the whole
// history. It never changes an answer: the exact test follows.
const NEAR_DAYS = [
  `CREATE OR REPLACE TEMP MACRO near_days(p_ts_ms, p_first, p_last) AS
     p_ts_ms >= epoch_ms(CAST(p_first AS TIMESTAMP)) - 172800000 AND p_ts_ms < epoch_ms(CAST(p_last AS TIMESTAMP)) + 259200000`,
];

// report_slots(tz, harnesses, project, cost_mode): the roll-up of billed
// responses per 15-minute slot and grain (usage_slots, store/rollups.ts) as
// reports read it: local time of the slot, and cost_e10, priced_events,
// recorded_events and the unpriced share under --cost. Every figure the
// summary's metrics show sums over slots to its sum over the responses; a
// slot never straddles a local day in the zones slots are used for
// (src/report/slots.ts).
const REPORT_SLOTS = `
CREATE OR REPLACE TEMP MACRO report_slots(p_tz, p_harnesses, p_project, p_cost_mode, p_models := []::VARCHAR[]) AS TABLE
  SELECT * REPLACE (
           CASE p_cost_mode WHEN 'computed' THEN computed_cost_e10 WHEN 'recorded' THEN recorded_cost_e10 ELSE cost_e10 END AS cost_e10,
           CASE p_cost_mode WHEN 'computed' THEN computed_events WHEN 'recorded' THEN recorded_events ELSE priced_events END AS priced_events,
           CASE p_cost_mode WHEN 'computed' THEN 0 ELSE recorded_events END AS recorded_events,
           CASE p_cost_mode WHEN 'computed' THEN uncomputed_requests WHEN 'recorded' THEN unrecorded_requests ELSE unpriced_requests END AS unpriced_requests,
           CASE p_cost_mode WHEN 'computed' THEN uncomputed_tokens WHEN 'recorded' THEN unrecorded_tokens ELSE unpriced_tokens END AS unpriced_tokens
         ),
         timezone(p_tz, make_timestamptz(slot_ms * 1000)) AS local_ts
  FROM usage_slots
  WHERE in_filter(p_harnesses, p_project, p_models, harness, project, model)`;

// response_events and response_slots (same parameters): report_events' and
// report_slots' rows of grain 'response' only (core/types.ts GRAINS; a slot
// of usage_slots holds rows of one grain), for what places usage in time
// finer than a session: the live views (5-hour blocks, limits, budgets,
// watch, status line). A session's total is placed at its last activity,
// which says nothing of the block it was spent in; those views say that
// they leave such rows out.
const RESPONSE_MACROS = [
  `CREATE OR REPLACE TEMP MACRO response_events(p_tz, p_harnesses, p_project, p_cost_mode) AS TABLE
     SELECT * FROM report_events(p_tz, p_harnesses, p_project, p_cost_mode) WHERE grain = 'response'`,
  `CREATE OR REPLACE TEMP MACRO response_slots(p_tz, p_harnesses, p_project, p_cost_mode) AS TABLE
     SELECT * FROM report_slots(p_tz, p_harnesses, p_project, p_cost_mode) WHERE grain = 'response'`,
];

// slot_of(ts) and slot_last(slot): an instant's slot and a slot's last
// instant (store/rollups.ts), for templates that cut time at instants
// slots do not end on (the live views' windows).
const SLOT_MACROS = [
  `CREATE OR REPLACE TEMP MACRO slot_of(p_ts) AS ${slotOf('p_ts')}`,
  `CREATE OR REPLACE TEMP MACRO slot_last(p_slot) AS ${slotLast('p_slot')}`,
];

export async function defineReportMacros(conn: DuckDBConnection): Promise<void> {
  await conn.run(IN_FILTER);
  await conn.run(REPORT_EVENTS);
  await conn.run(REPORT_SLOTS);
  for (const m of RESPONSE_MACROS) await conn.run(m);
  for (const m of SLOT_MACROS) await conn.run(m);
  for (const m of NEAR_DAYS) await conn.run(m);
}
