// `tx-usage import`: bring a usage export the harness does not keep on disk
// (Cursor's dashboard usage CSV) into tx-usage. Each file is read whole
// first, exactly as the ingest will read it; a file with anything wrong is
// named with its line and column and nothing of it is imported. A good file
// is copied into the cache dir (src/imports/) and the store refreshed, so its
// rows are in every report; `--list` and `--remove` manage the copies.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CsvError } from '../io/csv.js';
import { addCopy, copyId, listCopies, removeCopy, type ImportCopy } from '../imports/copies.js';
import { IMPORT_KINDS, importDir, type ImportKindName } from '../imports/dir.js';
import { IMPORTERS, type ImportCheck } from '../imports/kinds.js';
import { UsageError } from '../report/period.js';
import { renderJson } from '../render/json.js';
import { renderTable } from '../render/table.js';
import { costFunction } from './pricing.js';
import { notice, openAndRefresh, type Runtime } from './runtime.js';
import { messageLine, printableLines } from '../render/terminal-text.js';
import { outputColumns } from '../core/inputs.js';

export interface ImportArgs {
  kind?: string;
  files?: string[];
  list?: boolean;
  remove?: string[];
  format?: string;
}

function kindOf(name: string | undefined): ImportKindName {
  if (name === undefined)
    throw new UsageError(`name what to import: tx-usage import ${IMPORT_KINDS.join('|')} FILE...`);
  if (!(IMPORT_KINDS as readonly string[]).includes(name))
    throw new UsageError(`import ${JSON.stringify(name)}: expected one of ${IMPORT_KINDS.join(', ')}`);
  return name as ImportKindName;
}

const day = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().slice(0, 10));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The files named on the command line: paths, folders (their .csv files) and globs, each once, in order. */
async function expandFiles(args: string[]): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (p: string) => {
    const abs = resolve(p);
    if (!seen.has(abs)) {
      seen.add(abs);
      out.push(abs);
    }
  };
  let globbing: { conn: import('@duckdb/node-api').DuckDBConnection; close(): void } | null = null;
  try {
    for (const a of args) {
      if (existsSync(a)) {
        if (statSync(a).isDirectory()) {
          const csvs = readdirSync(a)
            .filter((n) => n.toLowerCase().endsWith('.csv'))
            .sort();
          if (!csvs.length) throw new UsageError(`${a}: a folder without .csv files`);
          for (const n of csvs) add(join(a, n));
        } else add(a);
        continue;
      }
      const { GLOB_CHARS, glob } = await import('../export/rollup.js');
      if (!GLOB_CHARS.test(a)) throw new UsageError(`${a}: no such file`);
      if (!globbing) {
        const { DuckDBInstance } = await import('../store/duckdb.js');
        const inst = await DuckDBInstance.create(':memory:');
        const conn = await inst.connect();
        globbing = { conn, close: () => (conn.closeSync(), inst.closeSync()) };
      }
      const files = await glob(globbing.conn, a);
      if (!files.length) throw new UsageError(`${a}: no file matches`);
      for (const f of files) add(f);
    }
  } finally {
    globbing?.close();
  }
  return out;
}

interface Outcome {
  file: string;
  id: string;
  added: boolean;
  check: ImportCheck;
  key: string;
}

