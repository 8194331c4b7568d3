// `tx-usage export`: the store's billed events, Cursor context rows and
// session estimates as Hive-partitioned Parquet, one file per dataset, month
// and machine:
//   OUT/month=YYYY-MM/part-<machine>-<hash>.parquet             events
//   OUT/_context/month=YYYY-MM/part-<machine>-<hash>.parquet    Cursor context rows
//   OUT/_estimates/month=YYYY-MM/part-<machine>-<hash>.parquet  session estimates
// (DATASET_DIR in schema.ts: engines treat the underscore folders as hidden,
// so OUT read as a table is the events alone.)
//
// Only normalized figures leave the store (token counts, costs, models,
// projects, session ids, timestamps): source paths and lines are not
// exported, and dedupe keys (which can embed paths or ids) are hashed.
// Files are named by a hash of their bytes and rows are written in a total
// order, so re-exporting unchanged data rewrites nothing; a file of the same
// machine and month whose rows are all in the new file is superseded and
// removed (the roll-up would count them once anyway; this keeps folders small).
//
// tx-usage removes or replaces only files it made: a file counts as one of
// ours when its name is a part file's (partFileName) AND its Parquet
// key-value metadata carries EXPORT_MARKER. Anything else in the folder
// (a file a person put there, another tool's Parquet, an export made before
// the marker existed) is left as it is; a foreign file in the way of a new
// one stops the export with a message.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { VARCHAR, type DuckDBConnection } from '../store/duckdb.js';
import { UsageError } from '../report/period.js';
import {
  COLUMNS,
  DATASET_DIR,
  DATASETS,
  EXPORT_SCHEMA_VERSION,
  IDENTITY,
  UNDATED,
  partFileMachine,
  partFileName,
  sqlString,
  type Dataset,
} from './schema.js';
import { HARNESS_IDS } from '../core/types.js';
import { labelLocalRows } from './local.js';
import { ensureUnitMacros } from '../report/unit-macros.js';
import { loadFragment } from '../report/template.js';

export interface ExportOptions {
  outDir: string;
  machine: string;
  /** Inclusive local calendar days in `tz`; null = unbounded. */
  since: string | null;
  until: string | null;
  tz: string;
  /** Salt for --anonymize, or null to export projects and session ids as they are (home written `~`). */
  salt: string | null;
  /** The user's home folder: a plain export writes project paths under it as `~/…` (a shared output shows no home path). */
  home: string;
}

export interface ExportedFile {
  dataset: Dataset;
  month: string;
  path: string;
  rows: number;
  status: 'written' | 'unchanged';
  /** Older files of this machine and month whose rows are all in this one (removed). */
  superseded: string[];
}

const MONTH_OF = (msExpr: string) =>
  `coalesce(strftime(timezone('UTC', make_timestamptz((${msExpr}) * 1000)), '%Y-%m'), '${UNDATED}')`;
const USD = (e10: string) => `CAST(CAST(${e10} AS DECIMAL(38,0)) * 0.0000000001 AS DECIMAL(38,10))`;

/**
 * Hash expressions. Anonymized: salted sha256 with the field's kind mixed in
 * (so a project hash never equals a session hash); `$salt` is bound. Plain:
 * projects and sessions as they are, dedupe keys unsalted sha256.
 */
function hashers(anonymize: boolean) {
  const salted = (kind: string, expr: string, len: number) =>
    `substr(sha256($salt || chr(31) || '${kind}' || chr(31) || ${expr}), 1, ${len})`;
  return anonymize
    ? {
        project: (e: string) => `CASE WHEN ${e} IS NULL THEN NULL ELSE 'p_' || ${salted('project', e, 16)} END`,
        session: (e: string) => `'s_' || ${salted('session', e, 16)}`,
        key: (e: string) => salted('event', e, 32),
        scheme: `'salted:' || substr(sha256($salt), 1, 8)`,
      }
    : {
        // The home folder itself, or a path inside it (not /home/me2 for /home/me), written `~`, as the HTML page does (render/home-path.ts).
        project: (e: string) =>
          `CASE WHEN $home = '' THEN ${e} WHEN ${e} = $home THEN '~' WHEN starts_with(${e}, $home || '/') THEN '~' || substr(${e}, length($home) + 1) ELSE ${e} END`,
        session: (e: string) => e,
        key: (e: string) => `substr(sha256(${e}), 1, 32)`,
        scheme: `'sha256'`,
      };
}

