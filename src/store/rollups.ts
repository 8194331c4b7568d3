// Roll-ups kept by the ingest (issue 41): the small tables every report and
// live view reads instead of aggregating the billed responses at query time.
//
// - usage_slots: the billed responses summed per 15-minute UTC slot ×
//   harness × session × project × model × provider × grain (what a row was
//   made from: a response, or a session's totals, core/types.ts GRAINS; the
//   live views read the slots of grain 'response' only), with every figure the
//   reports show under each `--cost` mode (the sums and counts behind
//   cost_e10, priced/recorded events and the unpriced share), and the first
//   and last response time in the slot.
// - session_slots: per slot × harness × session, activity over its billed
//   responses and units of work (first and last record, the active time
//   between its records within the slot) and its units of work by kind.
// - prompt_stats: one row per prompt typed by a person (a kept unit of kind
//   prompt), with what answered it: the billed responses of its root session
//   from it to the next prompt (an as-of join on time), their requests,
//   tokens, cost under each mode and main model, and the tool calls between.
// - session_links: each sub-agent session's root session, as of the last
//   settle (what prompt_stats was made with).
//
// Slots. A slot is 15 minutes of UTC time, so a local day, week or month cut
// in any zone whose offset is a multiple of 15 minutes and changes on such an
// instant (every IANA zone since 1980: :30 and :45 offsets, Lord Howe's
// 30-minute DST) never cuts a slot. An instant exactly on a slot boundary is
// a slot of its own (slot_ms = the instant; others: the boundary before +
// 1 ms), because a 5-hour block (src/live/blocks.ts) ends on a UTC hour and a
// response exactly at its end still belongs to it: every block boundary then
// falls between slots. slot_ms is itself an instant of the slot, so its local
// day is every response's local day. Where a zone's cut would split a slot
// (src/report/slots.ts checks the slots a query reads), the report reads the
// same shape made from the billed rows one instant per slot.
//
// Kept exact by the ingest that writes the rows, in the transaction that
// settles the billed and kept marks (store/billed.ts settleMarks): the
// sessions whose billed responses or kept units may have changed are noted
// in sessions_pending, and their slots are made again from their rows; the
// prompts of every root session such a session belongs to (now or at the
// last settle: a parent link may have moved it) are made again. Re-pricing
// notes the sessions of every re-priced row (cli/pricing.ts). The builders
// below are the one definition of each figure: the store's maintenance, the
// schema's migration, the roll-up views over exported Parquet
// (export/rollup.ts) and the per-response fallback all use them.
// ROLLUPS_AUDIT states the invariant as queries that must return no rows.
import type { DuckDBConnection } from './duckdb.js';
import { SESSIONS_PENDING } from './session-stats.js';
import { mark } from '../core/trace.js';

/** Gaps between a session's records longer than this are idle time (not active time). */
export const IDLE_GAP_MS = 10 * 60 * 1000;

/** A slot's length: 15 minutes. */
export const SLOT_MS = 900_000;

/**
 * SQL: the slot of instant `ts` (ms) at `slotLen` ms: the instant itself on a
 * boundary, else the boundary before it + 1 ms. A slotLen of 1 makes every
 * instant its own slot (the per-response shape).
 */
export function slotOf(ts: string, slotLen = SLOT_MS): string {
  if (slotLen === 1) return ts;
  return `(CASE WHEN ${ts} % ${slotLen} = 0 THEN ${ts} ELSE ${ts} - ((${ts} % ${slotLen}) + ${slotLen}) % ${slotLen} + 1 END)`;
}

/** SQL: the last instant of slot `slot`: itself for a boundary slot, else the instant before the next boundary. */
export function slotLast(slot: string, slotLen = SLOT_MS): string {
  if (slotLen === 1) return slot;
  return `(CASE WHEN ${slot} % ${slotLen} = 0 THEN ${slot} ELSE ${slot} + ${slotLen - 2} END)`;
}

