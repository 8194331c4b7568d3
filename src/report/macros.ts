// The one definition of "billed events as a report sees them": local time in
// the report's zone, the cost under --cost, and the harness/project filter.
// A connection-local table macro, so every template reads it by name
// (`FROM report_events($tz, $harnesses, $project, $cost_mode)`) and binds its
// own parameters. Macros expand where they are called, so `billed_events`
// resolves to whatever the connection shows under that name: the store's
// view with a machine label (export/local.ts) or a roll-up's Parquet views.
import type { DuckDBConnection } from '@duckdb/node-api';

const REPORT_EVENTS = `
CREATE OR REPLACE TEMP MACRO report_events(p_tz, p_harnesses, p_project, p_cost_mode) AS TABLE
  SELECT *,
         timezone(p_tz, make_timestamptz(ts_ms * 1000)) AS local_ts,
         CASE p_cost_mode
           WHEN 'computed' THEN computed_cost_e10
           WHEN 'recorded' THEN recorded_cost_e10
           ELSE coalesce(recorded_cost_e10, computed_cost_e10)
         END AS cost_e10,
         (p_cost_mode = 'recorded' OR (p_cost_mode = 'auto' AND recorded_cost_e10 IS NOT NULL)) AS uses_recorded
  FROM billed_events
  WHERE list_contains(p_harnesses, harness)
    AND (p_project = '' OR contains(coalesce(project, ''), p_project))`;

// near_days(ts_ms, first, last): a test on the stored UTC milliseconds alone,
// true for every instant whose local calendar day lies in [first, last] in
// any zone (UTC offsets lie within -12 h .. +14 h; two days of margin each
// side). Written beside each exact local-day test: DuckDB then
// filters rows on the column in its scan, before it joins their strings and
// converts their times, so a query costs what its range holds, not the whole
// history. It never changes an answer: the exact test follows.
// near_from_ms(first) is its lower bound: no instant of day `first` or later,
// in any zone, lies before it.
const NEAR_DAYS = [
  `CREATE OR REPLACE TEMP MACRO near_from_ms(p_first) AS epoch_ms(CAST(p_first AS TIMESTAMP)) - 172800000`,
  `CREATE OR REPLACE TEMP MACRO near_days(p_ts_ms, p_first, p_last) AS
     p_ts_ms >= near_from_ms(p_first) AND p_ts_ms < epoch_ms(CAST(p_last AS TIMESTAMP)) + 259200000`,
];

export async function defineReportMacros(conn: DuckDBConnection): Promise<void> {
  await conn.run(REPORT_EVENTS);
  for (const m of NEAR_DAYS) await conn.run(m);
}
