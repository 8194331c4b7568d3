// What a report needs besides its query, kept ready in the store (meta row
// `ready`) by the run that last brought the store up to date: the warnings of
// the sources (by harness, with when a report's horizon leaves each out),
// what the prices were made from and warned of, which models a near match
// prices, whether any response lacks a price. A later report of the same
// store state (the same sources digest, store/sources-digest.ts, and prices
// made from the same inputs; a horizon no earlier than the one the digest was
// recorded under) reads this one row instead of loading the
// harnesses and the price data and asking the store again (cli/runtime.ts
// openCurrent).
//
// Invariant: the row describes the store only while its `digest` is the
// store's `sources_digest` and its `pricing.fingerprint` the store's
// `pricing_fingerprint`: every write transaction of an ingest deletes it with
// the sources digest (sources-digest.ts FORGET_SOURCES_DIGEST), and a
// re-pricing deletes it (cli/pricing.ts repriceStore). Tested in
// test/cli/ready.test.ts.
import { VARCHAR, type DuckDBConnection } from './duckdb.js';
import type { HarnessId } from '../core/types.js';
import type { Input } from '../core/inputs.js';
import { sourcesStateOf, type SourcesState } from './sources-digest.js';

export const READY_KEY = 'ready';
export const READY_VERSION = 3;

/**
 * What a run's prices were made from: the home and --prices file it was asked
 * with, and the inputs loading them read (core/inputs.ts: the config file,
 * the stored price data, the overrides); their fingerprint, and what loading
 * them warned of.
 */
export interface PricingRecord {
  basis: { home: string; pricesFile: string | null };
  fingerprint: string;
  inputs: Input[];
  warnings: string[];
}

/** A model the price data names only by a near match, and the entry that prices it (cli/price-warnings.ts). */
export interface NearMatch {
  harness: HarnessId;
  provider: string | null;
  model: string;
  entry: string;
  entryProvider: string;
}

/** A stored warning of a source: its harness, its text, and `until` (see warningsInWindow). */
export interface ReadyWarning {
  harness: HarnessId;
  reason: string;
  /**
   * A report whose horizon is after this time (ms) leaves the source unread
   * were the store not to hold it, and so does not show its warnings
   * (ingest/horizon.ts mayLeaveUnread: the later of its modification time and its
   * last line's, or its modification time for a sealed compressed one); null
   * when no horizon leaves it out.
   */
  until: number | null;
  /** The first and last response time (ms) the store holds of the source; null when it holds none (then no window leaves the warning out). */
  span: [number, number] | null;
}

export interface Ready {
  v: number;
  /** The sources digest of the store state this describes. */
  digest: string;
  pricing: PricingRecord;
  /** Warnings recorded with the sources, in the report's order (harness, path, text). */
  warnings: ReadyWarning[];
  /** Cursor sources make every source needed by every report (horizon.ts usableHorizon): no warning is left out. */
  horizonless: boolean;
  /** Some response has no computed cost (the unpriced-model warnings have rows to find). */
  unpriced: boolean;
  near: NearMatch[];
  /** What judging a model's price warned of (price data the library cannot use), by model (a `judged` key) and its harness, in the order judged. */
  resolveWarnings: { key: string; harness: HarnessId; warnings: string[] }[];
  /** The models judged (harness, provider, model joined by NUL), in order: a later ready row of the same prices judges only new ones. */
  judged: string[];
  /** Sources the store keeps whose files are gone. */
  retained: number;
}

/** The store's sources digest (and its horizon), pricing fingerprint and ready row, in one query. */
export async function readCurrentMeta(
  conn: DuckDBConnection,
): Promise<{ sources: SourcesState; pricing: string | null; ready: Ready | null }> {
  const r = await conn.runAndReadAll(
    `SELECT key, value FROM meta WHERE key IN ('sources_digest', 'sources_digest_horizon', 'pricing_fingerprint', '${READY_KEY}')`,
  );
  const m = new Map((r.getRowObjectsJson() as { key: string; value: string }[]).map((x) => [x.key, x.value]));
  let ready: Ready | null = null;
  try {
    const j = JSON.parse(m.get(READY_KEY) ?? 'null') as Ready | null;
    ready = j?.v === READY_VERSION ? j : null;
  } catch {
    ready = null;
  }
  return { sources: sourcesStateOf(m), pricing: m.get('pricing_fingerprint') ?? null, ready };
}

/** Records `ready` for the store state it describes, in a transaction of its own, when that state is still the store's. */
export async function saveReady(conn: DuckDBConnection, ready: Omit<Ready, 'v'>): Promise<boolean> {
  await conn.run('BEGIN TRANSACTION');
  try {
    const cur = await readCurrentMeta(conn);
    if (cur.sources.digest !== ready.digest || cur.pricing !== ready.pricing.fingerprint) {
      await conn.run('ROLLBACK');
      return false;
    }
    await conn.run(
      `INSERT OR REPLACE INTO meta VALUES ('${READY_KEY}', $v)`,
      { v: JSON.stringify({ v: READY_VERSION, ...ready }) },
      { v: VARCHAR },
    );
    await conn.run('COMMIT');
    return true;
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/**
 * The stored warnings a report of `harnesses` shows: not those of a source its
 * horizon (`horizonMs`, null: none) would leave unread were the store not to
 * hold it, whether or not another command has read it (cli/report.ts); nor,
 * given the report's days (`days`), those of a source none of whose responses
 * falls in them (issue 44: a `--since 1d` report warned of January's files).
 */
export function warningsInWindow(
  ready: Ready,
  harnesses: readonly string[],
  horizonMs: number | null,
  days?: { since: string; until: string },
): string[] {
  const horizon = ready.horizonless ? null : horizonMs;
  const [from, to] = days ? windowMs(days.since, days.until) : [-Infinity, Infinity];
  return ready.warnings
    .filter((w) => harnesses.includes(w.harness) && !(horizon !== null && w.until !== null && w.until < horizon))
    .filter((w) => !w.span || (w.span[1] >= from && w.span[0] < to))
    .map((w) => w.reason);
}

/**
 * Instants (ms) that hold every instant whose local day in any zone is in
 * `since`..`until`: UTC days widened by the zones' farthest offsets (−12 h …
 * +14 h), so that no zone needs Intl to be asked. A source whose responses
 * all lie within those hours of the window but outside it keeps its warning.
 */
function windowMs(since: string, until: string): [number, number] {
  const H = 3_600_000;
  return [Date.parse(`${since}T00:00:00Z`) - 14 * H, Date.parse(`${until}T00:00:00Z`) + 36 * H];
}

/**
 * What judging the prices of `harnesses`' models warned of, each warning once,
 * after `already`; given `models` (the `judged` keys of the models with
 * responses in the report's window), only of those.
 */
export function resolveWarningsOf(
  ready: Ready,
  harnesses: readonly string[],
  already: readonly string[],
  models?: ReadonlySet<string>,
): string[] {
  const seen = new Set(already);
  const out: string[] = [];
  for (const r of ready.resolveWarnings) {
    if (!harnesses.includes(r.harness) || (models && !models.has(r.key))) continue;
    for (const w of r.warnings) if (!seen.has(w)) (out.push(w), seen.add(w));
  }
  return out;
}
