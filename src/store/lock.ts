// The store's own lock, and its record of which file it created.
//
// DuckDB locks its database file itself, but when that lock is taken by
// another process DuckDB's open fails with an untyped error whose only
// distinction from a corrupt file is its message text. A tx-usage that told
// the two apart by matching that text would, after a DuckDB upgrade that
// reworded it, treat a store in use as a broken one. So every tx-usage takes
// this lock BEFORE DuckDB opens the store, and the question "is another
// tx-usage using it?" is answered by the lock's typed error code:
//
//   PATH.lock, a small SQLite database (better-sqlite3, a dependency already)
//   in EXCLUSIVE locking mode. A writer holds SQLite's exclusive lock on it, a
//   reader (`tx-usage sql`, a report with nothing to write) a shared one, for
//   as long as it has the store open. Another tx-usage gets SQLITE_BUSY (the
//   error's `code`, not its text) and waits. The OS drops the lock when its
//   process ends, however it ends: no stale lock files.
//
// With this lock held, a DuckDB open that still fails has one of two causes
// left: a program that is not tx-usage has the file open, or the file is
// damaged. store.ts tells those apart by opening a copy (see openStore).
//
// The lock file also remembers the identity (device, inode, birth time) of
// the store file tx-usage created or recognised at PATH: a file with that
// identity is known to be ours without opening it read-only first; anything
// else is checked for the store's marker before it is opened for writing.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { readFileSync, statSync, type Stats } from 'node:fs';
import { readOnlyProblem, readOnlyStoreError, StoreError } from './errors.js';

export type LockMode = 'shared' | 'exclusive';

/** How long a command waits for another tx-usage to finish with the store (TX_USAGE_LOCK_WAIT_MS overrides). */
export const LOCK_WAIT_MS = 60_000;
/** After this long waiting, the wait is said on stderr (what for, and on which process). */
const SAY_WAIT_AFTER_MS = 1_000;

function lockWaitMs(): number {
  const v = Number(process.env.TX_USAGE_LOCK_WAIT_MS);
  return Number.isFinite(v) && v >= 0 ? v : LOCK_WAIT_MS;
}

/** The process holding a lock on the file, from the system's lock table (Linux /proc/locks), when it can be told. */
export interface LockHolder {
  pid: number;
  /** Its command line, when readable. */
  command: string | null;
}

/**
 * Who holds an advisory lock on the file `path` (SQLite's locks are POSIX
 * advisory locks, listed with the file's inode in /proc/locks). Null where
 * there is no such table (macOS, Windows) or nobody else is listed.
 */
export function lockHolder(path: string): LockHolder | null {
  let table: string;
  let st: Stats;
  try {
    st = statSync(path);
    table = readFileSync('/proc/locks', 'latin1');
  } catch {
    return null;
  }
  for (const line of table.split('\n')) {
    // `1: POSIX  ADVISORY  WRITE 20330 fe:00:2253072 1073741824 1073742335`
    const m = /^\d+: (?:POSIX|OFDLCK)\s+\S+\s+\S+\s+(-?\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
    if (!m || Number(m[2]) !== st.ino) continue;
    const pid = Number(m[1]);
    if (pid <= 0 || pid === process.pid) continue;
    let command: string | null = null;
    try {
      command =
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 200) || null;
    } catch {
      /* gone, or not ours to read */
    }
    return { pid, command };
  }
  return null;
}

/** The holder in words, for the wait notice and the error: `process 123 (node tx-usage ingest)`. */
function holderText(path: string): string {
  const h = lockHolder(path);
  if (!h) return 'another tx-usage process';
  return `process ${h.pid}${h.command ? ` (${h.command})` : ''}`;
}

export interface StoreLock {
  readonly path: string;
  readonly mode: LockMode;
  /** Whether `file` (the store file's stats) is the store this lock file recorded as tx-usage's. */
  knows(file: Stats): boolean;
  /** Records `file` as tx-usage's store (exclusive lock only; a shared holder cannot write). */
  remember(file: Stats): void;
  /** Forgets the recorded store (it was moved aside or removed). */
  forget(): void;
  release(): void;
}

export const lockPathOf = (storePath: string) => `${storePath}.lock`;

