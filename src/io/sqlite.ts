// Read-only SQLite access for harness databases (OpenCode, Cursor).
// Rules: never write, checkpoint or migrate the user's database, never create
// files next to it. The only file SQLite may touch is an EXISTING `-shm`
// wal-index, which every reader updates.
import Database from 'better-sqlite3';
import { closeSync, copyFileSync, existsSync, mkdtempSync, readSync, rmSync } from 'node:fs';
import { openRegular, refuseNonRegular } from './regular-file.js';
import { basename, join } from 'node:path';
import type { SessionFact, UsageEvent, WorkUnit } from '../core/types.js';
import type { ExtractSink } from '../harnesses/types.js';

export type SqliteDb = Database.Database;

/**
 * Why a private copy was read instead of the user's file:
 * - 'wal-files-missing': WAL mode without both -wal and -shm (opening in place would create them);
 * - 'locked': another connection holds a lock that blocks readers (SQLITE_BUSY/LOCKED);
 * - 'cannot-open': e.g. a read-only directory or a -shm this user may not write.
 * Callers warn on 'locked' (the copy is a snapshot of a database being written).
 */
export type CopyReason = 'wal-files-missing' | 'locked' | 'cannot-open';

export interface ReadOnlyDb {
  db: SqliteDb;
  /** True when a private copy was opened instead of the user's file. */
  copied: boolean;
  /** Set when copied. */
  copyReason: CopyReason | null;
  close(): void;
}

function openCopy(path: string, tmpDir: string, reason: CopyReason): ReadOnlyDb {
  const dir = mkdtempSync(join(tmpDir, 'sqlite-'));
  const copy = join(dir, basename(path));
  copyFileSync(path, copy);
  if (existsSync(path + '-wal')) copyFileSync(path + '-wal', copy + '-wal');
  // A rollback-mode database locked mid-write has uncommitted pages in the main
  // file and the originals in its hot -journal: with the journal beside it the
  // copy rolls back to the last committed state when opened.
  if (existsSync(path + '-journal')) copyFileSync(path + '-journal', copy + '-journal');
  // The copy is ours: SQLite may create its -shm there and replay the WAL.
  let opened: SqliteDb | null = null;
  try {
    opened = new Database(copy, { fileMustExist: true, timeout: 1000 });
    // Opening is lazy: touch the schema now so a bad file fails here (and the copy is removed).
    opened.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (e) {
    opened?.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const db = opened;
  return {
    db,
    copied: true,
    copyReason: reason,
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
 * True when the database header says WAL mode (file-format bytes 18/19 are 2).
 * Unreadable or short files count as "not WAL" and fail later with SQLite's error.
 */
function headerSaysWal(path: string): boolean {
  let fd: number | null = null;
  try {
    fd = openRegular(path);
    const head = Buffer.alloc(20);
    const n = readSync(fd, head, 0, 20, 0);
    return n === 20 && (head[18] === 2 || head[19] === 2);
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * Opens `path` read-only with its WAL honoured. A read-only connection to a
 * WAL-mode database CREATES whichever of `-wal` / `-shm` is missing beside the
 * user's file (verified with SQLite 3.51: with neither present it creates
 * both; with only `-wal` it creates `-shm`). So the user's file is opened in
 * place only when it is not in WAL mode, or when both `-wal` and `-shm`
 * already exist; otherwise the database (and its `-wal`, if any) is copied
 * into a private temporary directory and the copy is opened, so committed WAL
 * content is still seen. Throws with a clear message when the file is not a
 * readable SQLite database.
 */
export function openSqliteReadOnly(path: string, tmpDir: string): ReadOnlyDb {
  // SQLite opens these itself, blocking: a FIFO there waits for ever, a link
  // to /dev/zero reads as an empty WAL (committed rows silently missing).
  // Each must be a regular file, or the database is not read at all.
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    try {
      refuseNonRegular(path + suffix);
    } catch (e) {
      if (suffix)
        (e as Error).message =
          `its ${suffix.slice(1)} file ${path + suffix} is ${(e as Error).message.replace(/; never read$/, '')}; database never read`;
      throw e;
    }
  }
  const hasWal = existsSync(path + '-wal');
  const hasShm = existsSync(path + '-shm');
  const inPlace = hasWal ? hasShm : !headerSaysWal(path);
  if (!inPlace) return openCopy(path, tmpDir, 'wal-files-missing');
  let db: SqliteDb | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 1000 });
    // Opening is lazy: touch the schema now so a bad file fails here.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    const opened = db;
    return { db: opened, copied: false, copyReason: null, close: () => opened.close() };
  } catch (e) {
    db?.close();
    const code = (e as { code?: string }).code ?? '';
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw e;
    // Busy/locked or cannot-open (e.g. a read-only directory or a -shm we may
    // not write): read a private copy instead.
    const locked = code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
    return openCopy(path, tmpDir, locked ? 'locked' : 'cannot-open');
  }
}

/** What one read of a harness database found; a reader may add its own fields (a state for the next read). */
export interface DatabaseRead {
  events: UsageEvent[];
  units?: WorkUnit[];
  facts?: SessionFact[];
}

/**
 * Reads the harness database `file` from one snapshot and hands what `read`
 * found to `sink`: opened through openSqliteReadOnly (a locked database is
 * read from a private copy, and the sink warned), every query of `read` in one
 * read transaction (rows from one instant while the harness commits), closed
 * whatever happens, and nothing emitted unless every query succeeded (a
 * database failing midway adds nothing partial). Returns the read.
 */
export function readSqliteSnapshot<R extends DatabaseRead>(
  file: string,
  tmpDir: string,
  sink: ExtractSink,
  read: (db: SqliteDb) => R,
): R {
  const handle = openSqliteReadOnly(file, tmpDir);
  let out: R;
  try {
    if (handle.copyReason === 'locked')
      sink.warn('database is locked by another connection; read a private snapshot copy of it', { file });
    out = handle.db.transaction(() => read(handle.db))();
  } finally {
    handle.close();
  }
  for (const e of out.events) sink.event(e);
  for (const u of out.units ?? []) sink.unit(u);
  for (const f of out.facts ?? []) sink.sessionFact(f);
  return out;
}
