// Opening the DuckDB store: create it (schema.ts), rebuild it when it is
// unreadable or older than this build, wait while another tx-usage holds it.
import { DuckDBInstance, VARCHAR, type DuckDBConnection } from './duckdb.js';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

export interface Store {
  path: string;
  conn: DuckDBConnection;
  /** Set when the store was (re)created in this run; the caller shows it as a notice. */
  notice: string | null;
  /**
   * Starts a checkpoint when the WAL has grown large (call after writing; see
   * openStore). It runs on a connection of its own, alongside whatever reads
   * the caller goes on with; close() waits for it.
   */
  settle(): void;
  /** Another connection to the store, for queries run side by side with the main one's; closed by close(). */
  connect(): Promise<DuckDBConnection>;
  /** Closes the store, once a checkpoint settle() started has ended (at once when none runs). */
  close(): Promise<void>;
}

import { StoreError } from './errors.js';

export { StoreError };

const LOCK_WAIT_MS = 60_000;

function isLockError(e: unknown): boolean {
  return /lock|Conflicting lock|used by another process/i.test(String((e as Error)?.message ?? e));
}

/** How many opens waited for another process's lock (openStore: a store that appeared meanwhile is not assumed empty). */
let lockWaits = 0;

async function openInstance(path: string, threads = 2): Promise<DuckDBInstance> {
  const started = Date.now();
  let delay = 50;
  for (;;) {
    try {
      return await DuckDBInstance.create(path, { threads: String(threads) });
    } catch (e) {
      // Another tx-usage process holds the store: wait for it instead of failing.
      if (isLockError(e) && Date.now() - started < LOCK_WAIT_MS) {
        lockWaits++;
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 500);
        continue;
      }
      throw e;
    }
  }
}

