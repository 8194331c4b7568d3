// Gives the local store's rows a `machine` column, so that `--by machine` and
// every template that reads it work on the local store as on a roll-up.
// Connection-local TEMP views shadow the store's billed_events,
// context_rows and usage_slots (DuckDB resolves unqualified names in temp first): nothing is
// written to the store, and other connections (e.g. `tx-usage sql`) see the
// store's own views.
import type { DuckDBConnection } from '@duckdb/node-api';
import { MACHINE_RE, sqlString } from './schema.js';
import { defineReportMacros } from '../report/macros.js';
import { noteLocalLabel } from '../report/unit-macros.js';

export async function labelLocalRows(conn: DuckDBConnection, machine: string): Promise<void> {
  if (!MACHINE_RE.test(machine)) throw new Error(`bad machine name ${machine}`);
  const r = await conn.runAndReadAll(`SELECT current_database() AS db`);
  const db = `"${String((r.getRowObjectsJson()[0] as { db: string }).db).replace(/"/g, '""')}"`;
  for (const view of ['billed_events', 'context_rows', 'usage_slots']) {
    await conn.run(
      `CREATE OR REPLACE TEMP VIEW ${view} AS SELECT *, ${sqlString(machine)} AS machine FROM ${db}.main.${view}`,
    );
  }
  // work_units and session_facts are labelled when a report first needs them (unit-macros.ts).
  noteLocalLabel(conn, db, machine);
  await defineReportMacros(conn);
}