/** SQL: a response's total tokens, its columns read from `alias`. */
const tokensOf = (alias: string) =>
  ['input_tokens', 'cache_read_tokens', 'cache_write_tokens', 'output_tokens'].map((c) => `${alias}.${c}`).join(' + ');

/** ", a.x, a.y" for columns `cols` of `alias`. */
const carried = (cols: readonly string[], alias: string) => cols.map((c) => `, ${alias}.${c}`).join('');

/** The kinds of units of work, in the order of unit_rows.kind (schema v10). */
export const UNIT_KINDS = ['prompt', 'turn', 'tool_call', 'subagent_task'] as const;

// The builders read integer ids, not strings: grouping and as-of joining
// ~35k responses and ~50k units per GiB of transcripts by strings cost
// several times more. Their inputs, as relations:
// - rows: billed responses with attr_id (a combination of harness, session,
//   project, model, provider...), ts_ms, dedupe_key, the token columns,
//   recorded_cost_e10, computed_cost_e10;
// - attrs: attr_id → harness, session_id, project, model, provider, grain
//   (NULL: 'response') (+ extra);
// - sessions: sid → harness, session_id, root_session_id, rsid (one id per
//   root session), for the sessions the rows and units below belong to;
// - sessionOfAttr: attr_id → sid; units: sid, kind (UNIT_KINDS index),
//   dedupe_key, ts_ms, n (+ extra), the kept units of work.
// The store's maintenance makes them from its tables (refreshRollups), a
// roll-up of exported Parquet from its views (genericInputs).

/**
 * usage_slots' rows: `rows` summed per combination and slot, with the
 * combination's strings. `cost_e10` is the `auto` cost (the recorded one,
 * else the computed one); the template macro report_slots
 * (src/report/macros.ts) picks each mode's figures.
 */
export function usageSlotsSelect(
  rows: string,
  attrs: string,
  slotLen = SLOT_MS,
  extra: readonly string[] = [],
): string {
  // (A sum of CASE, not a FILTER: every group has rows, and it cost ~40 % less here.)
  const none = (cond: string, col: string) => `sum(CASE WHEN ${cond} THEN ${col} ELSE 0 END)::HUGEINT`;
  const noCost = 'recorded_cost_e10 IS NULL AND computed_cost_e10 IS NULL';
  const tokens = tokensOf('r');
  return `
    WITH p AS (
      SELECT r.attr_id, ${slotOf('r.ts_ms', slotLen)} AS slot_ms,
             count(*)::BIGINT AS events,
             sum(requests)::HUGEINT AS requests,
             sum(input_tokens)::HUGEINT AS input_tokens,
             sum(cache_read_tokens)::HUGEINT AS cache_read_tokens,
             sum(cache_write_tokens)::HUGEINT AS cache_write_tokens,
             sum(cache_write_1h_tokens)::HUGEINT AS cache_write_1h_tokens,
             sum(output_tokens)::HUGEINT AS output_tokens,
             sum(reasoning_tokens)::HUGEINT AS reasoning_tokens,
             sum(coalesce(recorded_cost_e10, computed_cost_e10))::HUGEINT AS cost_e10,
             sum(computed_cost_e10)::HUGEINT AS computed_cost_e10,
             sum(recorded_cost_e10)::HUGEINT AS recorded_cost_e10,
             count(coalesce(recorded_cost_e10, computed_cost_e10))::BIGINT AS priced_events,
             count(computed_cost_e10)::BIGINT AS computed_events,
             count(recorded_cost_e10)::BIGINT AS recorded_events,
             ${none(noCost, 'requests')} AS unpriced_requests,
             ${none(noCost, tokens)} AS unpriced_tokens,
             ${none('computed_cost_e10 IS NULL', 'requests')} AS uncomputed_requests,
             ${none('computed_cost_e10 IS NULL', tokens)} AS uncomputed_tokens,
             ${none('recorded_cost_e10 IS NULL', 'requests')} AS unrecorded_requests,
             ${none('recorded_cost_e10 IS NULL', tokens)} AS unrecorded_tokens,
             min(ts_ms) AS first_ts_ms,
             max(ts_ms) AS last_ts_ms,
             -- The slot's first response in time, then key order (the live views' order): models in order of first use.
             arg_min(dedupe_key, (ts_ms, dedupe_key)) AS first_key
      FROM ${rows} r
      GROUP BY ALL
    )
    SELECT p.slot_ms, a.harness, a.session_id, a.project, a.model, a.provider${carried(extra, 'a')}, p.* EXCLUDE (attr_id, slot_ms),
           -- Last: the column schema v16 added to usage_slots.
           coalesce(a.grain, 'response') AS grain
    FROM p JOIN ${attrs} a USING (attr_id)`;
}

