// Opening the DuckDB store: create it (schema.ts), migrate it in place when
// it is older than this build, wait while another tx-usage holds it (lock.ts),
// and never open for writing, rebuild or delete a file that is not a store
// tx-usage made (recognise.ts).
import { DuckDBInstance, VARCHAR, type DuckDBConnection } from './duckdb.js';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MIGRATIONS, OLDEST_MIGRATED, SCHEMA_VERSION } from './schema.js';
import { lockPathOf, lockStore, type StoreLock } from './lock.js';
import {
  copyReads,
  firstLine,
  inspectPath,
  moveAside,
  probeReadOnly,
  schemaInfo,
  STORE_MARKER,
  type SchemaInfo,
} from './recognise.js';
import {
  NotAStoreError,
  ReadOnlyStoreError,
  readOnlyProblem,
  readOnlyStoreError,
  StoreError,
  storeFolderError,
} from './errors.js';
import { counted } from '../core/plural.js';

export { NotAStoreError, ReadOnlyStoreError, StoreError };

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
  /** Closes the store, once a checkpoint settle() started has ended (at once when none runs), and releases its lock. */
  close(): Promise<void>;
}

/**
 * Creates the schema in a new store: every migration in order, then the meta
 * rows (the marker among them, from the v4 migration).
 */
async function createSchema(conn: DuckDBConnection, meta: Record<string, string>): Promise<void> {
  await inTransaction(conn, async () => {
    for (const ddl of MIGRATIONS) await conn.run(ddl);
    await setMeta(conn, { ...meta, app: STORE_MARKER, schema_version: String(SCHEMA_VERSION) });
  });
}

/**
 * Brings a store of schema `from` (OLDEST_MIGRATED or later) to this build's
 * schema in place, one migration per transaction together with its version
 * number: an interrupted migration leaves the store at the last version it
 * reached, whole. (Not all in one: DuckDB refuses to commit a transaction
 * that updated a table's rows and then altered it, as v7 then v8 do.)
 */
async function migrate(conn: DuckDBConnection, from: number): Promise<void> {
  for (let v = from; v < SCHEMA_VERSION; v++) {
    await inTransaction(conn, async () => {
      await conn.run(MIGRATIONS[v]!);
      await setMeta(conn, { app: STORE_MARKER, schema_version: String(v + 1) });
    });
  }
}

async function setMeta(conn: DuckDBConnection, rows: Record<string, string>): Promise<void> {
  const keys = Object.keys(rows);
  await conn.run(
    `INSERT OR REPLACE INTO meta VALUES ${keys.map((_, i) => `($k${i}, $v${i})`).join(', ')}`,
    Object.fromEntries(
      keys.flatMap((k, i) => [
        [`k${i}`, k],
        [`v${i}`, rows[k]!],
      ]),
    ),
    Object.fromEntries(
      keys.flatMap((_, i) => [
        [`k${i}`, VARCHAR],
        [`v${i}`, VARCHAR],
      ]),
    ),
  );
}

