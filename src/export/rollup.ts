// `tx-usage report --from GLOB_OR_DIR`: an in-memory DuckDB whose
// billed_events, context_rows and session_estimate_latest are views over
// exported Parquet from any number of machines, shaped like the store's, and
// whose roll-ups (usage_slots, session_slots, prompt_stats) are made from
// them by the store's own builders, so every report template runs over them
// unchanged.
//
// A row exported more than once is counted once: rows are deduplicated by the
// dataset's identity (IDENTITY in schema.ts: harness + dedupe key for
// events), as the store deduplicates them. That covers a machine's re-exports
// and overlapping periods, and also the same transcripts on two machines (a
// synced or copied ~/.claude, a migrated laptop): a response id is the
// response's identity wherever it was read, so it was billed once. Such a
// row is attributed to the first machine by name, and the report says so.
import { existsSync, statSync } from 'node:fs';
import { basename, resolve, sep } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '../store/duckdb.js';
import { UsageError } from '../report/period.js';
import { COLUMNS, DATASET_DIR, DATASETS, EXPORT_SCHEMA_VERSION, IDENTITY, sqlString, type Dataset } from './schema.js';
import { defineReportMacros } from '../report/macros.js';
import { whenUnitsRead } from '../report/unit-macros.js';
import { counted } from '../core/plural.js';
import { sessionStatsOf } from '../store/session-stats.js';
import { buildRollups, SLOT_MS } from '../store/rollups.js';

export interface Rollup {
  conn: DuckDBConnection;
  files: Record<Dataset, string[]>;
  /** Things the reader of the report must know (e.g. rows that may be counted twice). */
  warnings: string[];
  close(): void;
}

export const GLOB_CHARS = /[*?[\]{}]/;

/** The files a glob pattern matches (DuckDB's glob: `*`, `**`, `?`, `[...]`), sorted as DuckDB lists them. */
export async function glob(conn: DuckDBConnection, pattern: string): Promise<string[]> {
  const r = await conn.runAndReadAll(`SELECT file FROM glob(${sqlString(pattern)})`);
  return (r.getRowObjectsJson() as { file: string }[]).map((x) => x.file);
}

/**
 * A file's dataset, from the export layout (DATASET_DIR): a part file in a
 * month=… folder is context or estimates when that folder is in `_context/`
 * or `_estimates/`, events otherwise (events are the export root's own month
 * folders). Null when the file is not in a month=… folder at all.
 */
export function datasetOf(path: string): Dataset | null {
  const parts = resolve(path).split(sep);
  if (!parts[parts.length - 2]?.startsWith('month=')) return null;
  const above = parts[parts.length - 3];
  for (const ds of DATASETS) if (DATASET_DIR[ds] && DATASET_DIR[ds] === above) return ds;
  return 'events';
}

/**
 * Parquet files named by --from values: a file, a folder (searched
 * recursively, so an export root yields all three datasets, its `_context/`
 * and `_estimates/` included) or a glob of either.
 */
export async function resolveFrom(conn: DuckDBConnection, values: string[]): Promise<Record<Dataset, string[]>> {
  const found = new Set<string>();
  for (const v of values) {
    let matched = 0;
    const add = (files: string[]) => {
      for (const f of files) {
        const name = basename(f);
        // Dot- and underscore-files are in-progress writes or engine metadata (Spark's _SUCCESS).
        if (name.endsWith('.parquet') && !name.startsWith('.') && !name.startsWith('_')) {
          found.add(resolve(f));
          matched++;
        }
      }
    };
    if (existsSync(v) && statSync(v).isFile()) add([v]);
    else if (existsSync(v)) add(await glob(conn, `${v.replace(/\/+$/, '')}/**/*.parquet`));
    else if (GLOB_CHARS.test(v)) {
      add(await glob(conn, v));
      // Folders it matches, searched too; a recursive glob (DIR/**/part-*) already reaches every
      // folder below, and DuckDB takes one ** per pattern.
      if (!v.includes('**')) add(await glob(conn, `${v.replace(/\/+$/, '')}/**/*.parquet`));
    } else throw new UsageError(`--from ${JSON.stringify(v)}: no such file or folder`);
    if (matched === 0) throw new UsageError(`--from ${JSON.stringify(v)}: no Parquet files found there`);
  }
  const out: Record<Dataset, string[]> = { events: [], context: [], estimates: [], sessions: [] };
  for (const f of [...found].sort()) {
    const ds = datasetOf(f);
    if (!ds)
      throw new UsageError(
        `${f}: not in a month=YYYY-MM folder of a tx-usage export (DIR/month=…, DIR/_context/month=…, DIR/_estimates/month=… or DIR/_sessions/month=…)`,
      );
    out[ds].push(f);
  }
  return out;
}

