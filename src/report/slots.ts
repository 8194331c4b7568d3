// Whether a zone's day cuts fall between the 15-minute slots the roll-ups
// keep (store/rollups.ts), and where they do not, the same roll-ups made one
// instant per slot for this connection.
//
// A local day, week or month is cut at local midnight. The cut falls on a
// slot boundary when the zone's UTC offset is a multiple of 15 minutes and
// stays the same over the slot: every IANA zone's offset since 1980 is such
// a multiple (:30 and :45 zones, Lord Howe's 30-minute DST), and zones change
// offset on whole minutes of their own clock, mostly on the hour. A few
// changed it at 00:01 (America/St_Johns until 2011, America/Moncton and
// Goose_Bay), which a slot can straddle. So this is checked, not assumed, on
// the slots the store holds: per UTC day with a slot, the offset at its
// first and last instant; where they differ or are not a multiple of 15
// minutes, per slot of that day. A slot the zone cuts makes the report read
// the roll-ups made from the billed rows with a slot per instant (exact, at
// the per-response cost), through the same templates.
import type { DuckDBConnection } from '@duckdb/node-api';
import { VARCHAR } from '../store/duckdb.js';
import { buildRollups, SLOT_MS } from '../store/rollups.js';
import { mark } from '../core/trace.js';

const DAY_MS = 86_400_000;
/** Per connection: the zones checked, and PER_INSTANT once its slots are the per-instant ones. */
const checked = new WeakMap<DuckDBConnection, Set<string>>();
const PER_INSTANT = '';

const floorTo = (x: string, m: number) => `(${x} - ((${x} % ${m}) + ${m}) % ${m})`;
const offsetAt = (x: string) => `(epoch_ms(timezone($tz, make_timestamptz((${x}) * 1000))) - (${x}))`;

/** Whether `tz` cuts none of the slots of usage_slots and session_slots. */
export async function slotsWhole(conn: DuckDBConnection, tz: string): Promise<boolean> {
  const r = await conn.runAndReadAll(
    `WITH b AS (
       SELECT DISTINCT ${floorTo('slot_ms', SLOT_MS)} AS b FROM (SELECT slot_ms FROM usage_slots UNION ALL SELECT slot_ms FROM session_slots)
     ),
     days AS (SELECT DISTINCT ${floorTo('b', DAY_MS)} AS d FROM b),
     odd AS (
       SELECT d FROM days
       WHERE ${offsetAt('d')} <> ${offsetAt(`d + ${DAY_MS - 1}`)} OR ${offsetAt('d')} % ${SLOT_MS} <> 0
     )
     SELECT count(*) AS cut FROM b JOIN odd ON ${floorTo('b.b', DAY_MS)} = odd.d
     WHERE ${offsetAt('b.b')} <> ${offsetAt(`b.b + ${SLOT_MS - 1}`)} OR ${offsetAt('b.b')} % ${SLOT_MS} <> 0`,
    { tz },
    { tz: VARCHAR },
  );
  return Number((r.getRowObjectsJson()[0] as { cut: string }).cut) === 0;
}

/**
 * Before a report cuts days in `tz`: when the zone would cut a slot, this
 * connection's usage_slots and session_slots become the per-instant ones
 * (once per connection and zone; UTC never cuts one).
 */
export async function useSlotsFor(conn: DuckDBConnection, tz: string): Promise<void> {
  if (tz === 'UTC') return;
  let seen = checked.get(conn);
  if (!seen) checked.set(conn, (seen = new Set()));
  // Per-instant slots (PER_INSTANT) suit every zone.
  if (seen.has(tz) || seen.has(PER_INSTANT)) return;
  const whole = await slotsWhole(conn, tz);
  mark(`slots whole in ${tz}: ${whole}`);
  seen.add(tz);
  if (whole) return;
  await buildRollups(conn, { slotLen: 1, extra: ['machine'], parts: ['usage', 'sessions'] });
  seen.add(PER_INSTANT);
}