/**
 * session_slots' rows: per slot and session, its first and last record
 * (billed responses of `rows`, units of `units`), the time between its
 * consecutive records inside the slot where under the idle gap (the rest of
 * a session's active time lies between its slots: session_active in
 * src/report/unit-macros.ts), and its units by kind.
 */
export function sessionSlotsSelect(
  rows: string,
  sessionOfAttr: string,
  units: string,
  sessions: string,
  slotLen = SLOT_MS,
): string {
  const kind = (k: number) => `coalesce(sum(n) FILTER (WHERE kind = ${k}), 0)::HUGEINT`;
  return `
    WITH t AS (
      SELECT m.sid, r.ts_ms, -1 AS kind, 0 AS n FROM ${rows} r JOIN ${sessionOfAttr} m USING (attr_id)
      UNION ALL
      SELECT sid, ts_ms, kind, n FROM ${units}
    ),
    g AS (
      SELECT *, ts_ms - lag(ts_ms) OVER (PARTITION BY sid, slot_ms ORDER BY ts_ms) AS gap
      FROM (SELECT *, ${slotOf('ts_ms', slotLen)} AS slot_ms FROM t)
    ),
    a AS (
      SELECT sid, slot_ms,
             min(ts_ms) AS first_ts_ms,
             max(ts_ms) AS last_ts_ms,
             coalesce(sum(gap) FILTER (WHERE gap <= ${IDLE_GAP_MS}), 0)::BIGINT AS active_ms,
             ${UNIT_KINDS.map((k, i) => `${kind(i)} AS ${k}s`).join(',\n             ')}
      FROM g GROUP BY ALL
    )
    SELECT a.slot_ms, s.harness, s.session_id, a.* EXCLUDE (sid, slot_ms)
    FROM a JOIN ${sessions} s USING (sid)`;
}

/**
 * Each sub-agent session's root (harness, session_id, root_session_id) from
 * `facts` (session_facts' shape): up its parent links, at most 8 levels.
 */
export function sessionRootsSelect(facts: string): string {
  return `
    WITH RECURSIVE up(harness, session_id, root, depth) AS (
      SELECT harness, session_id, parent_session_id, 1 FROM ${facts} WHERE parent_session_id IS NOT NULL
      UNION ALL
      SELECT up.harness, up.session_id, f.parent_session_id, up.depth + 1
      FROM up JOIN ${facts} f ON f.harness = up.harness AND f.session_id = up.root
      WHERE f.parent_session_id IS NOT NULL AND up.depth < 8
    )
    SELECT harness, session_id, arg_max(root, depth) AS root_session_id FROM up GROUP BY ALL`;
}