async function inTransaction(conn: DuckDBConnection, body: () => Promise<void>): Promise<void> {
  await conn.run('BEGIN TRANSACTION');
  try {
    await body();
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

/** Suffix of a store being made (`PATH.creating-<pid>`), renamed to PATH once whole. */
const CREATING = '.creating-';

/**
 * Removes stores left half-made beside PATH by runs killed while making
 * them: files tx-usage made, named PATH.creating-<pid> (and their WAL). The
 * caller holds the store's exclusive lock, so no other run is making one.
 */
function removeCreating(path: string): void {
  const dir = dirname(path);
  const prefix = basename(path) + CREATING;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names)
    if (n.startsWith(prefix) && /^\d+(\.wal)?$/.test(n.slice(prefix.length))) rmSync(join(dir, n), { force: true });
}

function describeNewer(path: string, version: number): StoreError {
  return new StoreError(
    `the store ${path} was written by a newer tx-usage (schema ${version}, this build knows ${SCHEMA_VERSION}); ` +
      `run with --rebuild to rebuild it from the sources, or use --db to choose another store`,
  );
}

/**
 * DuckDB settings for a command-line run. DuckDB's defaults suit a server:
 * every core, and a buffer pool up to 80% of RAM. A report is a few scans of
 * the store; two threads, and a memory limit past which DuckDB spills to its
 * temporary folder (PATH.tmp) rather than grow: what a report or an ingest
 * holds stays far below it (~30 MB of DuckDB memory for a report over 190k
 * responses, ~100 MB over 1M), while one-off work on a large store (the v7
 * migration marking 1M rows took 1.2 GB without it) is bounded.
 */
export const CLI_DUCKDB = { threads: '2', memory_limit: '512MB' } as const;

export interface OpenOptions {
  /** `--rebuild`: discard the store (tx-usage's own, checked first) and re-read every source. */
  rebuild?: boolean;
  /** `--yes`: --rebuild may drop retained history (rows of transcripts that are gone). */
  yes?: boolean;
  /** Meta rows a store created by this call starts with (see pricingMetaOf, cli/pricing.ts). */
  createdMeta?: Record<string, string>;
  /** DuckDB's threads (default 2). */
  threads?: number;
}

/**
 * Opens (creating if needed) the store at `path` for reading and writing.
 *
 * - Anything at `path` that is not a tx-usage store (a directory, a text
 *   file, another program's DuckDB database) is left untouched: NotAStoreError
 *   (exit 2). A file is opened for writing only once it is known to be ours:
 *   created by tx-usage (its identity is in the lock file, lock.ts) or shown
 *   to carry the store's marker by a read-only open (which writes nothing).
 * - The store's lock is taken first: another tx-usage using the store is
 *   waited for, told apart by the lock's error code, never by message text.
 * - A store of ours that DuckDB cannot open while no tx-usage holds it is
 *   either in use by some other program (a copy of it reads: exit 1, nothing
 *   touched) or damaged (moved aside as PATH.broken-<time>, never deleted).
 * - An older schema is migrated in place; one older than OLDEST_MIGRATED is
 *   moved aside; a newer one is refused.
 */
export async function openStore(path: string, opts: OpenOptions = {}): Promise<Store> {
  if (path === ':memory:') {
    const instance = await DuckDBInstance.create(path, { ...CLI_DUCKDB, threads: String(opts.threads ?? 2) });
    const conn = await instance.connect();
    await createSchema(conn, opts.createdMeta ?? {});
    return await handle(path, instance, conn, null, null);
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    throw storeFolderError(path, dirname(path), e);
  }
  // Before any lock file is made beside it: a directory, a text file... is refused as it is.
  inspectPath(path);
  const lock = await lockStore(path, 'exclusive');
  try {
    const opened = await openLocked(path, lock, opts);
    return await handle(path, opened.instance, opened.conn, opened.notice, lock);
  } catch (e) {
    lock.release();
    // A lock file made beside something that is not a store goes again: the path stays as it was.
    if (e instanceof NotAStoreError && lock.created) rmSync(lockPathOf(path), { force: true });
    throw e;
  }
}

async function openLocked(
  path: string,
  lock: StoreLock,
  opts: OpenOptions,
): Promise<{ instance: DuckDBInstance; conn: DuckDBConnection; notice: string | null }> {
  const threads = { ...CLI_DUCKDB, threads: String(opts.threads ?? 2) };
  let notice: string | null = null;
  // Again, now that the lock is held: another tx-usage may have made or changed it meanwhile.
  let st = inspectPath(path);
  if (st && !lock.knows(st)) {
    // Not made (or seen) by tx-usage through this lock file: a store made
    // before the lock file existed, or some other program's file.
    const { info, error } = await probeReadOnly(path);
    if (!info?.ours)
      throw new NotAStoreError(
        path,
        error ? `DuckDB cannot open it: ${error}` : "a DuckDB database without tx-usage's marker",
      );
    lock.remember(st);
  }
  if (st && opts.rebuild) {
    // Rows of transcripts no longer found cannot be read again from the searched folders: dropped only
    // when the user says so. Whether the files still exist elsewhere is not known, so not said.
    const kept = await retainedHistory(path);
    if (kept === null) {
      const aside = moveAside(path, 'broken');
      notice = `store ${path} was unreadable; moved aside to ${aside}, and rebuilt from the sources (--rebuild)`;
    } else {
      if (kept.sources > 0 && !opts.yes) {
        throw new StoreError(
          `--rebuild would drop history it cannot read again: ${kept.sources} source${kept.sources === 1 ? '' : 's'} no longer found in the searched folders ` +
            `(${counted(kept.responses, 'response')}) ${kept.sources === 1 ? 'is' : 'are'} kept in ${path}; add --yes to rebuild anyway (tx-usage sources lists them)`,
          2,
        );
      }
      removeStoreFiles(path);
      notice =
        `store ${path} rebuilt from the sources (--rebuild)` +
        (kept.sources
          ? `; the history of ${counted(kept.sources, 'source')} no longer found in the searched folders was dropped (--yes)`
          : '');
    }
    lock.forget();
    st = null;
  }
  const create = async () => {
    // Made whole beside PATH, then renamed into place: a run killed while it
    // is made leaves nothing at PATH. (Made at PATH, a kill between DuckDB's
    // creating the file and the lock's remembering it left an empty DuckDB
    // file the next run could not tell from another program's, and refused.)
    removeCreating(path);
    const tmp = `${path}${CREATING}${process.pid}`;
    const made = await DuckDBInstance.create(tmp, threads);
    try {
      const c = await made.connect();
      try {
        await createSchema(c, opts.createdMeta ?? {});
      } finally {
        c.closeSync();
      }
    } finally {
      made.closeSync();
    }
    if (existsSync(`${tmp}.wal`)) renameSync(`${tmp}.wal`, `${path}.wal`);
    renameSync(tmp, path);
    lock.remember(statSync(path));
    const instance = await DuckDBInstance.create(path, threads);
    const conn = await instance.connect();
    return { instance, conn };
  };
  if (!st) return { ...(await create()), notice };

  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  let info: SchemaInfo;
  try {
    instance = await DuckDBInstance.create(path, threads);
    conn = await instance.connect();
    try {
      info = await schemaInfo(conn);
    } catch (e) {
      conn.closeSync();
      instance.closeSync();
      throw e;
    }
  } catch (e) {
    // No tx-usage holds the store (this process has its lock): read-only for this user, in use by another program, or damaged.
    const readOnly = readOnlyProblem(path);
    if (readOnly) throw readOnlyStoreError(path, readOnly);
    if (await copyReads(path)) {
      throw new StoreError(
        `the store ${path} is open in another program (not tx-usage): close it and try again (${firstLine(e)})`,
      );
    }
    const aside = moveAside(path, 'broken');
    lock.forget();
    return {
      ...(await create()),
      notice: `store ${path} was unreadable (${firstLine(e)}); moved aside to ${aside}, and a new one is built from the sources`,
    };
  }
  const close = () => {
    conn.closeSync();
    instance.closeSync();
  };
  if (info.tables.size === 0) {
    // Known to be ours (above) and empty: a first run stopped before its schema was made.
    await createSchema(conn, opts.createdMeta ?? {});
    return { instance, conn, notice };
  }
  if (!info.ours) {
    close();
    throw new NotAStoreError(path, "a DuckDB database without tx-usage's marker");
  }
  const version = info.version ?? 0;
  if (version > SCHEMA_VERSION) {
    close();
    throw describeNewer(path, version);
  }
  if (version < OLDEST_MIGRATED) {
    close();
    const aside = moveAside(path, `v${version}`);
    lock.forget();
    return {
      ...(await create()),
      notice: `store ${path} was from a much older tx-usage (schema ${version}); moved aside to ${aside}, and a new one is built from the sources`,
    };
  }
  if (version < SCHEMA_VERSION) await migrate(conn, version);
  return { instance, conn, notice };
}

/** What a store keeps of sources whose files are gone (read-only), or null when it cannot be read. */
async function retainedHistory(path: string): Promise<{ sources: number; responses: number } | null> {
  let inst: DuckDBInstance | null = null;
  try {
    inst = await DuckDBInstance.create(path, { ...CLI_DUCKDB, access_mode: 'READ_ONLY', threads: '1' });
    const conn = await inst.connect();
    try {
      // (Stores made before v5 have no retained sources.)
      const cols = await conn.runAndReadAll(
        `SELECT count(*) AS n FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'sources' AND column_name = 'retained_since_ms'`,
      );
      if (Number(cols.getRowObjectsJson()[0]!.n) === 0) return { sources: 0, responses: 0 };
      const r = await conn.runAndReadAll(`
        SELECT (SELECT count(*) FROM sources WHERE retained_since_ms IS NOT NULL) AS sources,
               (SELECT count(*) FROM usage_events WHERE source_key IN (SELECT source_key FROM sources WHERE retained_since_ms IS NOT NULL)) AS responses`);
      const row = r.getRowObjectsJson()[0] as { sources: string; responses: string };
      return { sources: Number(row.sources), responses: Number(row.responses) };
    } finally {
      conn.closeSync();
    }
  } catch {
    return null;
  } finally {
    inst?.closeSync();
  }
}

async function handle(
  path: string,
  instance: DuckDBInstance,
  conn: DuckDBConnection,
  notice: string | null,
  lock: StoreLock | null,
  readOnly = false,
): Promise<Store> {
  // A checkpoint at close rewrote the row groups a run had touched: about
  // 50 ms after appending ten rows. Small changes stay in the WAL instead,
  // replayed by the next open in a few milliseconds; settle() checkpoints
  // once the WAL has grown (and DuckDB itself does past its 16 MB threshold).
  if (path !== ':memory:' && !readOnly) {
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
  let closed = false;
  const others: DuckDBConnection[] = [];
  return {
    path,
    conn: c,
    notice,
    settle() {
      if (settling || readOnly || path === ':memory:' || walBytes(path) <= SETTLE_WAL_BYTES) return;
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
          if (process.env.TX_USAGE_DEBUG)
            process.stderr.write(`tx-usage: checkpoint left for a later run: ${(e as Error)?.message ?? String(e)}\n`);
        });
    },
    async connect() {
      const o = await inst.connect();
      others.push(o);
      return o;
    },
    async close() {
      // Once: a store a long-running process kept open (cli/answers.ts) may be closed by more than one path.
      if (closed) return;
      closed = true;
      if (settling) await settling;
      for (const o of others) o.closeSync();
      c.closeSync();
      inst.closeSync();
      lock?.release();
    },
  };
}

