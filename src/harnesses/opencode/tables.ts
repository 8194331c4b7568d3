// Which OpenCode table set a database holds, and column-tolerant selects
// (older 2.x databases lack columns added later, e.g. fork_session_id).
import type { SqliteDb } from '../../io/sqlite.js';

export type Layout =
  /** 2.x: session_v2 + session_message (1.x tables, if any, are stale pre-import copies). */
  | { kind: 'v2'; sessionTable: 'session_v2' | 'session'; staleV1: boolean }
  /** 1.x only: session + message (+ part). */
  | { kind: 'v1'; hasSession: boolean; hasPart: boolean }
  | { kind: 'none' };

export function tableNames(db: SqliteDb): Set<string> {
  const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
  return new Set(rows.map((r) => r.name));
}

export function detectLayout(db: SqliteDb): Layout {
  const t = tableNames(db);
  if (t.has('session_message')) {
    // versioning: a pre-split 2.x database kept its 2.x sessions in `session`
    // until migration 20260804233008_loose_psylocke renamed it to session_v2.
    if (t.has('session_v2')) return { kind: 'v2', sessionTable: 'session_v2', staleV1: t.has('message') };
    return { kind: 'v2', sessionTable: 'session', staleV1: t.has('message') };
  }
  if (t.has('message')) return { kind: 'v1', hasSession: t.has('session'), hasPart: t.has('part') };
  return { kind: 'none' };
}

export function columnNames(db: SqliteDb, table: string): Set<string> {
  const rows = db.prepare(`PRAGMA table_info("${table.replace(/"/g, '""')}")`).all() as { name: string }[];
  return new Set(rows.map((r) => r.name));
}

/** `"col"` when the table has it, else `NULL AS "col"`. */
export function pick(cols: Set<string>, names: string[]): string {
  return names.map((c) => (cols.has(c) ? `"${c}"` : `NULL AS "${c}"`)).join(', ');
}