/**
 * prompt_stats' rows: one per prompt of `units` (kind 0) with the billed
 * responses of `rows` that answered it (the responses of its root session
 * from the prompt up to the next prompt; responses before a session's first
 * prompt answer none) and the tool calls in the same span. Its main model is
 * the one with the most tokens among them (then the model's name), its
 * project the project of its largest response (then the project's name). Its
 * cost under a mode is NULL when any of its responses is unpriced under it
 * (a partial sum is not a prompt's cost), 0 when nothing answered it.
 * `extra`: unit columns carried along.
 *
 * Each response and tool call goes to the latest prompt at or before it in
 * its root session (an as-of match), found by one window over the root's
 * records in time order (prompts first at the same instant, then by key):
 * DuckDB's as-of join with the responses' figures carried along took ~5x
 * the CPU and ~10x the memory (1 GiB corpus).
 */
export function promptStatsSelect(
  rows: string,
  attrs: string,
  sessionOfAttr: string,
  units: string,
  sessions: string,
  extra: readonly string[] = [],
): string {
  const fully = (c: string) => `CASE WHEN count(${c}) = count(*) THEN sum(${c}) END`;
  const cost = (c: string) => `(CASE WHEN agg.pid IS NULL THEN 0 ELSE agg.${c} END)::HUGEINT AS ${c}`;
  return `
    WITH p AS (
      SELECT row_number() OVER () AS pid, u.sid, s.rsid, u.dedupe_key, u.ts_ms${carried(extra, 'u')}
      FROM ${units} u JOIN ${sessions} s USING (sid) WHERE u.kind = 0
    ),
    e AS (
      SELECT row_number() OVER () AS id, r.attr_id, s.rsid, r.ts_ms, r.requests, ${tokensOf('r')} AS tokens,
             coalesce(r.recorded_cost_e10, r.computed_cost_e10) AS auto_cost_e10, r.computed_cost_e10, r.recorded_cost_e10
      FROM ${rows} r JOIN ${sessionOfAttr} m USING (attr_id) JOIN ${sessions} s ON s.sid = m.sid
    ),
    tu AS (SELECT row_number() OVER () AS id, s.rsid, u.ts_ms, u.n FROM ${units} u JOIN ${sessions} s USING (sid) WHERE u.kind = 2),
    owned AS (
      SELECT o, id, owner AS pid FROM (
        SELECT o, id, last_value(pid IGNORE NULLS) OVER (PARTITION BY rsid ORDER BY ts_ms, o, key ROWS UNBOUNDED PRECEDING) AS owner
        FROM (
          SELECT rsid, ts_ms, 0 AS o, pid, NULL AS id, dedupe_key AS key FROM p
          UNION ALL SELECT rsid, ts_ms, 1, NULL, id, NULL FROM e
          UNION ALL SELECT rsid, ts_ms, 2, NULL, id, NULL FROM tu
        )
      )
      WHERE o > 0 AND owner IS NOT NULL
    ),
    a AS (SELECT owned.pid, e.* EXCLUDE (id, rsid, ts_ms) FROM owned JOIN e USING (id) WHERE owned.o = 1),
    agg AS (
      SELECT pid, sum(requests) AS requests, sum(tokens) AS tokens,
             ${fully('auto_cost_e10')} AS cost_e10, ${fully('computed_cost_e10')} AS computed_cost_e10, ${fully('recorded_cost_e10')} AS recorded_cost_e10
      FROM a GROUP BY pid
    ),
    pa AS (
      SELECT pid, x.model, x.project, sum(tokens) AS tokens, max(tokens) AS largest
      FROM a JOIN ${attrs} x USING (attr_id) GROUP BY ALL
    ),
    pm AS (SELECT pid, model, sum(tokens) AS tokens FROM pa GROUP BY ALL),
    main AS (
      SELECT m.pid, m.model, j.project FROM
        (SELECT pid, first(model ORDER BY tokens DESC, model NULLS LAST) AS model FROM pm GROUP BY pid) m
        JOIN (SELECT pid, first(project ORDER BY largest DESC, project NULLS LAST) AS project FROM pa GROUP BY pid) j USING (pid)
    ),
    t AS (SELECT owned.pid, sum(tu.n) AS tool_calls FROM owned JOIN tu USING (id) WHERE owned.o = 2 GROUP BY owned.pid)
    SELECT s.harness, s.session_id, s.root_session_id, p.dedupe_key AS prompt_key, p.ts_ms${carried(extra, 'p')},
           main.model, main.project, agg.pid IS NOT NULL AS answered,
           coalesce(agg.requests, 0)::HUGEINT AS requests, coalesce(agg.tokens, 0)::HUGEINT AS total_tokens,
           ${cost('cost_e10')}, ${cost('computed_cost_e10')}, ${cost('recorded_cost_e10')},
           coalesce(t.tool_calls, 0)::HUGEINT AS tool_calls
    FROM p
    JOIN ${sessions} s USING (sid)
    LEFT JOIN agg USING (pid)
    LEFT JOIN main USING (pid)
    LEFT JOIN t USING (pid)`;
}

