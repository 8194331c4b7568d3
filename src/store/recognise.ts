// Telling a tx-usage store from anything else at `--db PATH`, and a damaged
// store from one that another program has open. tx-usage never deletes or
// rewrites a file it cannot show it made: what is not a store is left exactly
// as it is (bytes and mtime), and a store of ours that DuckDB cannot open is
// moved aside, never deleted.
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  type Stats,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from './duckdb.js';
import { NotAStoreError } from './errors.js';

/** The value of meta's `app` row in every store tx-usage creates (schema v4 on). */
export const STORE_MARKER = 'tx-usage';

/** Tables a store of schema v1-v3 (made before the marker existed) always has beside `meta`. */
const LEGACY_TABLES = ['meta', 'sources', 'source_issues', 'session_estimates', 'context_rows'];

/**
 * What `PATH` is before anything opens it: absent, or a regular file that
 * starts like a DuckDB database (its main header carries "DUCK" at byte 8).
 * A directory, a device, an empty file, a text file, a SQLite file... throw
 * NotAStoreError (exit 2) without being opened by DuckDB.
 */
export function inspectPath(path: string): Stats | null {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return null;
  if (st.isDirectory()) throw new NotAStoreError(path, 'a directory');
  if (!st.isFile()) throw new NotAStoreError(path, 'not a regular file');
  const head = Buffer.alloc(12);
  let n = 0;
  try {
    const fd = openSync(path, 'r');
    try {
      n = readSync(fd, head, 0, 12, 0);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw new NotAStoreError(path, `cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (n < 12 || head.toString('latin1', 8, 12) !== 'DUCK') throw new NotAStoreError(path, 'not a DuckDB database');
  return st;
}

export interface SchemaInfo {
  /** The store's tables and views (main schema); for a store carrying the marker, just `meta`. */
  tables: Set<string>;
  /** meta.schema_version, null without one. */
  version: number | null;
  /** Carries the marker, or is a store of schema v1-v3 (which had none): made by tx-usage. */
  ours: boolean;
}

/**
 * Reads what recognising a store needs, on an open connection. A store
 * carrying the marker is recognised from its meta rows alone; the catalog
 * (duckdb_tables(), ~15-25 ms) is read only for anything else.
 */
export async function schemaInfo(conn: DuckDBConnection): Promise<SchemaInfo> {
  try {
    const m = await conn.runAndReadAll(`SELECT key, value FROM main.meta WHERE key IN ('app', 'schema_version')`);
    const meta = new Map((m.getRowObjectsJson() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
    const v = meta.get('schema_version');
    if (meta.get('app') === STORE_MARKER && v !== undefined && /^\d+$/.test(v))
      return { tables: new Set(['meta']), version: Number(v), ours: true };
  } catch {
    /* no meta table: the catalog says what the file holds */
  }
  const t = await conn.runAndReadAll(
    `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'
     UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal`,
  );
  const tables = new Set((t.getRowObjectsJson() as { table_name: string }[]).map((r) => r.table_name));
  if (!tables.has('meta')) return { tables, version: null, ours: false };
  const m = await conn.runAndReadAll(`SELECT key, value FROM meta WHERE key IN ('app', 'schema_version')`);
  const meta = new Map((m.getRowObjectsJson() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
  const v = meta.get('schema_version');
  const version = v === undefined || !/^\d+$/.test(v) ? null : Number(v);
  const legacy = version !== null && version >= 1 && version <= 3 && LEGACY_TABLES.every((x) => tables.has(x));
  return { tables, version, ours: meta.get('app') === STORE_MARKER || legacy };
}

/**
 * Opens `path` read-only (DuckDB then writes nothing, WAL included) and says
 * whether it is a tx-usage store; `error` is set when DuckDB cannot open it.
 */
export async function probeReadOnly(path: string): Promise<{ info: SchemaInfo | null; error: string | null }> {
  let inst: DuckDBInstance | null = null;
  try {
    inst = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY', threads: '1' });
    const conn = await inst.connect();
    try {
      return { info: await schemaInfo(conn), error: null };
    } finally {
      conn.closeSync();
    }
  } catch (e) {
    return { info: null, error: firstLine(e) };
  } finally {
    inst?.closeSync();
  }
}

/**
 * Whether a copy of the store (with its WAL) opens and reads: called when
 * DuckDB failed to open the store itself while this process holds the
 * store's lock (lock.ts), so no other tx-usage has it. A copy carries no
 * lock: if it reads, the store is intact and some other program holds it;
 * if not, the file itself is damaged.
 */
export async function copyReads(path: string): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'tx-usage-check-'));
  try {
    const copy = join(dir, 'store.duckdb');
    copyFileSync(path, copy);
    if (existsSync(`${path}.wal`)) copyFileSync(`${path}.wal`, `${copy}.wal`);
    const { info } = await probeReadOnly(copy);
    return info !== null;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Moves the store and its WAL aside as `PATH.<label>-<time>` (and `.wal`):
 * what it holds (history whose transcripts are gone, perhaps) stays on disk
 * for the user. Returns the new name.
 */
export function moveAside(path: string, label: string, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  let target = `${path}.${label}-${stamp}`;
  for (let i = 2; existsSync(target) || existsSync(`${target}.wal`); i++) target = `${path}.${label}-${stamp}-${i}`;
  renameSync(path, target);
  if (existsSync(`${path}.wal`)) renameSync(`${path}.wal`, `${target}.wal`);
  return target;
}

export function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0]!;
}
