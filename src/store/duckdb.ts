// @duckdb/node-api, loaded with require rather than import. It is CommonJS:
// an ESM import makes Node run its CommonJS export lexer over the package's
// ~60 files, following every re-export (about 60 ms of a 125 ms load here,
// measured by CPU profile); require compiles them and nothing else.
// Every module of tx-usage takes DuckDB from here.
import { createRequire } from 'node:module';
import type * as DuckDB from '@duckdb/node-api';
import type * as Bindings from '@duckdb/node-bindings';

const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof DuckDB;
/** node-api's native part (its own dependency, the same version): the data-chunk calls store/usage-rows.ts needs. */
export const bindings = createRequire(import.meta.url)('@duckdb/node-bindings') as typeof Bindings;

export const { DuckDBInstance, DuckDBDataChunk, DuckDBTypeId, JsonDuckDBValueConverter, BIGINT, BOOLEAN, DATE, DOUBLE, INTEGER, LIST, VARCHAR, listValue } = duckdb;
export type DuckDBInstance = DuckDB.DuckDBInstance;
export type DuckDBDataChunk = DuckDB.DuckDBDataChunk;
export type { DuckDBAppender, DuckDBConnection, DuckDBType, DuckDBValue, DuckDBValueConverter } from '@duckdb/node-api';
