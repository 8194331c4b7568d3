// Writing extraction results and their bookkeeping into the store: one
// transaction per batch, rows through the DuckDB appender (responses as data
// chunks, see usage-rows.ts).
import { BIGINT, INTEGER, LIST, VARCHAR, listValue, type DuckDBAppender, type DuckDBConnection } from './duckdb.js';
import { UsageRowWriter } from './usage-rows.js';
import { notePending, noteRemovedKeys, settleMarks } from './billed.js';
import { forgetSourcesDigest } from './sources-digest.js';
import { linksDrifted, refreshRollups } from './rollups.js';
import { UnitAttrIds, writeUnitsAndFacts } from './unit-rows.js';
import { usdToE10 } from '../core/money.js';
import type { RateLimitSnapshot, SessionFact, UsageEvent } from '../core/types.js';
import { UnitColumns } from '../core/unit-columns.js';
import type { Collected } from '../ingest/collect.js';
import { eventRows } from '../ingest/transport.js';

/** What the store remembers about a source to decide, next run, what changed. */
export interface SourceBookRow {
  source_key: string;
  harness: string;
  path: string;
  kind: string;
  fingerprint: string;
  size: number;
  ino: string | null;
  resume_offset: number | null;
  resume_lines: number | null;
  resume_state: string | null;
  tail_hash: string | null;
}

export interface SourceWrite {
  collected: Collected;
  book: SourceBookRow;
  /** 'full': old rows of the source are replaced; 'append': new rows are added to them. */
  mode: 'full' | 'append';
  /** The store has no bookkeeping row for the source, hence no rows at all: nothing to delete first. */
  fresh?: boolean;
}

/** Computed cost of one event in integer units of 1e-10 USD (the store's unit), or null when unpriced. */
export type CostFn = (e: UsageEvent) => bigint | null;

/**
 * Every known source's fingerprint (all a run needs for the sources that did
 * not change, nearly all of them on a repeat run), and which of them are
 * retained (their files were gone when last looked for). Read as columns, not
 * as row objects: several times faster for thousands of sources.
 */
export async function loadSourceStates(
  conn: DuckDBConnection,
): Promise<{ fingerprints: Map<string, string>; retained: Set<string> }> {
  const r = await conn.runAndReadAll(
    `SELECT source_key, fingerprint, retained_since_ms IS NOT NULL AS retained FROM sources`,
  );
  // No columns at all come back when there are no rows.
  const [keys = [], fps = [], kept = []] = r.getColumns() as [string[]?, string[]?, boolean[]?];
  const fingerprints = new Map<string, string>();
  const retained = new Set<string>();
  for (let i = 0; i < keys.length; i++) {
    fingerprints.set(keys[i]!, fps[i]!);
    if (kept[i]) retained.add(keys[i]!);
  }
  return { fingerprints, retained };
}

/** The whole bookkeeping row of each of `keys` that the store knows (for sources that changed). */
export async function loadSourceBook(conn: DuckDBConnection, keys: string[]): Promise<Map<string, SourceBookRow>> {
  const out = new Map<string, SourceBookRow>();
  if (!keys.length) return out;
  const r = await conn.runAndReadAll(
    `SELECT source_key, harness, path, kind, fingerprint, size, ino, resume_offset, resume_lines, resume_state, tail_hash FROM sources WHERE list_contains($keys, source_key)`,
    { keys: listValue(keys) },
    { keys: LIST_VARCHAR() },
  );
  for (const row of r.getRowObjectsJson() as any[]) {
    out.set(row.source_key, {
      ...row,
      size: Number(row.size),
      resume_offset: row.resume_offset === null ? null : Number(row.resume_offset),
      resume_lines: row.resume_lines === null ? null : Number(row.resume_lines),
    });
  }
  return out;
}

const str = (a: DuckDBAppender, v: string | null) => (v === null ? a.appendNull() : a.appendVarchar(v));
const big = (a: DuckDBAppender, v: number | bigint | null) => (v === null ? a.appendNull() : a.appendBigInt(BigInt(v)));
const int = (a: DuckDBAppender, v: number | null) => (v === null ? a.appendNull() : a.appendInteger(v));

const OWNED_TABLES = [
  'event_attrs',
  'session_estimates',
  'context_rows',
  'source_issues',
  'rate_limit_snapshots',
  'unit_attrs',
  'session_fact_rows',
] as const;