/** Stages each dataset's rows (already in their exported form, plus `month`) in temp tables. */
async function stage(conn: DuckDBConnection, o: ExportOptions): Promise<void> {
  const h = hashers(o.salt !== null);
  // An open end is a date no timestamp reaches.
  const params: Record<string, string> = {
    machine: o.machine,
    tz: o.tz,
    since: o.since ?? '0001-01-01',
    until: o.until ?? '9999-12-31',
  };
  const types: Record<string, typeof VARCHAR> = { machine: VARCHAR, tz: VARCHAR, since: VARCHAR, until: VARCHAR };
  if (o.salt !== null) {
    params.salt = o.salt;
    types.salt = VARCHAR;
  } else {
    params.home = o.home.replace(/\/+$/, '');
    types.home = VARCHAR;
  }
  // Local calendar days in tz, as every report cuts them.
  const day = (ms: string) => `CAST(timezone($tz, make_timestamptz((${ms}) * 1000)) AS DATE)`;
  const inRange = (first: string, last: string) =>
    `(${day(last)} >= CAST($since AS DATE) AND ${day(first)} <= CAST($until AS DATE))`;
  const head = `${EXPORT_SCHEMA_VERSION}::INTEGER AS schema_version, $machine AS machine, ${h.scheme} AS key_scheme, harness`;
  const usesOf = (sql: string) => (n: string) => sql.includes(`$${n}`);

  const events = `
    CREATE OR REPLACE TEMP TABLE export_events AS
    SELECT ${head}, ${h.session('session_id')} AS session_id, ${h.project('project')} AS project, model, provider,
           make_timestamptz(ts_ms * 1000) AS ts, ts_ms, ${h.key('dedupe_key')} AS dedupe_key,
           requests, input_tokens, cache_read_tokens, cache_write_tokens, cache_write_5m_tokens, cache_write_1h_tokens,
           output_tokens, reasoning_tokens, ${USD('recorded_cost_e10')} AS recorded_cost_usd, ${USD('computed_cost_e10')} AS computed_cost_usd,
           speed, web_search_requests, iteration, grain,
           ${MONTH_OF('ts_ms')} AS month,
           harness || chr(31) || session_id AS local_session
    FROM billed_events
    WHERE ${inRange('ts_ms', 'ts_ms')}`;
  // Context rows whose activity overlaps the range; undated ones always (the report lists them always).
  const context = `
    CREATE OR REPLACE TEMP TABLE export_context AS
    SELECT ${head}, ${h.session('session')} AS session, ${h.project('project')} AS project, model, turns,
           latest_used_tokens, max_tokens, peak_used_tokens, first_ts_ms, last_ts_ms,
           ${MONTH_OF('coalesce(last_ts_ms, first_ts_ms)')} AS month
    FROM context_rows
    WHERE coalesce(last_ts_ms, first_ts_ms) IS NULL
       OR ${inRange('coalesce(first_ts_ms, last_ts_ms)', 'coalesce(last_ts_ms, first_ts_ms)')}`;
  // The estimate of every exported session, whatever its own date, so a
  // roll-up by session shows what the local report shows.
  const estimates = `
    CREATE OR REPLACE TEMP TABLE export_estimates AS
    SELECT ${head}, ${h.session('session_id')} AS session_id, ${USD('recorded_cost_e10')} AS recorded_cost_usd, ts_ms,
           ${MONTH_OF('ts_ms')} AS month
    FROM session_estimate_latest
    WHERE harness || chr(31) || session_id IN (SELECT local_session FROM export_events)`;
  // Sessions with units of work or facts whose activity (units and responses)
  // overlaps the range, each whole: counts, every unit's time (a tool-call
  // row of n calls is n times), title (not under --anonymize: a title may
  // name the work) and parent session. Projects as session_attrs has them.
  const sessions = `
    CREATE OR REPLACE TEMP TABLE export_sessions AS
    WITH u AS (SELECT harness, session_id, kind, ts_ms, n FROM work_units),
    span AS (
      SELECT harness, session_id, min(ts_ms) AS first_ts_ms, max(ts_ms) AS last_ts_ms
      FROM (SELECT harness, session_id, ts_ms FROM u UNION ALL SELECT harness, session_id, ts_ms FROM billed_events)
      GROUP BY ALL
    ),
    agg AS (
      SELECT harness, session_id,
             ${loadFragment('unit_counts')},
             ${['prompt', 'turn', 'tool_call', 'subagent_task'].map((k) => `coalesce(flatten(list(list_resize([ts_ms], n, ts_ms) ORDER BY ts_ms) FILTER (WHERE kind = '${k}')), []) AS ${k}_ts_ms`).join(',\n             ')}
      FROM u GROUP BY ALL
    ),
    s AS (SELECT harness, session_id FROM u UNION SELECT harness, session_id FROM session_facts)
    SELECT ${head}, ${h.session('s.session_id')} AS session_id,
           CASE WHEN f.parent_session_id IS NULL THEN NULL ELSE ${h.session('f.parent_session_id')} END AS parent_session_id,
           ${h.project('sa.project')} AS project, ${o.salt !== null ? 'CAST(NULL AS VARCHAR)' : 'f.title'} AS title,
           span.first_ts_ms, span.last_ts_ms,
           coalesce(agg.prompts, 0)::BIGINT AS prompts, coalesce(agg.turns, 0)::BIGINT AS turns,
           coalesce(agg.tool_calls, 0)::BIGINT AS tool_calls, coalesce(agg.subagent_tasks, 0)::BIGINT AS subagent_tasks,
           coalesce(agg.prompt_ts_ms, []) AS prompt_ts_ms, coalesce(agg.turn_ts_ms, []) AS turn_ts_ms,
           coalesce(agg.tool_call_ts_ms, []) AS tool_call_ts_ms, coalesce(agg.subagent_task_ts_ms, []) AS subagent_task_ts_ms,
           ${MONTH_OF('span.last_ts_ms')} AS month
    FROM s JOIN span USING (harness, session_id)
    LEFT JOIN agg USING (harness, session_id)
    LEFT JOIN session_facts f USING (harness, session_id)
    LEFT JOIN session_attrs([${HARNESS_IDS.map(sqlString).join(', ')}]) sa USING (harness, session_id)
    WHERE ${inRange('span.first_ts_ms', 'span.last_ts_ms')}`;
  await labelLocalRows(conn, o.machine);
  await ensureUnitMacros(conn);
  for (const sql of [events, context, estimates, sessions]) {
    const used = usesOf(sql);
    const p = Object.fromEntries(Object.entries(params).filter(([k]) => used(k)));
    const t = Object.fromEntries(Object.entries(types).filter(([k]) => used(k)));
    await conn.run(sql, p, t);
  }
}

