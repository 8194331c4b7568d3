// Read-only SQLite access for harness databases (OpenCode, Cursor).
// Rules: never write, checkpoint or migrate the user's database, never create
// files next to it. The only file SQLite may touch is an EXISTING `-shm`
// wal-index, which every reader updates.
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';

export type SqliteDb = Database.Database;

export interface ReadOnlyDb {
  db: SqliteDb;
  /** True when a private copy was opened instead of the user's file. */
  copied: boolean;
  close(): void;
}

function openCopy(path: string, tmpDir: string): ReadOnlyDb {
  const dir = mkdtempSync(join(tmpDir, 'sqlite-'));
  const copy = join(dir, basename(path));
  copyFileSync(path, copy);
  if (existsSync(path + '-wal')) copyFileSync(path + '-wal', copy + '-wal');
  // The copy is ours: SQLite may create its -shm there and replay the WAL.
  const db = new Database(copy, { fileMustExist: true, timeout: 1000 });
  return {
    db,
    copied: true,
    close() {
      try {
        db.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Opens `path` read-only with its WAL honoured. When a `-wal` exists without
 * a `-shm`, a read-only open cannot build the wal-index (and must not create
 * one beside the user's file), so the database and its WAL are copied into a
 * private temporary directory and the copy is opened. Throws with a clear
 * message when the file is not a readable SQLite database.
 */
export function openSqliteReadOnly(path: string, tmpDir: string): ReadOnlyDb {
  const hasWal = existsSync(path + '-wal');
  const hasShm = existsSync(path + '-shm');
  if (hasWal && !hasShm) return openCopy(path, tmpDir);
  let db: SqliteDb | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 1000 });
    // Opening is lazy: touch the schema now so a bad file fails here.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    const opened = db;
    return { db: opened, copied: false, close: () => opened.close() };
  } catch (e) {
    db?.close();
    const code = (e as { code?: string }).code ?? '';
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw e;
    // Busy/locked or cannot-open (e.g. a WAL database without -wal/-shm in a
    // read-only directory): read a private copy instead.
    return openCopy(path, tmpDir);
  }
}