/**
 * WAL size past which settle() checkpoints. Every open replays the WAL until
 * a checkpoint folds it into the store, and a store is usually opened many
 * times between writes (each report, each new question): a 2.7 MB WAL (a cold
 * ingest of the 256 MB benchmark corpus) made every later open ~50-70 ms
 * slower (open 84-110 ms instead of ~35), more than its one checkpoint costs
 * the run that wrote it (it overlaps the report's queries). An append of a
 * few responses (a few KB) still leaves its rows in the WAL.
 */
const SETTLE_WAL_BYTES = 1 << 20;

function walBytes(path: string): number {
  try {
    return statSync(path + '.wal').size;
  } catch {
    return 0;
  }
}

/**
 * Opens an existing, current store read-only (DuckDB writes nothing, not
 * even its WAL), with the store's lock held shared: other readers may open it
 * too, a writer waits. `config` adds DuckDB settings (the `sql` command's
 * protections). Returns null when the store cannot be read as it is — absent,
 * of another schema version, or not yet seen by this lock file — so that the
 * caller opens it with openStore (which creates, migrates or recognises it).
 * Throws NotAStoreError for anything that is not a store.
 *
 * `withoutLockFile`: a store in a folder this user cannot write (shared from
 * another machine, `chmod -w`) may have no lock file, and none can be made:
 * it is then opened without one. DuckDB's own lock still keeps a writer out
 * while it is open (a READ_ONLY open takes a shared lock on the file) and
 * makes the open fail while one writes; the caller then says what openStore
 * said.
 */