async function rowsOf(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

const sha256 = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');

/** Parquet key-value metadata every exported file carries: how tx-usage recognises its own files. */
export const EXPORT_MARKER = { key: 'written_by', value: 'tx-usage export' } as const;

/** Whether `path` is a file tx-usage's export wrote: a part file's name and the marker in its metadata. */
export async function isOwnExport(conn: DuckDBConnection, path: string): Promise<boolean> {
  if (partFileMachine(basename(path)) === null) return false;
  try {
    const [r] = await rowsOf(
      conn,
      `SELECT count(*) AS n FROM parquet_kv_metadata(${sqlString(path)})
       WHERE decode(key) = ${sqlString(EXPORT_MARKER.key)} AND decode(value) = ${sqlString(EXPORT_MARKER.value)}`,
    );
    return Number(r!.n) > 0;
  } catch {
    return false; // not Parquet, unreadable: not ours
  }
}

/** The export root must be a folder (or not exist yet): a file there is a usage error, and is left alone. */
export function checkOutDir(outDir: string): void {
  const st = statSync(outDir, { throwIfNoEntry: false });
  if (st && !st.isDirectory())
    throw new UsageError(`--out ${outDir}: not a folder (export writes a folder of Parquet files)`);
}

/**
 * Removes older files of this machine in `dir` whose every row's identity is
 * in `newPath`. `dir` is one dataset's month folder (each dataset has its own,
 * see DATASET_DIR), so only files of the same dataset are compared; the
 * events' month folder never lists the side datasets' folders as files.
 */
async function removeSuperseded(
  conn: DuckDBConnection,
  ds: Dataset,
  dir: string,
  machine: string,
  newPath: string,
): Promise<string[]> {
  const removed: string[] = [];
  const id = IDENTITY[ds].join(', ');
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (path === newPath || partFileMachine(name) !== machine) continue;
    if (!(await isOwnExport(conn, path))) continue; // not ours to remove
    let left: number;
    try {
      const [r] = await rowsOf(
        conn,
        `SELECT count(*) FILTER (WHERE machine IS DISTINCT FROM ${sqlString(machine)}
                                  OR (${id}) NOT IN (SELECT (${id}) FROM read_parquet(${sqlString(newPath)}))) AS left_over
         FROM read_parquet(${sqlString(path)})`,
      );
      left = Number(r!.left_over);
    } catch {
      continue; // unreadable or another schema: not ours to judge, leave it
    }
    if (left === 0) {
      rmSync(path);
      removed.push(path);
    }
  }
  return removed;
}