/** SQL: the sessions map (sid, harness, session_id, root_session_id, rsid) of `sessions` (harness, session_id) under `roots`. */
export function sessionsMap(sessions: string, roots: string): string {
  return `
    SELECT row_number() OVER () AS sid, x.harness, x.session_id, coalesce(r.root_session_id, x.session_id) AS root_session_id,
           dense_rank() OVER (ORDER BY x.harness, coalesce(r.root_session_id, x.session_id)) AS rsid
    FROM ${sessions} x LEFT JOIN ${roots} r USING (harness, session_id)`;
}

/** The store's billed responses as builder rows (numbers only; a report's connection may shadow billed_events). */
const STORE_ROWS = `(
  SELECT attr_id, ts_ms, dedupe_key, requests, input_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
         output_tokens, reasoning_tokens, recorded_cost_e10, computed_cost_e10
  FROM usage_rows WHERE billed)`;
// (A join, not \`attr_id IN (SELECT ...)\`: the latter cost ~50 ms more per 35k responses.)
const storeRowsOf = (attrIds: string) =>
  `(SELECT r.* FROM ${STORE_ROWS} r JOIN (SELECT attr_id FROM ${attrIds}) t USING (attr_id))`;
const storeUnits = (unitAttrs: string) => `(
  SELECT m.sid, r.kind, r.dedupe_key, r.ts_ms, r.n
  FROM unit_rows r JOIN ${unitAttrs} m USING (unit_attr_id) WHERE r.kept)`;

/**
 * Whether the roots of the store's parent links differ from those the
 * prompts were made with: a parent link can change with a source that holds
 * no response or unit of work (nothing else is pending then).
 */
export async function linksDrifted(conn: DuckDBConnection): Promise<boolean> {
  const r = await conn.runAndReadAll(`
    WITH now AS (${sessionRootsSelect('session_facts')})
    SELECT EXISTS (SELECT * FROM now EXCEPT SELECT * FROM session_links)
        OR EXISTS (SELECT * FROM session_links EXCEPT SELECT * FROM now) AS drifted`);
  return (r.getRowObjectsJson()[0] as { drifted: boolean }).drifted === true;
}

/**
 * Makes the roll-ups of the pending sessions again (inside the caller's
 * transaction, before the pending sessions are cleared): their slots, and
 * the prompts of the root sessions they belong to now or belonged to at the
 * last settle.
 */
export async function refreshRollups(conn: DuckDBConnection): Promise<void> {
  const run = (sql: string) => conn.run(sql);
  // One thread: these are many small statements over tens of thousands of
  // rows, where a second thread cost more CPU than it saved time (~40 % more
  // CPU for the whole refresh on the 1 GiB corpus, and more memory).
  const threads = Number(
    (await conn.runAndReadAll(`SELECT current_setting('threads') AS t`)).getRowObjectsJson()[0]!.t,
  );
  if (threads !== 1) await run(`SET threads = 1`);
  try {
    await refreshTouched(run);
  } finally {
    if (threads !== 1) await run(`SET threads = ${threads}`);
  }
}

