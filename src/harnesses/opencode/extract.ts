// OpenCode database → usage events. Rules from the contract entry `opencode`
// (README.md beside this file lists every rule and ambiguity choice).
// The database is opened ONLY through openSqliteReadOnly: never written,
// checkpointed or migrated, and no file is created beside it.
import type { UsageEvent } from '../../core/types.js';
import { readSqliteSnapshot, type SqliteDb } from '../../io/sqlite.js';
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

export async function extractOpencode(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  const file = source.path;
  const work: WorkRead = { units: [], facts: [] };
  // One read transaction for every query: session totals and rows come from
  // the same snapshot even while OpenCode commits between our statements.
  readSqliteSnapshot(file, opts.tmpDir, sink, (db) => ({ events: readAll(db, file, sink, work), ...work }));
  return null;
}