export async function importCommand(rt: Runtime, a: ImportArgs): Promise<void> {
  const format = a.format ?? 'table';
  if (!['table', 'json'].includes(format))
    throw new UsageError(`--format ${JSON.stringify(format)}: expected table or json`);
  if (a.list && a.remove?.length) throw new UsageError('--list and --remove: one at a time');
  if (a.list) return listImports(rt, a, format);
  if (a.remove?.length) return removeImports(rt, a, format);
  const kind = kindOf(a.kind);
  if (!a.files?.length) throw new UsageError(`name the file(s) to import: tx-usage import ${kind} FILE.csv...`);
  const importer = IMPORTERS[kind];
  const dir = importDir(rt.env, rt.home, kind);
  const files = await expandFiles(a.files);

  // Each file is read whole before it is copied; one that fails is named and nothing of it is kept.
  const failed: string[] = [];
  const outcomes: Outcome[] = [];
  for (const file of files) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (e) {
      failed.push(`${file}: cannot read: ${(e as Error).message}`);
      continue;
    }
    let check: ImportCheck;
    try {
      check = await importer.check(bytes);
    } catch (e) {
      if (!(e instanceof CsvError)) throw e;
      failed.push(`${file}:${e.line}:${e.column}: ${e.reason}; nothing imported from this file`);
      continue;
    }
    const { copy, added } = addCopy(dir, bytes, file);
    outcomes.push({ file, id: copy.id, added, check, key: realpathSync(copy.path) });
  }

  const results: Record<string, unknown>[] = [];
  if (outcomes.length) {
    // The copies are sources of the harness now: the refresh reads them like any other.
    const cost = await costFunction(rt);
    const { store } = await openAndRefresh(rt, cost.fn);
    try {
      const { importFigures } = await import('../store/imports.js');
      for (const o of outcomes) {
        const f = await importFigures(store.conn, o.key);
        results.push({
          file: o.file,
          id: o.id,
          status: o.added ? 'imported' : 'already imported',
          rows: o.check.rows,
          billed_rows: o.check.billed,
          rows_without_usage: o.check.noUsage,
          first_day: day(o.check.firstTs),
          last_day: day(o.check.lastTs),
          billed_events: f.events,
          also_in_other_imports: f.shared,
        });
      }
    } finally {
      await store.close();
    }
  }
  if (format === 'json') process.stdout.write(renderJson({ kind, imports: results, errors: failed }));
  else {
    const lines = results.map((r) => {
      const span = r.first_day ? `, ${r.first_day} to ${r.last_day} (UTC)` : '';
      const none = (r.rows_without_usage as number)
        ? `; ${plural(r.rows_without_usage as number, 'row')} without usage (errored, no charge) not counted`
        : '';
      const dup = (r.also_in_other_imports as number)
        ? `, ${r.also_in_other_imports} of them also in other imports (counted once)`
        : '';
      return `${r.status} ${r.file} as ${r.id}: ${plural(r.rows as number, 'row')}${span}; ${plural(r.billed_events as number, 'billed response')}${dup}${none}`;
    });
    if (lines.length) process.stdout.write(printableLines(lines.join('\n')) + '\n');
  }
  for (const f of failed) process.stderr.write(messageLine(f));
  if (failed.length) process.exitCode = 2;
}

/** One copy as --list shows it: read again, as the ingest reads it. */
async function described(kind: ImportKindName, c: ImportCopy): Promise<Record<string, unknown>> {
  let check: ImportCheck | null = null;
  let problem: string | null = null;
  try {
    check = await IMPORTERS[kind].check(readFileSync(c.path));
  } catch (e) {
    problem = e instanceof CsvError ? `line ${e.line}, column ${e.column}: ${e.reason}` : (e as Error).message;
  }
  return {
    kind,
    id: c.id,
    file: c.original,
    imported_at: c.importedAt,
    rows: check?.rows ?? null,
    billed_rows: check?.billed ?? null,
    rows_without_usage: check?.noUsage ?? null,
    first_day: day(check?.firstTs ?? null),
    last_day: day(check?.lastTs ?? null),
    path: c.path,
    problem,
  };
}