/** Identity of a file: a store replaced by another file (even one that reuses the inode) has another. */
function identityOf(st: Stats): string {
  return `${st.dev}:${st.ino}:${Math.round(st.birthtimeMs)}`;
}

let Database: typeof BetterSqlite3 | null = null;

function busy(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/**
 * Takes the store's lock, waiting (up to `waitMs`) while another tx-usage
 * holds it in a conflicting mode. `created` is set when this call made the
 * lock file (so a caller that finds PATH is not a store can remove it again).
 */
export async function lockStore(
  storePath: string,
  mode: LockMode,
  waitMs = lockWaitMs(),
): Promise<StoreLock & { created: boolean }> {
  Database ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const path = lockPathOf(storePath);
  const created = statSync(path, { throwIfNoEntry: false }) === undefined;
  let db: BetterSqlite3.Database;
  try {
    db = new Database(path, { timeout: 0 });
  } catch (e) {
    const readOnly = readOnlyProblem(path);
    if (readOnly) throw readOnlyStoreError(storePath, readOnly);
    throw new StoreError(`cannot open the store's lock file ${path}: ${(e as Error).message}`);
  }
  const started = Date.now();
  let delay = 25;
  let said = false;
  for (;;) {
    try {
      // Locks taken in EXCLUSIVE locking mode are kept until the connection
      // closes: a read takes and keeps a shared lock, a write an exclusive one.
      db.pragma('locking_mode = EXCLUSIVE');
      if (mode === 'exclusive') db.exec('BEGIN EXCLUSIVE');
      // A SQLite file of someone else's at this name is not written to.
      const tables = (db.prepare('SELECT name FROM sqlite_master').all() as { name: string }[]).map((t) => t.name);
      if (tables.some((t) => t !== 'store')) {
        if (db.inTransaction) db.exec('ROLLBACK');
        db.close();
        throw new StoreError(
          `${path} is not tx-usage's lock file (it holds other tables): left as it is; move it, or use --db to choose another store`,
          2,
        );
      }
      if (mode === 'exclusive') {
        if (!tables.length) db.exec('CREATE TABLE store (identity TEXT NOT NULL)');
        db.exec('COMMIT');
      }
      break;
    } catch (e) {
      if (e instanceof StoreError) throw e;
      if (db.inTransaction) db.exec('ROLLBACK');
      if (busy(e) && Date.now() - started < waitMs) {
        if (!said && Date.now() - started >= SAY_WAIT_AFTER_MS) {
          // Never a silent wait: what for, on whom, for how long at most.
          said = true;
          process.stderr.write(
            `tx-usage: waiting for the store ${storePath}: ${holderText(path)} is using it (${mode === 'exclusive' ? 'this run writes to it' : 'this run reads it'}); giving up after ${Math.round(waitMs / 1000)} s\n`,
          );
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 250);
        continue;
      }
      if (busy(e)) {
        const who = holderText(path);
        db.close();
        const pid = /^process (\d+)/.exec(who)?.[1];
        throw new StoreError(
          `the store ${storePath} is in use by ${who}${waitMs > 0 ? ` (waited ${Math.round((Date.now() - started) / 1000)} s)` : ''}; try again when it finishes${pid ? `, or end it (kill ${pid}) if it is stuck` : ''}`,
        );
      }
      db.close();
      const readOnly = readOnlyProblem(path);
      if (readOnly) throw readOnlyStoreError(storePath, readOnly);
      throw new StoreError(`cannot lock the store ${storePath} (${path}: ${(e as Error).message})`);
    }
  }
  const recorded = (): string | null => {
    try {
      const row = db.prepare('SELECT identity FROM store LIMIT 1').get() as { identity: string } | undefined;
      return row?.identity ?? null;
    } catch {
      return null; // a shared holder of a lock file no writer has set up yet
    }
  };
  const write = (identity: string | null) => {
    if (mode !== 'exclusive') return;
    db.exec('BEGIN');
    db.prepare('DELETE FROM store').run();
    if (identity !== null) db.prepare('INSERT INTO store VALUES (?)').run(identity);
    db.exec('COMMIT');
  };
  let open = true;
  return {
    path,
    mode,
    created,
    knows: (file) => recorded() === identityOf(file),
    remember: (file) => write(identityOf(file)),
    forget: () => write(null),
    release() {
      if (!open) return;
      open = false;
      db.close();
    },
  };
}