export async function openStoreReadOnly(
  path: string,
  config: Record<string, string> = {},
  o: { withoutLockFile?: boolean } = {},
): Promise<Store | null> {
  if (path === ':memory:' || !inspectPath(path)) return null;
  let lock: StoreLock | null = null;
  try {
    lock = await lockStore(path, 'shared');
  } catch (e) {
    if (!(o.withoutLockFile && e instanceof ReadOnlyStoreError && !existsSync(lockPathOf(path)))) throw e;
  }
  try {
    const st = inspectPath(path);
    if (!st) {
      lock?.release();
      return null;
    }
    let instance: DuckDBInstance;
    try {
      instance = await DuckDBInstance.create(path, { ...CLI_DUCKDB, ...config, access_mode: 'READ_ONLY' });
    } catch {
      // Damaged, or held by another program: openStore tells which.
      lock?.release();
      return null;
    }
    const conn = await instance.connect();
    const info = await schemaInfo(conn).catch(() => null);
    if (!info?.ours || info.version !== SCHEMA_VERSION) {
      const foreign = info !== null && !info.ours && info.tables.size > 0;
      conn.closeSync();
      instance.closeSync();
      lock?.release();
      if (foreign) throw new NotAStoreError(path, "a DuckDB database without tx-usage's marker");
      return null;
    }
    return await handle(path, instance, conn, null, lock, true);
  } catch (e) {
    lock?.release();
    throw e;
  }
}
