// "Nothing changed since the last ingest", answered by one row. The ingest
// digests what it found before reading anything (roots, discovery warnings,
// every source's stamp: ingest/stamp.ts scanDigests); when an ingest has
// read everything it found, it records that digest in meta. The next ingest
// whose digest equals the recorded one has nothing to read, retain or mark:
// it skips loading every source's bookkeeping and planning (and, with Cursor
// data, the known-projects query), and writes nothing — no transaction.
//
// Invariant: meta holds `sources_digest` only while the store holds exactly
// what an ingest of the sources in that digest's state wrote. So:
// - every write transaction of an ingest deletes it first (forgetSourcesDigest,
//   in BatchWriter and markRetained): a run that stops half-way leaves none;
// - it is recorded last, once the ingest's writes are committed, and only when
//   every source could be stat'ed and read (an unreadable source is tried
//   again each run, as before). When a report's horizon left sources unread
//   (ingest/horizon.ts), that horizon is recorded with it (`sources_digest_horizon`):
//   the store then holds what an ingest under that horizon wrote, which is
//   what any later horizon needs too (a source that may be left unread under a
//   horizon may be under every later one), not what an earlier one needs.
// Stamps are taken before reading: a file that changes while it is read has
// another stamp next run, so it is read again, never skipped.
// Tested in test/ingest/nothing-changed.test.ts (the store's files keep their bytes
// and mtimes; any change is read; a deferring run records no digest; write
// transactions drop it).
//
// Measured (an up-to-date report over a 190k-response store, 685 sources on
// disk and 12k retained; 2-core machine under load, 3 runs each): the
// ingest step 190-350 ms -> 10-20 ms, the process's CPU 0.77 -> 0.68 s
// (-12%), peak RSS 164 -> 148 MB.
import { VARCHAR, type DuckDBConnection } from './duckdb.js';

const KEY = 'sources_digest';
const HORIZON_KEY = 'sources_digest_horizon';

// The ready row (ready.ts) describes the state the digest names: it goes with it.
export const FORGET_SOURCES_DIGEST = `DELETE FROM meta WHERE key IN ('${KEY}', '${HORIZON_KEY}', 'ready')`;

/** Inside a write transaction, before it changes rows or bookkeeping. */
export async function forgetSourcesDigest(conn: DuckDBConnection): Promise<void> {
  await conn.run(FORGET_SOURCES_DIGEST);
}

export async function storedSourcesDigest(conn: DuckDBConnection): Promise<string | null> {
  const r = await conn.runAndReadAll(`SELECT value FROM meta WHERE key = '${KEY}'`);
  return (r.getRowObjectsJson()[0] as { value?: string } | undefined)?.value ?? null;
}

/** The recorded digest and the horizon it was recorded under (null: nothing was left unread). */
export interface SourcesState {
  digest: string | null;
  horizon: number | null;
}

export async function storedSourcesState(conn: DuckDBConnection): Promise<SourcesState> {
  const r = await conn.runAndReadAll(`SELECT key, value FROM meta WHERE key IN ('${KEY}', '${HORIZON_KEY}')`);
  return sourcesStateOf(
    new Map((r.getRowObjectsJson() as { key: string; value: string }[]).map((x) => [x.key, x.value])),
  );
}

/** The state from meta rows read by the caller (store/ready.ts reads them with its own). */
export function sourcesStateOf(meta: Map<string, string>): SourcesState {
  const h = meta.get(HORIZON_KEY);
  return { digest: meta.get(KEY) ?? null, horizon: h === undefined ? null : Number(h) };
}

/** Whether a store recorded under `recorded` holds every source a run with horizon `wanted` (null: none) needs. */
export function coversHorizon(recorded: number | null, wanted: number | null): boolean {
  return recorded === null || (wanted !== null && wanted >= recorded);
}

/** Whether the store holds, for the sources of `digest`, what a run with this usable horizon needs. */
export function upToDateFor(stored: SourcesState, digest: string, horizon: number | null): boolean {
  return stored.digest === digest && coversHorizon(stored.horizon, horizon);
}

/**
 * Records `digest` in a transaction of its own (nothing when it is recorded
 * already), with `horizon` when sources were left unread under it.
 */
export async function recordSourcesDigest(
  conn: DuckDBConnection,
  digest: string,
  stored: string | SourcesState | null,
  horizon: number | null = null,
): Promise<void> {
  const was: SourcesState = stored === null || typeof stored === 'string' ? { digest: stored, horizon: null } : stored;
  if (was.digest === digest && was.horizon === horizon) return;
  await conn.run('BEGIN TRANSACTION');
  try {
    await conn.run(`INSERT OR REPLACE INTO meta VALUES ('${KEY}', $d)`, { d: digest }, { d: VARCHAR });
    if (horizon === null) await conn.run(`DELETE FROM meta WHERE key = '${HORIZON_KEY}'`);
    else
      await conn.run(
        `INSERT OR REPLACE INTO meta VALUES ('${HORIZON_KEY}', $h)`,
        { h: String(horizon) },
        { h: VARCHAR },
      );
    await conn.run('COMMIT');
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/** Sources the store keeps whose files are gone. */
export async function countRetained(conn: DuckDBConnection): Promise<number> {
  const r = await conn.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM sources WHERE retained_since_ms IS NOT NULL`);
  return Number((r.getRowObjectsJson()[0] as { n: number }).n);
}
