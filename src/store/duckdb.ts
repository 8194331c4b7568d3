// @duckdb/node-api, loaded with require rather than import. It is CommonJS:
// an ESM import makes Node run its CommonJS export lexer over the package's
// ~60 files, following every re-export (about 60 ms of a 125 ms load here,
// measured by CPU profile); require compiles them and nothing else. Each
// class is taken from its own module, not from the package's index, whose
// re-export of everything (a getter per name, defined one by one) cost ~20 M
// instructions of every run that opens the store (docs/internals.md,
// "Bundles"); the version is pinned, and a module moved is a build error
// (scripts/bundle.mjs bundles these requires). Every module of tx-usage takes
// DuckDB from here.
import { createRequire } from 'node:module';
import type * as DuckDB from '@duckdb/node-api';
import type * as Bindings from '@duckdb/node-bindings';

const { DuckDBInstance } = createRequire(import.meta.url)('@duckdb/node-api/lib/DuckDBInstance') as Pick<
  typeof DuckDB,
  'DuckDBInstance'
>;
const { DuckDBDataChunk } = createRequire(import.meta.url)('@duckdb/node-api/lib/DuckDBDataChunk') as Pick<
  typeof DuckDB,
  'DuckDBDataChunk'
>;
const { DuckDBTypeId } = createRequire(import.meta.url)('@duckdb/node-api/lib/DuckDBTypeId') as Pick<
  typeof DuckDB,
  'DuckDBTypeId'
>;
const { JsonDuckDBValueConverter } = createRequire(import.meta.url)(
  '@duckdb/node-api/lib/JsonDuckDBValueConverter',
) as Pick<typeof DuckDB, 'JsonDuckDBValueConverter'>;
const { BIGINT, BOOLEAN, DATE, DOUBLE, INTEGER, LIST, VARCHAR } = createRequire(import.meta.url)(
  '@duckdb/node-api/lib/types',
) as Pick<typeof DuckDB, 'BIGINT' | 'BOOLEAN' | 'DATE' | 'DOUBLE' | 'INTEGER' | 'LIST' | 'VARCHAR'>;
const { listValue } = createRequire(import.meta.url)('@duckdb/node-api/lib/values') as Pick<typeof DuckDB, 'listValue'>;
/** node-api's native part (its own dependency, the same version): the data-chunk calls store/usage-rows.ts needs. */
export const bindings = createRequire(import.meta.url)('@duckdb/node-bindings') as typeof Bindings;

export {
  DuckDBInstance,
  DuckDBDataChunk,
  DuckDBTypeId,
  JsonDuckDBValueConverter,
  BIGINT,
  BOOLEAN,
  DATE,
  DOUBLE,
  INTEGER,
  LIST,
  VARCHAR,
  listValue,
};
export type DuckDBInstance = DuckDB.DuckDBInstance;
export type DuckDBDataChunk = DuckDB.DuckDBDataChunk;
export type { DuckDBAppender, DuckDBConnection, DuckDBType, DuckDBValue, DuckDBValueConverter } from '@duckdb/node-api';
