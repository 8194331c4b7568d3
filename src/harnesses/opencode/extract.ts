// OpenCode database → usage events. Rules from the contract entry `opencode`
// (README.md beside this file lists every rule and ambiguity choice).
// The database is opened ONLY through openSqliteReadOnly: never written,
// checkpointed or migrated, and no file is created beside it.
import type { UsageEvent } from '../../core/types.js';
import { openSqliteReadOnly, type SqliteDb } from '../../io/sqlite.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { columnNames, detectLayout } from './tables.js';
import { readUnitsV1, type WorkRead } from './units.js';
import { extractV1 } from './v1.js';
import { extractV2 } from './v2.js';

function readAll(db: SqliteDb, file: string, sink: ExtractSink, work: WorkRead): UsageEvent[] {
  const layout = detectLayout(db);
  switch (layout.kind) {
    case 'v2':
      if (layout.staleV1) sink.count('stale 1.x tables ignored (2.x tables present)');
      return extractV2(db, file, layout.sessionTable, sink, work);
    case 'v1':
      readUnitsV1(db, layout, layout.hasSession ? columnNames(db, 'session') : new Set(), work);
      return extractV1(db, file, layout, sink);
    case 'none':
      sink.warn('no OpenCode session tables (session_message or message) found; nothing read', { file });
      return [];
    default:
      return layout satisfies never;
  }
}

export async function extractOpencode(source: SourceRef, sink: ExtractSink, opts: ExtractOptions): Promise<ResumePoint | null> {
  const file = source.path;
  const handle = openSqliteReadOnly(file, opts.tmpDir);
  let events: UsageEvent[];
  const work: WorkRead = { units: [], facts: [] };
  try {
    if (handle.copyReason === 'locked') {
      sink.warn('database is locked by another connection; read a private snapshot copy of it', { file });
    }
    // One read transaction for every query: session totals and rows come from
    // the same snapshot even while OpenCode commits between our statements.
    events = handle.db.transaction(() => readAll(handle.db, file, sink, work))();
  } finally {
    handle.close();
  }
  // Emitted only after every query succeeded: a database that fails midway
  // (corrupt page) contributes nothing rather than a partial count.
  for (const e of events) sink.event(e);
  for (const u of work.units) sink.unit(u);
  for (const f of work.facts) sink.sessionFact(f);
  return null;
}