// A file being written is named so that no reader takes it for data: a
// dot-file (Hive, Arrow and Spark dataset readers and our --from skip those)
// that does not end in `.parquet` (DuckDB's `read_parquet('DIR/**/*.parquet')`
// lists dot-files too: a half-written one made the whole folder unreadable).
// A run killed while writing leaves it behind; the next export of the same
// machine removes it once its process is gone, and the `.tmp-…parquet` files
// older versions left.
const TEMP_FILE = /^\.tx-usage-export-(.+)-(\d+)(?:-\d+)?\.partial$/;
const LEGACY_TEMP_FILE = /^\.tmp-(.+)-(\d+)(?:-\d+)?\.parquet$/;

/** A new temporary file's path in `dir`, for `machine`: no file already there. */
function tempFileFor(dir: string, machine: string): string {
  let tmp = join(dir, `.tx-usage-export-${machine}-${process.pid}.partial`);
  for (let i = 2; existsSync(tmp); i++) tmp = join(dir, `.tx-usage-export-${machine}-${process.pid}-${i}.partial`);
  return tmp;
}

/** Whether process `pid` runs on this machine (another export may be writing its temporary file). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files an export of `machine` left in any month
 * folder of OUT when it was killed (their process is gone); returns them.
 * Only names of tx-usage's temporary files of this machine are touched.
 */
export function removeStaleTemps(outDir: string, machine: string): string[] {
  const removed: string[] = [];
  for (const ds of DATASETS) {
    const base = join(outDir, DATASET_DIR[ds]);
    let months: string[];
    try {
      months = readdirSync(base).filter((m) => m.startsWith('month='));
    } catch {
      continue;
    }
    for (const m of months) {
      let names: string[];
      try {
        names = readdirSync(join(base, m));
      } catch {
        continue;
      }
      for (const name of names) {
        const t = TEMP_FILE.exec(name) ?? LEGACY_TEMP_FILE.exec(name);
        if (!t || t[1] !== machine || Number(t[2]) === process.pid || processRuns(Number(t[2]))) continue;
        const path = join(base, m, name);
        if (!statSync(path, { throwIfNoEntry: false })?.isFile()) continue;
        rmSync(path, { force: true });
        removed.push(path);
      }
    }
  }
  return removed;
}

/** Writes every dataset's month files; returns what was written, left unchanged or superseded. */
export async function exportParquet(conn: DuckDBConnection, o: ExportOptions): Promise<ExportedFile[]> {
  checkOutDir(o.outDir);
  removeStaleTemps(o.outDir, o.machine);
  await stage(conn, o);
  const marker = `KV_METADATA {${EXPORT_MARKER.key}: ${sqlString(EXPORT_MARKER.value)}, export_schema_version: '${EXPORT_SCHEMA_VERSION}'}`;
  const out: ExportedFile[] = [];
  try {
    for (const ds of DATASETS) {
      const table = `export_${ds}`;
      const months = await rowsOf(conn, `SELECT month, count(*) AS n FROM ${table} GROUP BY month ORDER BY month`);
      const cols = COLUMNS[ds].map((c) => c.name).join(', ');
      for (const { month, n } of months as { month: string; n: number }[]) {
        const dir = join(o.outDir, DATASET_DIR[ds], `month=${month}`);
        mkdirSync(dir, { recursive: true });
        const tmp = tempFileFor(dir, o.machine);
        await conn.run(
          `COPY (SELECT ${cols} FROM ${table} WHERE month = ${sqlString(month)} ORDER BY ALL)
           TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION snappy, ${marker})`,
        );
        const bytes = readFileSync(tmp);
        const path = join(dir, partFileName(o.machine, sha256(bytes).slice(0, 16)));
        let status: ExportedFile['status'] = 'written';
        if (existsSync(path) && readFileSync(path).equals(bytes)) {
          rmSync(tmp);
          status = 'unchanged';
        } else {
          if (existsSync(path) && !(await isOwnExport(conn, path))) {
            rmSync(tmp);
            throw new UsageError(
              `${path} is in the way and was not written by tx-usage export: left as it is; move it, or export to another folder`,
            );
          }
          renameSync(tmp, path);
        }
        const superseded = await removeSuperseded(conn, ds, dir, o.machine, path);
        out.push({ dataset: ds, month, path, rows: Number(n), status, superseded });
      }
    }
  } finally {
    for (const ds of DATASETS) await conn.run(`DROP TABLE IF EXISTS export_${ds}`);
  }
  return out;
}