/**
 * The raw rows of one dataset: its files, or an empty relation of the same
 * columns. A column of COLUMNS that none of the files has (one added to the
 * schema after they were written, e.g. the events' `speed`) is null, so the
 * views below read files of every version alike.
 */
async function source(conn: DuckDBConnection, ds: Dataset, files: string[]): Promise<string> {
  const cols = COLUMNS[ds];
  if (!files.length)
    return `(SELECT ${cols.map((c) => `CAST(NULL AS ${c.type}) AS ${c.name}`).join(', ')}, CAST(NULL AS VARCHAR) AS filename WHERE false)`;
  // union_by_name: files of a later compatible version may add columns, and a
  // column some files lack is null in their rows; hive partition columns are
  // not read (month is derived from ts_ms where needed).
  const read = `read_parquet([${files.map(sqlString).join(', ')}], union_by_name = true, hive_partitioning = false, filename = true)`;
  const r = await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${read}`);
  const present = new Set((r.getRowObjectsJson() as { column_name: string }[]).map((x) => x.column_name));
  const missing = cols.filter((c) => !present.has(c.name));
  if (!missing.length) return read;
  return `(SELECT *, ${missing.map((c) => `CAST(NULL AS ${c.type}) AS ${c.name}`).join(', ')} FROM ${read})`;
}

const E10 = (usd: string) => `CAST(${usd} * 10000000000 AS BIGINT)`;

/** A column type's family: what a query can use it as (widths and precisions aside). */
function family(type: string): string {
  const t = type.toUpperCase();
  if (t.endsWith('[]')) return `list of ${family(t.slice(0, -2))}`;
  if (/^(VARCHAR|TEXT|STRING)$/.test(t)) return 'text';
  if (/^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|DOUBLE|FLOAT|REAL|DECIMAL.*)$/.test(t)) return 'number';
  if (t.startsWith('TIMESTAMP')) return 'timestamp';
  return t.toLowerCase();
}

/**
 * Each file read alone first (its footer only): one that is empty, not
 * Parquet or has a column of the wrong type is named, with what is wrong,
 * as a usage error (exit 2), instead of a DuckDB error about the union.
 */
async function checkFiles(conn: DuckDBConnection, files: Record<Dataset, string[]>): Promise<void> {
  for (const ds of DATASETS) {
    const want = new Map(COLUMNS[ds].map((c) => [c.name, c.type]));
    for (const f of files[ds]) {
      let cols: { column_name: string; column_type: string }[];
      try {
        const r = await conn.runAndReadAll(
          `DESCRIBE SELECT * FROM read_parquet(${sqlString(f)}, hive_partitioning = false)`,
        );
        cols = r.getRowObjectsJson() as typeof cols;
      } catch (e) {
        const why =
          statSync(f).size === 0
            ? 'an empty file'
            : `not a Parquet file (${((e as Error).message.split('\n')[0] ?? '').replace(/^[A-Za-z ]*Error: /, '').slice(0, 200)})`;
        throw new UsageError(`--from: ${f}: ${why}`);
      }
      for (const c of cols) {
        const type = want.get(c.column_name);
        if (type !== undefined && family(type) !== family(c.column_type)) {
          throw new UsageError(
            `--from: ${f}: column ${c.column_name} is ${c.column_type}, expected ${type} (${family(type)}); not a tx-usage export of this ${ds} dataset`,
          );
        }
      }
    }
  }
}

async function createViews(conn: DuckDBConnection, files: Record<Dataset, string[]>): Promise<void> {
  await checkFiles(conn, files);
  for (const ds of DATASETS)
    await conn.run(`CREATE VIEW export_${ds} AS SELECT * FROM ${await source(conn, ds, files[ds])}`);
  // The store's columns (source_* name the Parquet file), plus machine. The
  // same response exported twice is one row: were the copies to differ, the
  // store's own rule applies (largest usage), then the first machine by name,
  // then the first file in path order.
  await conn.run(`
    CREATE VIEW billed_events AS
    SELECT filename AS source_key, harness, session_id, project, model, provider, ts_ms, dedupe_key,
           0 AS dedupe_rank, requests, input_tokens, cache_read_tokens, cache_write_tokens,
           cache_write_5m_tokens, cache_write_1h_tokens, output_tokens, reasoning_tokens,
           ${E10('recorded_cost_usd')} AS recorded_cost_e10, ${E10('computed_cost_usd')} AS computed_cost_e10,
           filename AS source_file, CAST(NULL AS INTEGER) AS source_line,
           -- Not exported (yet): the billing details of imported usage CSVs (their costs are exported).
           CAST(NULL AS VARCHAR) AS billing_kind, CAST(NULL AS BIGINT) AS request_units_e6, machine,
           -- What a response was billed at beyond its tokens; null in files written before they were exported.
           speed, web_search_requests, iteration,
           -- What the row was made from; files written before it was exported hold responses only.
           coalesce(grain, 'response') AS grain
    FROM export_events
    QUALIFY row_number() OVER (
      PARTITION BY harness, dedupe_key
      ORDER BY input_tokens + cache_read_tokens + cache_write_tokens + output_tokens DESC, machine, filename
    ) = 1`);
  // A chat exported twice (e.g. once per month it was active in): the latest state.
  await conn.run(`
    CREATE VIEW context_rows AS
    SELECT filename AS source_key, harness, session, project, model, turns, latest_used_tokens, max_tokens,
           peak_used_tokens, first_ts_ms, last_ts_ms, machine
    FROM export_context
    QUALIFY row_number() OVER (
      PARTITION BY harness, session
      ORDER BY coalesce(last_ts_ms, first_ts_ms) DESC NULLS LAST, turns DESC, machine, filename
    ) = 1`);
  // Units of work: a session exported more than once (each export holds it
  // whole) is its latest state; its units are rebuilt from their times, one
  // row each (keys unique per session, kind and position).
  await conn.run(`
    CREATE VIEW session_rows AS
    SELECT * FROM export_sessions
    QUALIFY row_number() OVER (
      PARTITION BY harness, session_id
      ORDER BY last_ts_ms DESC NULLS LAST, prompts + turns + tool_calls + subagent_tasks DESC, machine, filename
    ) = 1`);
  await conn.run(`
    CREATE VIEW work_units AS
    ${(['prompt', 'turn', 'tool_call', 'subagent_task'] as const)
      .map(
        (
          k,
        ) => `SELECT harness, session_id, '${k}' AS kind, session_id || ':${k}:' || CAST(i AS VARCHAR) AS dedupe_key, ts_ms, 1 AS n, machine
      FROM (SELECT harness, session_id, machine, unnest(${k}_ts_ms) AS ts_ms, unnest(range(1, len(${k}_ts_ms) + 1)) AS i FROM session_rows)`,
      )
      .join('\n    UNION ALL\n    ')}`);
  await conn.run(
    `CREATE VIEW session_facts AS SELECT harness, session_id, title, parent_session_id, machine FROM session_rows`,
  );
  // What the local store keeps per session at write time (store/session-stats.ts), computed here.
  await conn.run(`CREATE VIEW session_stats AS ${sessionStatsOf('billed_events', ', first(machine) AS machine')}`);
  // The roll-ups every report reads, made by the store's builders from these rows (store/rollups.ts);
  // the prompts' only when a report reads units of work (compare).
  await buildRollups(conn, { slotLen: SLOT_MS, extra: ['machine'], parts: ['usage', 'sessions'] });
  whenUnitsRead(conn, () => buildRollups(conn, { slotLen: SLOT_MS, extra: ['machine'], parts: ['prompts'] }));
  await conn.run(`
    CREATE VIEW session_estimate_latest AS
    SELECT harness, session_id, ${E10('recorded_cost_usd')} AS recorded_cost_e10, ts_ms, machine
    FROM export_estimates
    QUALIFY row_number() OVER (PARTITION BY harness, session_id ORDER BY ts_ms DESC NULLS LAST, machine, filename) = 1`);
  await defineReportMacros(conn);
}

async function checks(conn: DuckDBConnection): Promise<string[]> {
  const r = await conn.runAndReadAll(`
    SELECT max(v) AS newest FROM (
      SELECT schema_version AS v FROM export_events UNION ALL SELECT schema_version FROM export_context
      UNION ALL SELECT schema_version FROM export_estimates UNION ALL SELECT schema_version FROM export_sessions)`);
  const newest = (r.getRowObjectsJson()[0] as { newest: number | null }).newest;
  if (newest !== null && Number(newest) > EXPORT_SCHEMA_VERSION) {
    throw new UsageError(
      `--from: files of export schema ${newest}; this tx-usage reads schema ${EXPORT_SCHEMA_VERSION} and older: upgrade tx-usage`,
    );
  }
  // The dataset is told by the folder (datasetOf): a file of another dataset
  // moved into DIR/month=… (or the reverse) would be read with the wrong
  // columns, its identity null. The writer never leaves an identity null.
  for (const ds of DATASETS) {
    const bad = await conn.runAndReadAll(
      `SELECT filename FROM export_${ds} WHERE ${IDENTITY[ds].map((c) => `${c} IS NULL`).join(' OR ')} ORDER BY filename LIMIT 1`,
    );
    const f = (bad.getRowObjectsJson()[0] as { filename: string } | undefined)?.filename;
    if (f !== undefined) {
      const where = DATASET_DIR[ds] ? `a ${DATASET_DIR[ds]}/month=… folder` : 'a month=… folder of the export root';
      throw new UsageError(
        `${f}: in ${where}, so read as ${ds}, but its rows lack the identity of ${ds} rows (${IDENTITY[ds].join(', ')}): a file of another dataset moved out of its folder?`,
      );
    }
  }
  // Keys of different schemes (plain vs anonymized, or two salts) cannot be
  // matched, so a response exported under both would be counted twice.
  const m = await conn.runAndReadAll(`
    SELECT machine, list(DISTINCT key_scheme ORDER BY key_scheme) AS schemes FROM export_events
    GROUP BY machine HAVING count(DISTINCT key_scheme) > 1 ORDER BY machine`);
  const warnings = (m.getRowObjectsJson() as { machine: string; schemes: string[] }[]).map(
    (x) =>
      `machine ${x.machine}: events exported with different key schemes (${x.schemes.join(', ')}: plain and --anonymize, or two salts); ` +
      `a response exported under two schemes is counted twice`,
  );
  // Across machines, mixed schemes do not match either: a shared project is
  // two projects, and transcripts present on two machines count twice.
  const schemes = await conn.runAndReadAll(`
    SELECT key_scheme, list(DISTINCT machine ORDER BY machine) AS machines FROM export_events
    GROUP BY key_scheme ORDER BY key_scheme`);
  const bySchemes = schemes.getRowObjectsJson() as { key_scheme: string; machines: string[] }[];
  if (bySchemes.length > 1) {
    warnings.push(
      `the files use ${bySchemes.length} key schemes (${bySchemes.map((x) => `${x.key_scheme}: ${x.machines.join(', ')}`).join('; ')}): ` +
        `projects, sessions and responses do not match across them; export every machine with the same --anonymize salt, or all without`,
    );
  }
  // The same responses exported by several machines: counted once (see the top of this file).
  const shared = await conn.runAndReadAll(`
    SELECT machines, count(*) AS responses FROM (
      SELECT list(DISTINCT machine ORDER BY machine) AS machines FROM export_events
      GROUP BY harness, dedupe_key HAVING count(DISTINCT machine) > 1)
    GROUP BY machines ORDER BY machines`);
  for (const x of shared.getRowObjectsJson() as { machines: string[]; responses: number }[]) {
    warnings.push(
      `${counted(x.responses, 'response')} ${x.responses === 1 ? 'was' : 'were'} exported by each of the machines ${x.machines.join(', ')} (the same transcripts on several machines: ` +
        `synced, copied or migrated); each is counted once, under ${x.machines[0]}`,
    );
  }
  return warnings;
}

/** Opens the roll-up over the Parquet files that `from` names. */
export async function openRollup(from: string[]): Promise<Rollup> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const conn = await instance.connect();
  const close = () => {
    conn.closeSync();
    instance.closeSync();
  };
  try {
    const files = await resolveFrom(conn, from);
    await createViews(conn, files);
    let warnings: string[];
    try {
      warnings = await checks(conn);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(
        `--from: cannot read the Parquet files as a tx-usage export: ${(e as Error).message.split('\n')[0]}`,
      );
    }
    return { conn, files, warnings, close };
  } catch (e) {
    close();
    throw e;
  }
}