async function refreshTouched(run: (sql: string) => Promise<unknown>): Promise<void> {
  await run(`CREATE OR REPLACE TEMP TABLE txu_touched AS SELECT DISTINCT harness, session_id FROM ${SESSIONS_PENDING}`);
  // The root sessions whose prompts change: those of the touched sessions,
  // and, for a session whose root moved, its old and new root.
  await run(`CREATE OR REPLACE TEMP TABLE txu_roots AS ${sessionRootsSelect('session_facts')}`);
  await run(`
    CREATE OR REPLACE TEMP TABLE txu_groups AS
    WITH moved AS (
      SELECT harness, session_id FROM (SELECT * FROM temp.txu_roots EXCEPT SELECT * FROM session_links)
      UNION SELECT harness, session_id FROM (SELECT * FROM session_links EXCEPT SELECT * FROM temp.txu_roots)
    )
    SELECT t.harness, coalesce(r.root_session_id, t.session_id) AS root_session_id
    FROM temp.txu_touched t LEFT JOIN temp.txu_roots r USING (harness, session_id)
    UNION
    SELECT m.harness, coalesce(r.root_session_id, m.session_id) FROM moved m LEFT JOIN temp.txu_roots r USING (harness, session_id)
    UNION
    SELECT m.harness, coalesce(l.root_session_id, m.session_id) FROM moved m LEFT JOIN session_links l USING (harness, session_id)`);
  // Every session in play: the touched ones (their slots) and those of the
  // roots above (their prompts): the roots themselves unless linked further
  // up, and the sessions linked to them.
  await run(`
    CREATE OR REPLACE TEMP TABLE txu_sessions AS
    WITH s AS (
      SELECT harness, session_id, TRUE AS touched, FALSE AS member FROM temp.txu_touched
      UNION ALL
      SELECT r.harness, r.session_id, FALSE, TRUE FROM temp.txu_roots r SEMI JOIN temp.txu_groups g USING (harness, root_session_id)
      UNION ALL
      SELECT g.harness, g.root_session_id, FALSE, TRUE FROM temp.txu_groups g ANTI JOIN temp.txu_roots r ON r.harness = g.harness AND r.session_id = g.root_session_id
    ),
    u AS (SELECT harness, session_id, bool_or(touched) AS touched, bool_or(member) AS member FROM s GROUP BY ALL)
    SELECT m.*, u.touched, u.member FROM (${sessionsMap('u', 'temp.txu_roots')}) m JOIN u USING (harness, session_id)`);
  await run(
    `CREATE OR REPLACE TEMP TABLE txu_attrs AS SELECT a.attr_id, s.sid, s.touched, s.member FROM event_attrs a JOIN temp.txu_sessions s USING (harness, session_id)`,
  );
  await run(
    `CREATE OR REPLACE TEMP TABLE txu_unit_attrs AS SELECT a.unit_attr_id, s.sid, s.touched, s.member FROM unit_attrs a JOIN temp.txu_sessions s USING (harness, session_id)`,
  );
  const of = (rel: string, flag: 'touched' | 'member') => `(SELECT * FROM ${rel} WHERE ${flag})`;
  const match = 'g.harness = x.harness AND g.session_id = x.session_id';
  await run(`DELETE FROM usage_slots x USING temp.txu_touched g WHERE ${match}`);
  await run(`INSERT INTO usage_slots ${usageSlotsSelect(storeRowsOf(of('temp.txu_attrs', 'touched')), 'event_attrs')}`);
  mark('rollups: usage slots');
  await run(`DELETE FROM session_slots x USING temp.txu_touched g WHERE ${match}`);
  await run(
    `INSERT INTO session_slots ${sessionSlotsSelect(storeRowsOf(of('temp.txu_attrs', 'touched')), 'temp.txu_attrs', storeUnits(of('temp.txu_unit_attrs', 'touched')), 'temp.txu_sessions')}`,
  );
  mark('rollups: session slots');
  await run(
    `DELETE FROM prompt_stats x USING temp.txu_groups g WHERE g.harness = x.harness AND g.root_session_id = x.root_session_id`,
  );
  await run(
    `INSERT INTO prompt_stats ${promptStatsSelect(storeRowsOf(of('temp.txu_attrs', 'member')), 'event_attrs', 'temp.txu_attrs', storeUnits(of('temp.txu_unit_attrs', 'member')), 'temp.txu_sessions')}`,
  );
  mark('rollups: prompts');
  await run(`DELETE FROM session_links`);
  await run(`INSERT INTO session_links SELECT * FROM temp.txu_roots`);
  for (const t of ['txu_touched', 'txu_roots', 'txu_groups', 'txu_sessions', 'txu_attrs', 'txu_unit_attrs'])
    await run(`DROP TABLE temp.${t}`);
}

