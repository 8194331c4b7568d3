// `tx-usage sql "SELECT ..."`: SQL against the store that can read the store
// and nothing else. The statement runs on an instance of its own, opened
// READ_ONLY with DuckDB's protections (SQL_SANDBOX): no file or network
// access (COPY, read_csv, ATTACH, INSTALL...), no extension installed or
// loaded behind the user's back, and the configuration locked so that no SET
// undoes any of it. The queryable schema is documented in docs/sql.md.
import type { DuckDBConnection } from '../store/duckdb.js';
import { renderCsv } from '../render/csv.js';
import { renderTable } from '../render/table.js';
import type { Column } from '../render/columns.js';
import { UsageError } from '../report/period.js';
import { openStoreReadOnly, StoreError } from '../store/store.js';
import { openAndRefresh, type Runtime } from './runtime.js';
import { costFunction } from './pricing.js';
import { cellText, exactConverter, exactJson } from './sql-output.js';
import { terminalSafeJson } from '../render/terminal-text.js';
import { outputColumns } from '../core/inputs.js';

/** DuckDB settings of the `sql` command's instance (DuckDB 1.5; see test/cli/sql-sandbox.test.ts for what each refuses). */
export const SQL_SANDBOX: Record<string, string> = {
  // Files and URLs: COPY TO/FROM, read_csv/read_text/glob, ATTACH, EXPORT DATABASE, INSTALL.
  enable_external_access: 'false',
  // No extension is fetched or loaded because a query names one of its functions.
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
  allow_unsigned_extensions: 'false',
  // Last: no SET / RESET can change any of the above (or anything else).
  lock_configuration: 'true',
};

export async function sqlCommand(rt: Runtime, query: string, format: string): Promise<void> {
  if (!['table', 'json', 'csv'].includes(format))
    throw new UsageError(`--format ${JSON.stringify(format)}: expected table, json or csv`);
  const { names, rows } = await answerSql(rt, query);
  if (format === 'json') {
    process.stdout.write(terminalSafeJson(exactJson(rows)) + '\n');
    return;
  }
  const columns: Column[] = names.map((n) => ({ field: n, label: n, kind: 'text', narrow: true }));
  const flat = rows.map((r) => Object.fromEntries(names.map((n) => [n, cellText(r[n])])));
  process.stdout.write(
    format === 'csv'
      ? renderCsv({ columns, rows: flat })
      : renderTable({ columns, rows: flat, empty: '(no rows)' }, { width: outputColumns(), color: rt.color }),
  );
}

/**
 * One read-only statement's result, for the CLI and `mcp` alike: the column
 * names and the rows (exactConverter's values; exactJson writes them as
 * `sql --format json` prints them). The store is brought up to date first,
 * then queried on an instance of its own in the sandbox.
 */
export async function answerSql(
  rt: Runtime,
  query: string,
): Promise<{ names: string[]; rows: Record<string, unknown>[] }> {
  const cost = await costFunction(rt);
  // A store this user cannot write is queried as it is, with a warning on stderr (runtime.ts answerReadOnly).
  const { store } = await openAndRefresh(rt, cost.fn, { readOnlyOk: true });
  await store.close();
  // Another tx-usage may take the store between the refresh above and this
  // open: the store's lock waits for it.
  const ro = await openStoreReadOnly(rt.dbPath, SQL_SANDBOX, { withoutLockFile: true });
  if (!ro) throw new StoreError(`the store ${rt.dbPath} could not be opened read-only`);
  try {
    let reader;
    try {
      // One statement (docs/sql.md): with several, DuckDB runs them all and
      // the output would show one result only; refused before any runs.
      const n = await statementCount(ro.conn, query);
      if (n !== 1)
        throw new UsageError(
          n === 0
            ? 'sql: no SQL statement given'
            : `sql runs one statement; this text has ${n} (run each on its own, or make one query of them with WITH or UNION ALL)`,
        );
      reader = await ro.conn.runAndReadAll(query);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      const writes = writeStatement(query, (e as Error).message);
      if (writes)
        throw new UsageError(
          `sql is read-only: ${writes} would change the store, which only tx-usage writes (query it with SELECT; docs/sql.md)`,
        );
      throw new UsageError(`SQL error: ${(e as Error).message}`);
    }
    return { names: reader.columnNames(), rows: reader.convertRowObjects(exactConverter) as Record<string, unknown>[] };
  } finally {
    await ro.close();
  }
}

/** Statements that change a database (DuckDB's grammar), by their first word. */
const WRITES = /^(INSERT|UPDATE|DELETE|MERGE|UPSERT|CREATE|DROP|ALTER|TRUNCATE|VACUUM|CHECKPOINT|COMMENT)\b/i;

/**
 * The kind of write a failed statement attempted (`DELETE`), or null when it
 * was not one: by its first word (after comments and a WITH clause's
 * parentheses DuckDB reports a binding error first, "Can only delete from base
 * table"), or by DuckDB's own refusal of a write on the read-only store.
 */
function writeStatement(query: string, error: string): string | null {
  const text = query.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ').trim();
  const first = WRITES.exec(text);
  if (first) return first[1]!.toUpperCase();
  const refused =
    /Cannot execute statement of type "(\w+)"[^!]*read-only mode/.exec(error) ??
    /Can only (delete|update) (from )?base table/i.exec(error);
  return refused ? refused[1]!.toUpperCase() : null;
}

/**
 * How many statements `query` holds. DuckDB's extraction fails on a text with
 * none (blank, a comment) and on a syntax error alike: running the text then
 * throws the syntax error itself, or runs nothing (0).
 */
async function statementCount(conn: DuckDBConnection, query: string): Promise<number> {
  try {
    return (await conn.extractStatements(query)).count;
  } catch {
    await conn.runAndReadAll(query);
    return 0;
  }
}
