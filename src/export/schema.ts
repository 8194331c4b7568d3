// The exported Parquet datasets: names, columns and version. This is a public
// contract (docs/team.md documents it column by column): warehouses read these
// files with their own engines, so a change of meaning or type is a new
// EXPORT_SCHEMA_VERSION, and readers refuse files newer than they know.
// Independent of the store's own SCHEMA_VERSION (the store is a private cache).

/** 3: project paths under the exporting user's home folder written `~/…`. 2: adds the sessions dataset (`_sessions/`: units of work and session facts); the other datasets are as in 1. */
export const EXPORT_SCHEMA_VERSION = 3;

/** The exported datasets; each is a set of month=YYYY-MM/ Hive partitions. */
export const DATASETS = ['events', 'context', 'estimates', 'sessions'] as const;
export type Dataset = (typeof DATASETS)[number];

/**
 * Where each dataset's month=YYYY-MM/ folders live, relative to the export
 * root. Events are the root itself (DIR/month=YYYY-MM/part-*.parquet, the
 * layout the team export promises, docs/team.md); the side datasets sit in underscore folders,
 * which Spark, Hive and Trino treat as hidden when they list DIR, so DIR read
 * as a table is the events dataset alone and a DIR/month=* glob never mixes
 * schemas.
 */
export const DATASET_DIR: Record<Dataset, string> = {
  events: '',
  context: '_context',
  estimates: '_estimates',
  sessions: '_sessions',
};

/** Partition value for rows without any timestamp (context rows and estimates can lack one). */
export const UNDATED = 'undated';

export interface ExportColumn {
  name: string;
  /** DuckDB type as written to Parquet. */
  type: string;
}

const c = (name: string, type: string): ExportColumn => ({ name, type });

/** Columns common to every dataset, first in every file. */
const HEAD = [
  c('schema_version', 'INTEGER'),
  c('machine', 'VARCHAR'),
  c('key_scheme', 'VARCHAR'),
  c('harness', 'VARCHAR'),
];

/** Column order of each dataset's files (also the order rows are sorted by, for byte-identical re-exports). */
export const COLUMNS: Record<Dataset, ExportColumn[]> = {
  events: [
    ...HEAD,
    c('session_id', 'VARCHAR'),
    c('project', 'VARCHAR'),
    c('model', 'VARCHAR'),
    c('provider', 'VARCHAR'),
    c('ts', 'TIMESTAMPTZ'),
    c('ts_ms', 'BIGINT'),
    c('dedupe_key', 'VARCHAR'),
    c('requests', 'INTEGER'),
    c('input_tokens', 'BIGINT'),
    c('cache_read_tokens', 'BIGINT'),
    c('cache_write_tokens', 'BIGINT'),
    c('cache_write_5m_tokens', 'BIGINT'),
    c('cache_write_1h_tokens', 'BIGINT'),
    c('output_tokens', 'BIGINT'),
    c('reasoning_tokens', 'BIGINT'),
    c('recorded_cost_usd', 'DECIMAL(38,10)'),
    c('computed_cost_usd', 'DECIMAL(38,10)'),
    // Added within schema 3 (additive, so no new version: docs/team.md):
    // what a response was billed at beyond its tokens, as the store keeps it
    // since its v11 (store/schema.ts). Files written before lack them; a
    // roll-up reads them as null there (rollup.ts source()).
    c('speed', 'VARCHAR'),
    c('web_search_requests', 'INTEGER'),
    c('iteration', 'INTEGER'),
    // Added within schema 3 (additive): what the row was made from
    // (response, session or snapshot: core/types.ts GRAINS). Files written
    // before lack it; a roll-up reads their rows as `response` (rollup.ts).
    c('grain', 'VARCHAR'),
  ],
  context: [
    ...HEAD,
    c('session', 'VARCHAR'),
    c('project', 'VARCHAR'),
    c('model', 'VARCHAR'),
    c('turns', 'BIGINT'),
    c('latest_used_tokens', 'BIGINT'),
    c('max_tokens', 'BIGINT'),
    c('peak_used_tokens', 'BIGINT'),
    c('first_ts_ms', 'BIGINT'),
    c('last_ts_ms', 'BIGINT'),
  ],
  estimates: [...HEAD, c('session_id', 'VARCHAR'), c('recorded_cost_usd', 'DECIMAL(38,10)'), c('ts_ms', 'BIGINT')],
  // Units of work per session, whole: counts, and the time of
  // each unit (a roll-up rebuilds the units from them), plus its title and
  // the session that spawned it.
  sessions: [
    ...HEAD,
    c('session_id', 'VARCHAR'),
    c('parent_session_id', 'VARCHAR'),
    c('project', 'VARCHAR'),
    c('title', 'VARCHAR'),
    c('first_ts_ms', 'BIGINT'),
    c('last_ts_ms', 'BIGINT'),
    c('prompts', 'BIGINT'),
    c('turns', 'BIGINT'),
    c('tool_calls', 'BIGINT'),
    c('subagent_tasks', 'BIGINT'),
    c('prompt_ts_ms', 'BIGINT[]'),
    c('turn_ts_ms', 'BIGINT[]'),
    c('tool_call_ts_ms', 'BIGINT[]'),
    c('subagent_task_ts_ms', 'BIGINT[]'),
  ],
};

/**
 * The identity of a row: rows with equal identity are the same thing exported
 * twice (re-exports, overlapping periods, or the same transcripts on two
 * machines), and a roll-up counts one of them.
 */
export const IDENTITY: Record<Dataset, string[]> = {
  events: ['harness', 'dedupe_key'],
  context: ['harness', 'session'],
  estimates: ['harness', 'session_id'],
  sessions: ['harness', 'session_id'],
};

/** Machine names go into file names and SQL literals: a conservative charset. */
export const MACHINE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** part-<machine>-<16 hex of the file's sha256>.parquet */
export function partFileName(machine: string, hash16: string): string {
  return `part-${machine}-${hash16}.parquet`;
}

/** The machine a part file name belongs to, or null when it is not one of ours. */
export function partFileMachine(name: string): string | null {
  const m = /^part-(.+)-([0-9a-f]{16})\.parquet$/.exec(name);
  return m && MACHINE_RE.test(m[1]!) ? m[1]! : null;
}

/** SQL string literal (the only way values reach COPY and view definitions, which take no parameters). */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