/** Deletes the rows of sources `keys`; returns whether any were deleted (their dedupe keys and sessions noted, see billed.ts). */
async function deleteRowsOf(conn: DuckDBConnection, keys: string[]): Promise<boolean> {
  if (!keys.length) return false;
  // Keys are bound as a list parameter, never spliced into SQL. A source's
  // responses go with its combinations (usage_rows has no source_key).
  const ofSources = `attr_id IN (SELECT attr_id FROM event_attrs WHERE list_contains($keys, source_key))`;
  await noteRemovedKeys(conn, { keys: listValue(keys) }, { keys: LIST_VARCHAR() });
  await conn.run(`DELETE FROM usage_rows WHERE ${ofSources}`, { keys: listValue(keys) }, { keys: LIST_VARCHAR() });
  // Units of work go with their combinations likewise (store/unit-rows.ts).
  await conn.run(
    `DELETE FROM unit_rows WHERE unit_attr_id IN (SELECT unit_attr_id FROM unit_attrs WHERE list_contains($keys, source_key))`,
    { keys: listValue(keys) },
    { keys: LIST_VARCHAR() },
  );
  for (const t of OWNED_TABLES) {
    await conn.run(
      `DELETE FROM ${t} WHERE list_contains($keys, source_key)`,
      { keys: listValue(keys) },
      { keys: LIST_VARCHAR() },
    );
  }
  return true;
}

/** The largest attr_id in event_attrs (0 when empty). */
async function maxAttrId(conn: DuckDBConnection): Promise<number> {
  const r = await conn.runAndReadAll(`SELECT coalesce(max(attr_id), 0)::INTEGER AS m FROM event_attrs`);
  return Number((r.getRowObjectsJson()[0] as { m: number }).m);
}

/**
 * The next free attr_id of event_attrs, read once per writer, before the
 * writer deletes anything (the store is written by one process at a time):
 * every row a transaction appends has an id at least the next free one when
 * it began, every row it did not append a smaller one (see billed.ts).
 */
class AttrIds {
  private next: number | null = null;
  /** The next id to be given out (read from the store the first time). */
  async peek(conn: DuckDBConnection): Promise<number> {
    this.next ??= (await maxAttrId(conn)) + 1;
    return this.next;
  }
  async take(conn: DuckDBConnection): Promise<() => number> {
    await this.peek(conn);
    return () => this.next!++;
  }
}

/** The usage_events view's columns every source fills, in its order (schema.ts; the billing columns after them stay NULL). */
const USAGE_EVENT_COLUMNS = [
  'source_key',
  'harness',
  'session_id',
  'project',
  'model',
  'provider',
  'ts_ms',
  'dedupe_key',
  'dedupe_rank',
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'output_tokens',
  'reasoning_tokens',
  'recorded_cost_e10',
  'computed_cost_e10',
  'source_file',
  'source_line',
] as const;

/**
 * Inserts the rows of `select`, laid out as the usage_events view (its
 * columns in its order, named here), into the store's tables; for stores
 * built in SQL (tests).
 */