async function schemaVersion(conn: DuckDBConnection): Promise<number | null> {
  const t = await conn.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'meta'`);
  if (Number(t.getRowObjectsJson()[0]!.n) === 0) return null;
  const r = await conn.runAndReadAll(`SELECT value FROM meta WHERE key = 'schema_version'`);
  const row = r.getRowObjectsJson()[0];
  return row ? Number(row.value) : 0;
}

/**
 * Creates the schema in a new store: every migration in order, then the meta
 * rows. An older store is rebuilt from the sources rather than migrated (see
 * openStore), so the migrations only ever run from the start.
 */
async function createSchema(conn: DuckDBConnection, meta: Record<string, string>): Promise<void> {
  await conn.run('BEGIN TRANSACTION');
  try {
    for (const ddl of MIGRATIONS) await conn.run(ddl);
    const rows: Record<string, string> = { ...meta, schema_version: String(SCHEMA_VERSION) };
    const keys = Object.keys(rows);
    await conn.run(
      `INSERT OR REPLACE INTO meta VALUES ${keys.map((_, i) => `($k${i}, $v${i})`).join(', ')}`,
      Object.fromEntries(keys.flatMap((k, i) => [[`k${i}`, k], [`v${i}`, rows[k]!]])),
      Object.fromEntries(keys.flatMap((_, i) => [[`k${i}`, VARCHAR], [`v${i}`, VARCHAR]])),
    );
    await conn.run('COMMIT');
  } catch (e) {
    // What failed is what to report: a ROLLBACK after a failed COMMIT (or
    // after DuckDB ended the transaction itself) fails too, "no transaction".
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

function removeStoreFiles(path: string): void {
  for (const p of [path, path + '.wal']) rmSync(p, { force: true });
}

/**
 * Opens (creating if needed) the store at `path`. The store is a cache derived
 * from the harness files, so an unreadable or outdated one is rebuilt from the
 * sources; one written by a NEWER tx-usage is left alone unless `rebuild`.
 */
export async function openStore(
  path: string,
  opts: {
    rebuild?: boolean;
    /** Meta rows a store created by this call starts with (see pricingMetaOf, cli/pricing.ts). */
    createdMeta?: Record<string, string>;
    /** DuckDB's threads (default 2). */
    threads?: number;
  } = {},
): Promise<Store> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let notice: string | null = null;
  if (opts.rebuild && path !== ':memory:' && existsSync(path)) {
    removeStoreFiles(path);
    notice = `store ${path} rebuilt from the sources (--rebuild)`;
  }
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  let version: number | null;
  try {
    // A file that was not there holds no schema: no query needed to say so
    // (unless another process created it while this one waited for its lock).
    const absent = path === ':memory:' || !existsSync(path);
    const waits = lockWaits;
    instance = await openInstance(path, opts.threads);
    conn = await instance.connect();
    version = absent && lockWaits === waits ? null : await schemaVersion(conn);
  } catch (e) {
    if (isLockError(e)) throw new StoreError(`the store ${path} is in use by another process; try again when it finishes`);
    // Unreadable (corrupt, truncated, not a DuckDB file): it only caches
    // what the sources say, so start it afresh.
    removeStoreFiles(path);
    notice = `store ${path} was unreadable (${String((e as Error).message).split('\n')[0]}); rebuilt from the sources`;
    instance = await openInstance(path, opts.threads);
    conn = await instance.connect();
    version = null;
  }
  if (version !== null && version > SCHEMA_VERSION) {
    conn.closeSync();
    instance.closeSync();
    throw new StoreError(
      `the store ${path} was written by a newer tx-usage (schema ${version}, this build knows ${SCHEMA_VERSION}); ` +
        `run with --rebuild to rebuild it from the sources, or use --db to choose another store`,
    );
  }
  if (version !== null && version < SCHEMA_VERSION) {
    // Derived data: dropping and re-reading is simpler and safer than
    // transforming rows whose meaning changed.
    conn.closeSync();
    instance.closeSync();
    removeStoreFiles(path);
    notice = `store ${path} was from an older tx-usage (schema ${version}); rebuilt from the sources`;
    instance = await openInstance(path, opts.threads);
    conn = await instance.connect();
    version = null;
  }
  if (version === null) await createSchema(conn, opts.createdMeta ?? {});
  // A checkpoint at close rewrote the row groups a run had touched: about
  // 50 ms after appending ten rows. Small changes stay in the WAL instead,
  // replayed by the next open in a few milliseconds; settle() checkpoints
  // once the WAL has grown (and DuckDB itself does past its 16 MB threshold).
  if (path !== ':memory:') {
    await conn.run('PRAGMA disable_checkpoint_on_shutdown');
    // No automatic checkpoint in the middle of an ingest (one cost half a
    // second of a cold run, competing with extraction): settle() does one.
    await conn.run(`SET checkpoint_threshold = '1GB'`);
    // FSST (string compression) analysed at every checkpoint cost 30 of the
    // 80 ms a cold run's checkpoint took (benchmark store); dictionary
    // compression still applies. The store is ~20% larger (6.6 -> 7.9 MB).
    await conn.run(`SET disabled_compression_methods = 'fsst'`);
  }
  const inst = instance;
  const c = conn;
  let settling: Promise<void> | null = null;
  const others: DuckDBConnection[] = [];
  return {
    path,
    conn: c,
    notice,
    settle() {
      if (settling || path === ':memory:' || walBytes(path) <= SETTLE_WAL_BYTES) return;
      // A checkpoint does not change what the store holds, and DuckDB lets
      // other connections read meanwhile: a report's queries overlap it (on a
      // 2-core machine the cold run's checkpoint and its report queries took
      // ~45 ms one after the other). Should it fail, the WAL stays and the
      // next open replays it: nothing is lost.
      settling = inst
        .connect()
        .then(async (ck) => {
          try {
            await ck.run('CHECKPOINT');
          } finally {
            ck.closeSync();
          }
        })
        .catch((e: unknown) => {
          if (process.env.TX_USAGE_DEBUG) process.stderr.write(`tx-usage: checkpoint left for a later run: ${(e as Error)?.message ?? String(e)}\n`);
        });
    },
    async connect() {
      const o = await inst.connect();
      others.push(o);
      return o;
    },
    async close() {
      if (settling) await settling;
      for (const o of others) o.closeSync();
      c.closeSync();
      inst.closeSync();
    },
  };
}

/** WAL size past which settle() checkpoints (replaying more than this would cost the next run more than the checkpoint costs this one). */
const SETTLE_WAL_BYTES = 4 << 20;

function walBytes(path: string): number {
  try {
    return statSync(path + '.wal').size;
  } catch {
    return 0;
  }
}