/** The whole store as builder inputs (the audit's reference). */
const ALL_SESSIONS = `(SELECT DISTINCT harness, session_id FROM (SELECT harness, session_id FROM event_attrs UNION ALL SELECT harness, session_id FROM unit_attrs))`;
const ALL_MAP = `(${sessionsMap(ALL_SESSIONS, `(${sessionRootsSelect('session_facts')})`)})`;
const ALL_ATTR_SESSIONS = `(SELECT a.attr_id, m.sid FROM event_attrs a JOIN ${ALL_MAP} m USING (harness, session_id))`;
const ALL_UNITS = `(SELECT m.sid, r.kind, r.dedupe_key, r.ts_ms, r.n FROM unit_rows r JOIN unit_attrs a USING (unit_attr_id) JOIN ${ALL_MAP} m USING (harness, session_id) WHERE r.kept)`;

/**
 * The invariant, as one query per table that must return no rows: each
 * roll-up holds exactly the rows its builder makes of all of the store's
 * billed responses and kept units.
 */
export const ROLLUPS_AUDIT: Record<string, string> = Object.fromEntries(
  (
    [
      ['usage_slots', usageSlotsSelect(STORE_ROWS, 'event_attrs')],
      ['session_slots', sessionSlotsSelect(STORE_ROWS, ALL_ATTR_SESSIONS, ALL_UNITS, ALL_MAP)],
      ['prompt_stats', promptStatsSelect(STORE_ROWS, 'event_attrs', ALL_ATTR_SESSIONS, ALL_UNITS, ALL_MAP)],
      ['session_links', sessionRootsSelect('session_facts')],
    ] as const
  ).map(([table, reference]) => [
    table,
    `WITH reference AS (${reference}), kept AS (SELECT * FROM ${table})
     (SELECT 'extra' AS problem, * FROM (SELECT * FROM kept EXCEPT ALL SELECT * FROM reference))
     UNION ALL
     (SELECT 'missing' AS problem, * FROM (SELECT * FROM reference EXCEPT ALL SELECT * FROM kept))`,
  ]),
);

/** Per connection: the extra columns its builder inputs (temp.txr_*) were made with. */
const inputsOf = new WeakMap<DuckDBConnection, string>();

/**
 * Makes the roll-ups in `parts` as connection-local tables from whatever the
 * connection shows as billed_events, work_units and session_facts (a
 * roll-up's Parquet views, export/rollup.ts; the store's rows one instant
 * per slot, where a zone's cut would split a 15-minute slot,
 * src/report/slots.ts), with the same builders as the store's own. `extra`:
 * columns of billed_events (and of work_units, for the prompts) carried
 * along (a roll-up's machine). The builders' inputs are made once per
 * connection and kept for the parts made later.
 */