export async function storeWideRows(conn: DuckDBConnection, select: string): Promise<void> {
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE txu_wide_rows AS SELECT * FROM (${select}) w(${USAGE_EVENT_COLUMNS.join(', ')})`,
  );
  const base = { base: await maxAttrId(conn) };
  const types = { base: INTEGER };
  // New combinations get ids above the store's largest; rows join to them only.
  await conn.run(
    `INSERT INTO event_attrs (attr_id, source_key, harness, session_id, project, model, provider, source_file)
       SELECT $base + row_number() OVER (ORDER BY source_key, harness, session_id, project, model, provider, source_file), *
       FROM (SELECT DISTINCT source_key, harness, session_id, project, model, provider, source_file FROM temp.txu_wide_rows)`,
    base,
    types,
  );
  await conn.run(
    `INSERT INTO usage_rows (attr_id, ts_ms, dedupe_key, dedupe_rank, requests, input_tokens, cache_read_tokens, cache_write_tokens,
                             cache_write_5m_tokens, cache_write_1h_tokens, output_tokens, reasoning_tokens, recorded_cost_e10,
                             computed_cost_e10, source_line, billed)
       SELECT a.attr_id, w.ts_ms, w.dedupe_key, w.dedupe_rank, w.requests,
              w.input_tokens, w.cache_read_tokens, w.cache_write_tokens, w.cache_write_5m_tokens, w.cache_write_1h_tokens,
              w.output_tokens, w.reasoning_tokens, w.recorded_cost_e10, w.computed_cost_e10, w.source_line, TRUE
       FROM temp.txu_wide_rows w JOIN event_attrs a
         ON a.attr_id > $base AND w.source_key = a.source_key AND w.harness = a.harness AND w.session_id = a.session_id
        AND w.project IS NOT DISTINCT FROM a.project AND w.model IS NOT DISTINCT FROM a.model
        AND w.provider IS NOT DISTINCT FROM a.provider AND w.source_file = a.source_file`,
    base,
    types,
  );
  await conn.run('DROP TABLE temp.txu_wide_rows');
  await notePending(conn, base.base + 1, null);
  await settleMarks(conn);
}

const LIST_VARCHAR = () => LIST(VARCHAR);

/** Units of work and session facts of sources written in the open transaction, by source key. */
type PendingUnits = { key: string; units: UnitColumns; facts: readonly SessionFact[] }[];

/**
 * Every write transaction bumps the store's write generation, in the same
 * transaction: a delta base (ingest/delta-state.ts) that recorded the store's
 * id and generation knows, when both are unchanged, that it still describes
 * the store — nothing was written since, not even by a run that crashed.
 */
async function bumpGeneration(conn: DuckDBConnection): Promise<void> {
  // The store's id is made by its first write transaction (a write of its
  // own would cost a commit, and a commit an fsync).
  await conn.run(`INSERT OR IGNORE INTO meta VALUES ('store_id', CAST(gen_random_uuid() AS VARCHAR))`);
  await conn.run(
    `INSERT OR REPLACE INTO meta SELECT 'write_generation', CAST(coalesce(max(TRY_CAST(value AS BIGINT)), 0) + 1 AS VARCHAR) FROM meta WHERE key = 'write_generation'`,
  );
}

/**
 * Write transactions this process committed (each bumped the generation by
 * one). The store is open in one process at a time (DuckDB's file lock), so
 * the generation after an ingest is the one before plus these.
 */
export const committedWrites = { count: 0 };

/** The store's id (null until its first write transaction) and write generation. */
export async function storeIdentity(conn: DuckDBConnection): Promise<{ storeId: string | null; generation: number }> {
  const r = await conn.runAndReadAll(`SELECT key, value FROM meta WHERE key IN ('store_id', 'write_generation')`);
  const m = new Map((r.getRowObjectsJson() as { key: string; value: string }[]).map((x) => [x.key, x.value]));
  return { storeId: m.get('store_id') ?? null, generation: Number(m.get('write_generation') ?? 0) };
}

let estimateSeq = Date.now() * 1000;

/**
 * Writes batches into one transaction, committed once it has been open
 * `commitEveryMs` and by commit(): a source's rows and its bookkeeping always
 * land together, and an interrupted ingest keeps what was committed before.
 * Each commit writes its rows to the WAL and syncs it; a cold run over the
 * benchmark corpus committed six batches of ~5 000 events at 8-36 ms each,
 * where one commit of all of them costs ~20 ms (and its checkpoint less).
 * Reads on the same connection see the rows written so far.
 *
 * Each commit settles the marks and session facts its writes touched
 * (store/billed.ts settleMarks), unless `deferSettle`: the ingest, which
 * commits many times, settles once at its end (settlePending) and reads
 * neither meanwhile.
 */
export class BatchWriter {
  private open = false;
  private openedAt = 0;
  private readonly ids = new AttrIds();
  /** The transaction's first attr_id (its appended rows have this or larger) and whether it deleted rows: what the billed marks are maintained for. */
  private tx = { firstAttr: 0, appended: false, removed: false };
  private readonly unitIds = new UnitAttrIds();
  /**
   * Units of work of the batches written since the last commit, written in
   * one go just before it: an appender costs a fixed ~0.5 ms to create and
   * close, and near the end of an ingest every source is a batch of its own.
   */
  private units: PendingUnits = [];

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly cost: CostFn,
    private readonly commitEveryMs = 0,
    private readonly deferSettle = false,
  ) {}

  async write(batch: SourceWrite[]): Promise<void> {
    if (!batch.length) return;
    const opening = !this.open;
    if (opening) {
      await this.conn.run('BEGIN TRANSACTION');
      this.open = true;
      this.openedAt = performance.now();
    }
    try {
      if (opening) {
        await bumpGeneration(this.conn);
        await forgetSourcesDigest(this.conn);
        this.tx = { firstAttr: await this.ids.peek(this.conn), appended: false, removed: false };
      }
      const w = await writeRows(this.conn, batch, this.cost, this.ids, this.units);
      this.tx.appended ||= w.appended;
      this.tx.removed ||= w.removed;
    } catch (e) {
      await this.rollback();
      throw e;
    }
    if (this.commitEveryMs > 0 && performance.now() - this.openedAt >= this.commitEveryMs) await this.commit();
  }

  /** Commits what was written since the last commit (nothing to do when nothing was). */
  async commit(): Promise<void> {
    if (!this.open) return;
    const units = this.units;
    this.units = [];
    let firstUnitAttr: number | null = null;
    try {
      if (units.length) firstUnitAttr = await writeUnitsAndFacts(this.conn, units, this.unitIds);
    } catch (e) {
      await this.rollback();
      throw e;
    }
    this.open = false;
    try {
      // The keys and sessions this transaction touched get their marks and facts again, in the same transaction.
      // What this transaction touched is recorded with its rows, and settled now or at the ingest's end (store/billed.ts).
      await notePending(this.conn, this.tx.appended ? this.tx.firstAttr : null, firstUnitAttr);
      if (!this.deferSettle) await settleMarks(this.conn);
      await this.conn.run('COMMIT');
    } catch (e) {
      await this.conn.run('ROLLBACK').catch(() => undefined);
      throw e;
    }
    committedWrites.count++;
  }

  private async rollback(): Promise<void> {
    this.open = false;
    this.units = [];
    await this.conn.run('ROLLBACK').catch(() => undefined);
  }
}

/** event_attrs.grain (schema v15): NULL for a response's row, the grain's name otherwise. */
const storedGrain = (e: UsageEvent): string | null => (e.grain && e.grain !== 'response' ? e.grain : null);

/** A batch's rows and bookkeeping, inside the caller's transaction; says whether it appended and deleted responses. */
async function writeRows(
  conn: DuckDBConnection,
  batch: SourceWrite[],
  cost: CostFn,
  ids: AttrIds,
  units: PendingUnits,
): Promise<{ appended: boolean; removed: boolean }> {
  const removed = await deleteRowsOf(
    conn,
    batch.filter((w) => w.mode === 'full' && !w.fresh).map((w) => w.book.source_key),
  );
  // A resumed read re-reads the bytes a torn-tail warning was about.
  const resumed = batch.filter((w) => w.mode === 'append').map((w) => w.book.source_key);
  if (resumed.length) {
    await conn.run(
      `DELETE FROM source_issues WHERE kind = 'warning-tail' AND list_contains($keys, source_key)`,
      { keys: listValue(resumed) },
      { keys: LIST_VARCHAR() },
    );
  }
  const rowsOf = batch.map((w) => eventRows(w.collected));
  // An appender only for tables that get rows: each costs a round trip to
  // create and one to flush, a sizeable part of a small append's ingest.
  const has = (rows: (c: Collected) => number) => batch.some((w) => rows(w.collected) > 0);
  const issueCount = (c: Collected) =>
    c.warnings.length + c.tailWarnings.length + c.skips.length + Object.keys(c.counts).length;
  const evA = rowsOf.some((r) => r.length > 0) ? await conn.createAppender('usage_rows') : null;
  const atA = evA ? await conn.createAppender('event_attrs') : null;
  const rows = evA ? new UsageRowWriter(evA) : null;
  const nextId = evA ? await ids.take(conn) : null;
  const esA = has((c) => c.estimates.length) ? await conn.createAppender('session_estimates') : null;
  const cxA = has((c) => c.contexts.length) ? await conn.createAppender('context_rows') : null;
  const rlA = has((c) => c.rateLimits?.length ?? 0) ? await conn.createAppender('rate_limit_snapshots') : null;
  const isA = has(issueCount) ? await conn.createAppender('source_issues') : null;
  batch.forEach(({ collected: c, book }, b) => {
    const key = book.source_key;
    const ev = rowsOf[b]!;
    // A source's responses share a few combinations of the repeated strings:
    // one, mostly, so the previous response's is compared first; a database
    // source (OpenCode, Cursor) has one per session, found by a joined key.
    const combos = new Map<string, number>();
    let lastId = 0;
    for (let i = 0; i < ev.length; i++) {
      let id = lastId;
      if (id === 0 || !ev.same(i, i - 1)) {
        const k = ev.key(i);
        id = combos.get(k) ?? 0;
        if (id === 0) {
          id = nextId!();
          combos.set(k, id);
          const e = ev.at(i);
          const at = atA!;
          int(at, id);
          str(at, key);
          str(at, e.harness);
          str(at, e.session_id);
          str(at, e.project);
          str(at, e.model);
          str(at, e.provider);
          str(at, e.source_file);
          str(at, e.billing_kind ?? null);
          str(at, e.speed ?? null);
          str(at, storedGrain(e));
          at.endRow();
        }
        lastId = id;
      }
      const e = ev.at(i);
      rows!.add(id, e, e.recorded_cost_usd === null ? null : usdToE10(e.recorded_cost_usd), cost(e));
    }
    for (const s of c.estimates) {
      const es = esA!;
      str(es, key);
      str(es, s.harness);
      str(es, s.session_id);
      big(es, usdToE10(s.recorded_cost_usd));
      big(es, s.ts === null ? null : Math.round(s.ts));
      big(es, estimateSeq++);
      es.endRow();
    }
    for (const x of c.contexts) {
      const cx = cxA!;
      str(cx, key);
      str(cx, x.harness);
      str(cx, x.session);
      str(cx, x.project);
      str(cx, x.model);
      big(cx, x.turns);
      big(cx, x.latest_used_tokens);
      big(cx, x.max_tokens);
      big(cx, x.peak_used_tokens);
      big(cx, x.first_ts === null ? null : Math.round(x.first_ts));
      big(cx, x.last_ts === null ? null : Math.round(x.last_ts));
      cx.endRow();
    }
    for (const r of c.rateLimits ?? []) writeRateLimit(rlA!, key, r);
    const issue = (kind: string, reason: string, count: number, first: string | null) => {
      const is = isA!;
      str(is, key);
      str(is, kind);
      str(is, reason);
      big(is, count);
      str(is, first);
      is.endRow();
    };
    for (const w of c.warnings) issue('warning', w, 1, null);
    for (const w of c.tailWarnings) issue('warning-tail', w, 1, null);
    for (const s of c.skips) issue('skip', s.reason, s.count, s.first);
    for (const [k, n] of Object.entries(c.counts)) issue('count', k, n, null);
    // Units of work are written by the BatchWriter when it commits (see there).
    if (c.units.length || c.facts?.length) units.push({ key, units: c.units, facts: c.facts ?? [] });
  });
  rows?.close();
  for (const a of [evA, atA, esA, cxA, rlA, isA]) a?.closeSync();
  // Bookkeeping rows replaced in bulk (one DELETE, one appender): a
  // statement per source costs milliseconds each.
  const known = batch.filter((w) => !w.fresh).map((w) => w.book.source_key);
  if (known.length)
    await conn.run(
      `DELETE FROM sources WHERE list_contains($keys, source_key)`,
      { keys: listValue(known) },
      { keys: LIST_VARCHAR() },
    );
  const so = await conn.createAppender('sources');
  const now = Date.now();
  for (const { book: b } of batch) {
    str(so, b.source_key);
    str(so, b.harness);
    str(so, b.path);
    str(so, b.kind);
    str(so, b.fingerprint);
    big(so, b.size);
    str(so, b.ino);
    big(so, b.resume_offset);
    big(so, b.resume_lines);
    str(so, b.resume_state);
    str(so, b.tail_hash);
    big(so, now);
    so.appendNull(); // retained_since_ms: a source just read is on disk
    so.endRow();
  }
  so.closeSync();
  return { appended: evA !== null, removed };
}

const dbl = (a: DuckDBAppender, v: number | null) => (v === null ? a.appendNull() : a.appendDouble(v));
const bool = (a: DuckDBAppender, v: boolean | null) => (v === null ? a.appendNull() : a.appendBoolean(v));

/** One rate_limit_snapshots row (schema v4), columns in table order. */
function writeRateLimit(a: DuckDBAppender, key: string, r: RateLimitSnapshot): void {
  str(a, key);
  str(a, r.harness);
  str(a, r.session_id);
  big(a, Math.round(r.ts));
  big(a, Math.round(r.last_ts));
  str(a, r.limit_id);
  str(a, r.plan_type);
  for (const w of [r.primary, r.secondary]) {
    dbl(a, w?.used_percent ?? null);
    int(a, w?.window_minutes ?? null);
    big(a, w?.resets_at ?? null);
  }
  bool(a, r.credits?.has_credits ?? null);
  bool(a, r.credits?.unlimited ?? null);
  str(a, r.credits?.balance ?? null);
  str(a, r.reached_type);
  str(a, r.source_file);
  int(a, r.source_line);
  a.endRow();
}

/**
 * Removes every row of `keys` and their bookkeeping, in one transaction. Only
 * for sources a user removes on purpose (an import, store/imports.ts): a
 * source whose file is merely gone is retained instead (markRetained).
 */
export async function forgetSources(conn: DuckDBConnection, keys: string[]): Promise<void> {
  if (!keys.length) return;
  await conn.run('BEGIN TRANSACTION');
  try {
    await bumpGeneration(conn);
    await forgetSourcesDigest(conn);
    const removed = await deleteRowsOf(conn, keys);
    await conn.run(
      `DELETE FROM sources WHERE list_contains($keys, source_key)`,
      { keys: listValue(keys) },
      { keys: LIST_VARCHAR() },
    );
    if (removed) await settleMarks(conn);
    await conn.run('COMMIT');
    committedWrites.count++;
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/**
 * Settles what write transactions left pending (store/billed.ts): at the
 * end of an ingest that deferred it, and after an ingest killed half-way. One
 * transaction, only when something is pending.
 */
export async function settlePending(conn: DuckDBConnection): Promise<void> {
  const r = await conn.runAndReadAll(`
    SELECT EXISTS (SELECT 1 FROM meta WHERE key IN ('billed_pending_from', 'kept_pending_from'))
        OR EXISTS (SELECT 1 FROM billed_pending) OR EXISTS (SELECT 1 FROM kept_pending) OR EXISTS (SELECT 1 FROM sessions_pending) AS pending`);
  const pending = (r.getRowObjectsJson()[0] as { pending: boolean }).pending;
  // A parent link that changed with nothing else (store/rollups.ts) moves prompts between root sessions.
  if (!pending && !(await linksDrifted(conn))) return;
  await conn.run('BEGIN TRANSACTION');
  try {
    await bumpGeneration(conn);
    await forgetSourcesDigest(conn);
    if (pending) await settleMarks(conn);
    else await refreshRollups(conn);
    await conn.run('COMMIT');
    committedWrites.count++;
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/**
 * Sources whose files are gone keep their rows, marked retained (history
 * outlives the transcripts: harnesses prune old ones); sources found again
 * lose the mark (their rows are then replaced only if the file changed, as
 * for any source). One transaction, only when there is something to mark;
 * returns how many sources are retained after it (null when nothing was marked).
 */
export async function markRetained(
  conn: DuckDBConnection,
  gone: string[],
  back: string[],
  now = Date.now(),
): Promise<number | null> {
  if (!gone.length && !back.length) return null;
  let retained = 0;
  await conn.run('BEGIN TRANSACTION');
  try {
    await bumpGeneration(conn);
    await forgetSourcesDigest(conn);
    if (gone.length) {
      const keys = { keys: listValue(gone) };
      const types = { keys: LIST_VARCHAR() };
      await conn.run(
        `UPDATE sources SET retained_since_ms = $now WHERE list_contains($keys, source_key)`,
        { ...keys, now: BigInt(now) },
        { ...types, now: BIGINT },
      );
      // A gone source that held no rows at all leaves no history: its bookkeeping goes.
      const empty = `list_contains($keys, source_key)
        AND source_key NOT IN (SELECT source_key FROM event_attrs) AND source_key NOT IN (SELECT source_key FROM context_rows)
        AND source_key NOT IN (SELECT source_key FROM session_estimates)`;
      await conn.run(
        `DELETE FROM source_issues WHERE source_key IN (SELECT source_key FROM sources WHERE ${empty})`,
        keys,
        types,
      );
      await conn.run(`DELETE FROM sources WHERE ${empty}`, keys, types);
    }
    if (back.length) {
      await conn.run(
        `UPDATE sources SET retained_since_ms = NULL WHERE list_contains($keys, source_key)`,
        { keys: listValue(back) },
        { keys: LIST_VARCHAR() },
      );
    }
    const r = await conn.runAndReadAll(
      `SELECT count(*)::INTEGER AS n FROM sources WHERE retained_since_ms IS NOT NULL`,
    );
    retained = Number((r.getRowObjectsJson()[0] as { n: number }).n);
    await conn.run('COMMIT');
    committedWrites.count++;
    return retained;
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