async function listImports(rt: Runtime, a: ImportArgs, format: string): Promise<void> {
  const kinds = a.kind === undefined ? [...IMPORT_KINDS] : [kindOf(a.kind)];
  const rows: Record<string, unknown>[] = [];
  for (const kind of kinds)
    for (const c of listCopies(importDir(rt.env, rt.home, kind))) rows.push(await described(kind, c));
  if (format === 'json') {
    process.stdout.write(renderJson({ imports: rows }));
    return;
  }
  if (!rows.length) {
    process.stdout.write(`no imports (import with: tx-usage import ${IMPORT_KINDS.join('|')} FILE...)\n`);
    return;
  }
  process.stdout.write(
    renderTable(
      {
        columns: [
          { field: 'id', label: 'Id', kind: 'text', narrow: true },
          { field: 'kind', label: 'Kind', kind: 'text' },
          { field: 'imported', label: 'Imported', kind: 'text', narrow: true },
          { field: 'rows', label: 'Rows', kind: 'int', narrow: true },
          { field: 'first_day', label: 'First', kind: 'text', narrow: true },
          { field: 'last_day', label: 'Last', kind: 'text', narrow: true },
          { field: 'file', label: 'File', kind: 'key', narrow: true },
        ],
        rows: rows.map((r) => ({
          ...(r as Record<string, string | number | null>),
          imported: typeof r.imported_at === 'string' ? r.imported_at.slice(0, 10) : null,
        })),
        notes: rows
          .filter((r) => r.problem)
          .map((r) => `${r.id}: ${r.problem} (not counted; tx-usage import --remove ${r.id})`),
      },
      { width: outputColumns(), color: rt.color },
    ),
  );
}

/** The copies `what` names: an id (or a unique prefix of at least 4 digits) or a file whose bytes were imported. */
function findCopies(
  copies: (ImportCopy & { kind: ImportKindName })[],
  what: string,
): (ImportCopy & { kind: ImportKindName })[] {
  if (existsSync(what) && statSync(what).isFile()) {
    const id = copyId(readFileSync(what));
    const hit = copies.filter((c) => c.id === id);
    if (!hit.length)
      throw new UsageError(`${what}: not imported (its content matches no import; see tx-usage import --list)`);
    return hit;
  }
  if (!/^[0-9a-f]{4,16}$/i.test(what))
    throw new UsageError(
      `--remove ${JSON.stringify(what)}: expected an import id (see tx-usage import --list) or an imported file`,
    );
  const hit = copies.filter((c) => c.id.startsWith(what.toLowerCase()));
  if (!hit.length) throw new UsageError(`--remove ${what}: no such import (see tx-usage import --list)`);
  if (hit.length > 1) throw new UsageError(`--remove ${what}: matches ${hit.length} imports; give more digits`);
  return hit;
}

async function removeImports(rt: Runtime, a: ImportArgs, format: string): Promise<void> {
  const kinds = a.kind === undefined ? [...IMPORT_KINDS] : [kindOf(a.kind)];
  const copies = kinds.flatMap((kind) => listCopies(importDir(rt.env, rt.home, kind)).map((c) => ({ ...c, kind })));
  const chosen = new Map<string, ImportCopy & { kind: ImportKindName }>();
  for (const what of a.remove!) for (const c of findCopies(copies, what)) chosen.set(c.path, c);
  const list = [...chosen.values()];
  // The rows first, then the files: were the second step to fail, the next
  // ingest would read the copy again, and nothing is left half removed.
  const { openStore } = await import('../store/store.js');
  const { forgetImport } = await import('../store/imports.js');
  const store = await openStore(rt.dbPath, { rebuild: rt.rebuild });
  try {
    if (store.notice) notice(rt, store.notice);
    await forgetImport(
      store.conn,
      list.map((c) => realpathSync(c.path)),
    );
  } finally {
    await store.close();
  }
  for (const c of list) removeCopy(importDir(rt.env, rt.home, c.kind), c);
  if (format === 'json')
    process.stdout.write(renderJson({ removed: list.map((c) => ({ kind: c.kind, id: c.id, file: c.original })) }));
  else
    process.stdout.write(
      printableLines(
        list.map((c) => `removed ${c.id}${c.original ? ` (${c.original})` : ''} and its rows`).join('\n'),
      ) + '\n',
    );
}