export async function buildRollups(
  conn: DuckDBConnection,
  o: { slotLen: number; extra: readonly string[]; parts: readonly ('usage' | 'sessions' | 'prompts')[] },
): Promise<void> {
  const run = (sql: string) => conn.run(sql);
  if (inputsOf.get(conn) !== o.extra.join(',')) {
    const keys = ['harness', 'session_id', 'project', 'model', 'provider', 'grain', ...o.extra];
    // The billed rows once (a roll-up's view deduplicates its Parquet rows at every read).
    await run(`
      CREATE OR REPLACE TEMP TABLE txr_billed AS
      SELECT ${keys.join(', ')}, ts_ms, dedupe_key, requests, input_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
             output_tokens, reasoning_tokens, recorded_cost_e10, computed_cost_e10
      FROM billed_events`);
    await run(
      `CREATE OR REPLACE TEMP TABLE txr_attrs AS SELECT row_number() OVER () AS attr_id, * FROM (SELECT DISTINCT ${keys.join(', ')} FROM temp.txr_billed)`,
    );
    await run(`
      CREATE OR REPLACE TEMP TABLE txr_rows AS
      SELECT a.attr_id, e.* EXCLUDE (${keys.join(', ')})
      FROM temp.txr_billed e JOIN temp.txr_attrs a ON ${keys.map((k) => `a.${k} IS NOT DISTINCT FROM e.${k}`).join(' AND ')}`);
    await run(`CREATE OR REPLACE TEMP TABLE txr_units_raw AS SELECT * FROM work_units`);
    await run(`
      CREATE OR REPLACE TEMP TABLE txr_sessions AS
      ${sessionsMap(`(SELECT DISTINCT harness, session_id FROM (SELECT harness, session_id FROM temp.txr_attrs UNION ALL SELECT harness, session_id FROM temp.txr_units_raw))`, `(${sessionRootsSelect('session_facts')})`)}`);
    await run(
      `CREATE OR REPLACE TEMP TABLE txr_attr_sessions AS SELECT a.attr_id, s.sid FROM temp.txr_attrs a JOIN temp.txr_sessions s USING (harness, session_id)`,
    );
    // The prompts carry the units' extra columns, where work_units has them (a local store's unlabelled one has none).
    const unitCols = new Set(
      (await conn.runAndReadAll(`DESCRIBE SELECT * FROM temp.txr_units_raw`))
        .getRowObjectsJson()
        .map((r) => String(r.column_name)),
    );
    const unitExtra = carried(
      o.extra.filter((c) => unitCols.has(c)),
      'u',
    );
    await run(`
      CREATE OR REPLACE TEMP TABLE txr_units AS
      SELECT s.sid, list_position([${UNIT_KINDS.map((k) => `'${k}'`).join(', ')}], u.kind) - 1 AS kind, u.dedupe_key, u.ts_ms, u.n${unitExtra}
      FROM temp.txr_units_raw u JOIN temp.txr_sessions s USING (harness, session_id)`);
    for (const t of ['txr_billed', 'txr_units_raw']) await run(`DROP TABLE temp.${t}`);
    inputsOf.set(conn, o.extra.join(','));
  }
  await run(`SET asof_loop_join_threshold = 0`);
  // A name the connection shows as a view (a local store's labelled one) gives way to the table.
  const make = async (table: string, sql: string) => {
    await run(`DROP VIEW IF EXISTS temp.${table}`);
    await run(`CREATE OR REPLACE TEMP TABLE ${table} AS ${sql}`);
  };
  if (o.parts.includes('usage'))
    await make('usage_slots', usageSlotsSelect('temp.txr_rows', 'temp.txr_attrs', o.slotLen, o.extra));
  if (o.parts.includes('sessions'))
    await make(
      'session_slots',
      sessionSlotsSelect('temp.txr_rows', 'temp.txr_attr_sessions', 'temp.txr_units', 'temp.txr_sessions', o.slotLen),
    );
  if (o.parts.includes('prompts'))
    await make(
      'prompt_stats',
      promptStatsSelect(
        'temp.txr_rows',
        'temp.txr_attrs',
        'temp.txr_attr_sessions',
        'temp.txr_units',
        'temp.txr_sessions',
        o.extra,
      ),
    );
}
