// `tx-usage sql "SELECT ..."`: read-only SQL against the store.
import { renderCsv } from '../render/csv.js';
import { renderJson } from '../render/json.js';
import { renderTable } from '../render/table.js';
import type { Column } from '../render/columns.js';
import { UsageError } from '../report/period.js';
import { openStoreReadOnly, StoreError } from '../store/store.js';
import { openAndRefresh, type Runtime } from './runtime.js';
import { costFunction } from './pricing.js';

export async function sqlCommand(rt: Runtime, query: string, format: string): Promise<void> {
  if (!['table', 'json', 'csv'].includes(format)) throw new UsageError(`--format ${JSON.stringify(format)}: expected table, json or csv`);
  const cost = await costFunction(rt);
  const { store } = await openAndRefresh(rt, cost.fn);
  await store.close();
  // A separate READ_ONLY instance: the statement cannot change the store.
  // Another tx-usage may take the store between the refresh above and this
  // open: the store's lock waits for it.
  const ro = await openStoreReadOnly(rt.dbPath);
  if (!ro) throw new StoreError(`the store ${rt.dbPath} could not be opened read-only`);
  const conn = ro.conn;
  try {
    let reader;
    try {
      reader = await conn.runAndReadAll(query);
    } catch (e) {
      throw new UsageError(`SQL error: ${(e as Error).message}`);
    }
    const rows = reader.getRowObjectsJson() as Record<string, any>[];
    const names = reader.columnNames();
    if (format === 'json') {
      process.stdout.write(renderJson(rows));
      return;
    }
    const columns: Column[] = names.map((n) => ({ field: n, label: n, kind: 'text', narrow: true }));
    const flat = rows.map((r) => Object.fromEntries(names.map((n) => [n, r[n] === null || typeof r[n] !== 'object' ? r[n] : JSON.stringify(r[n])])));
    process.stdout.write(format === 'csv' ? renderCsv({ columns, rows: flat }) : renderTable({ columns, rows: flat }, { width: process.stdout.columns ?? 80, color: rt.color }));
  } finally {
    await ro.close();
  }
}
