// Rows of usage_rows (schema.ts, v3; v7 added `billed`) written as DuckDB data chunks: each
// column is filled in a typed array and copied into its vector once per
// 2 048 rows, instead of one appender call per value. A cold run over the
// benchmark corpus wrote ~19 K responses: 15 appender calls a row (and 21,
// 8 of them strings, before v3) took ~110 ms of the main thread's CPU with
// the commit; chunks take ~25 ms (numbers copied a column at a time, one
// call per row for the dedupe key, the only string left in the row).
import type * as Bindings from '@duckdb/node-bindings';
import { bindings as duckdb, DuckDBDataChunk, type DuckDBAppender } from './duckdb.js';
import type { UsageEvent } from '../core/types.js';

/** What a row of usage_rows takes from its response (numbers are integers; ts is rounded to the millisecond). */
export type UsageRowEvent = Pick<
  UsageEvent,
  | 'ts'
  | 'dedupe_key'
  | 'dedupe_rank'
  | 'requests'
  | 'input_tokens'
  | 'cache_read_tokens'
  | 'cache_write_tokens'
  | 'cache_write_5m_tokens'
  | 'cache_write_1h_tokens'
  | 'output_tokens'
  | 'reasoning_tokens'
  | 'source_line'
  | 'request_units'
  | 'web_search_requests'
  | 'iteration'
>;

export type Kind = 'int' | 'big' | 'str' | 'bool';
/** usage_rows' columns in table order: their kind and whether they take NULL (schema.ts). */
const COLUMNS: readonly [string, Kind, boolean][] = [
  ['attr_id', 'int', false],
  ['ts_ms', 'big', false],
  ['dedupe_key', 'str', false],
  ['dedupe_rank', 'int', false],
  ['requests', 'int', false],
  ['input_tokens', 'big', false],
  ['cache_read_tokens', 'big', false],
  ['cache_write_tokens', 'big', false],
  ['cache_write_5m_tokens', 'big', true],
  ['cache_write_1h_tokens', 'big', true],
  ['output_tokens', 'big', false],
  ['reasoning_tokens', 'big', false],
  ['recorded_cost_e10', 'big', true],
  ['computed_cost_e10', 'big', true],
  ['source_line', 'int', true],
  // (schema v7) Every row is written as its key's winner; the write
  // transaction corrects the keys that have several rows (store/billed.ts).
  ['billed', 'bool', false],
  // (schema v8) Cursor's request units, imported usage CSVs only.
  ['request_units_e6', 'big', true],
  // (schema v11) Web searches billed with the response; the sampling iteration a row holds.
  ['web_search_requests', 'int', true],
  ['iteration', 'int', true],
];
export const USAGE_ROW_COLUMNS: readonly string[] = COLUMNS.map((c) => c[0]);

const VECTOR = duckdb.vector_size();
/** Bytes per value in a vector of each kind (strings are set one by one). */
const WIDTH: Record<Kind, number> = { int: 4, big: 8, bool: 1, str: 0 };
const TWO_32 = 4294967296;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A column's values for one chunk, in the layout of its DuckDB vector (also used by unit-rows.ts). */
export class ColumnBuffer {
  readonly bytes: ArrayBuffer;
  readonly i32: Int32Array | null;
  readonly u32: Uint32Array | null;
  readonly i64: BigInt64Array | null;
  readonly validity: Uint8Array | null;
  nulls = false;

  constructor(
    readonly kind: Kind,
    nullable: boolean,
  ) {
    this.bytes = new ArrayBuffer(kind === 'str' ? 0 : VECTOR * WIDTH[kind]);
    // A boolean column holds TRUE in every row (see COLUMNS).
    if (kind === 'bool') new Uint8Array(this.bytes).fill(1);
    this.i32 = kind === 'int' ? new Int32Array(this.bytes) : null;
    this.u32 = kind === 'big' ? new Uint32Array(this.bytes) : null;
    this.i64 = kind === 'big' ? new BigInt64Array(this.bytes) : null;
    this.validity = nullable ? new Uint8Array(VECTOR / 8) : null;
  }

  setNull(i: number): void {
    if (!this.validity) throw new Error('NULL in a NOT NULL column');
    if (!this.nulls) {
      this.validity.fill(0xff);
      this.nulls = true;
    }
    this.validity[i >> 3]! &= ~(1 << (i & 7));
  }

  /** Row i holds a value (again: a row refused half-way may have left its slot marked NULL). */
  private valid(i: number): void {
    if (this.nulls) this.validity![i >> 3]! |= 1 << (i & 7);
  }

  setInt(i: number, v: number): void {
    if (!Number.isInteger(v) || v < -2147483648 || v > 2147483647) throw new RangeError(`not a 32-bit integer: ${v}`);
    this.i32![i] = v;
    this.valid(i);
  }

  /** A 64-bit value given as its two signed 32-bit halves. */
  setHalves(i: number, high: number, low: number): void {
    this.valid(i);
    this.u32![2 * i] = low >>> 0;
    this.u32![2 * i + 1] = high >>> 0;
  }

  setBig(i: number, v: number | bigint): void {
    this.valid(i);
    if (typeof v === 'bigint') {
      // A BigInt64Array wraps what does not fit: checked first (comparisons allocate nothing).
      if (v < INT64_MIN || v > INT64_MAX) throw new RangeError(`not a 64-bit integer: ${v}`);
      this.i64![i] = v;
      return;
    }
    if (!Number.isSafeInteger(v)) throw new RangeError(`not a safe integer: ${v}`);
    // Two's complement in two little-endian halves, without a BigInt per value.
    this.u32![2 * i] = v >>> 0;
    this.u32![2 * i + 1] = Math.floor(v / TWO_32) >>> 0;
  }
}

/**
 * Appends UsageRows to usage_rows through `appender` (created by the caller
 * on its connection) in chunks of DuckDB's vector size. close() appends what
 * is left; the caller then closes the appender (which writes the rows).
 */
export class UsageRowWriter {
  private readonly cols = COLUMNS.map(([, kind, nullable]) => new ColumnBuffer(kind, nullable));
  private chunk: DuckDBDataChunk | null = null;
  private keys: Bindings.Vector | null = null;
  private n = 0;

  constructor(private readonly appender: DuckDBAppender) {}

  /** One row: the response's numbers and dedupe key, its combination's id and its costs in 1e-10 USD. */
  add(attrId: number, e: UsageRowEvent, recordedE10: bigint | null, computedE10: bigint | null): void {
    if (this.chunk === null) this.open();
    const i = this.n;
    const c = this.cols;
    c[0]!.setInt(i, attrId);
    c[1]!.setBig(i, Math.round(e.ts));
    duckdb.vector_assign_string_element(this.keys!, i, e.dedupe_key);
    c[3]!.setInt(i, e.dedupe_rank);
    c[4]!.setInt(i, e.requests);
    c[5]!.setBig(i, e.input_tokens);
    c[6]!.setBig(i, e.cache_read_tokens);
    c[7]!.setBig(i, e.cache_write_tokens);
    if (e.cache_write_5m_tokens === null) c[8]!.setNull(i);
    else c[8]!.setBig(i, e.cache_write_5m_tokens);
    if (e.cache_write_1h_tokens === null) c[9]!.setNull(i);
    else c[9]!.setBig(i, e.cache_write_1h_tokens);
    c[10]!.setBig(i, e.output_tokens);
    c[11]!.setBig(i, e.reasoning_tokens);
    if (recordedE10 === null) c[12]!.setNull(i);
    else c[12]!.setBig(i, recordedE10);
    if (computedE10 === null) c[13]!.setNull(i);
    else c[13]!.setBig(i, computedE10);
    if (e.source_line === null) c[14]!.setNull(i);
    else c[14]!.setInt(i, e.source_line);
    const units = e.request_units ?? null;
    if (units === null) c[16]!.setNull(i);
    else c[16]!.setBig(i, Math.round(units * 1e6));
    const searches = e.web_search_requests ?? null;
    if (searches === null) c[17]!.setNull(i);
    else c[17]!.setInt(i, searches);
    const iteration = e.iteration ?? null;
    if (iteration === null) c[18]!.setNull(i);
    else c[18]!.setInt(i, iteration);
    this.n = i + 1;
    if (this.n === VECTOR) this.flush();
  }

  /** Appends the rows not yet appended. */
  close(): void {
    this.flush();
  }

  private open(): void {
    const chunk = new DuckDBDataChunk(duckdb.create_data_chunk(TYPES()));
    this.chunk = chunk;
    this.keys = duckdb.data_chunk_get_vector(chunk.chunk, 2);
    for (const c of this.cols) c.nulls = false;
  }

  private flush(): void {
    const chunk = this.chunk;
    const n = this.n;
    if (chunk === null || n === 0) return;
    this.cols.forEach((c, k) => {
      if (c.kind === 'str') return;
      const v = duckdb.data_chunk_get_vector(chunk.chunk, k);
      duckdb.copy_data_to_vector(v, 0, c.bytes, 0, n * WIDTH[c.kind]);
      if (c.nulls) {
        duckdb.vector_ensure_validity_writable(v);
        duckdb.copy_data_to_vector_validity(v, 0, c.validity!.buffer as ArrayBuffer, 0, Math.ceil(n / 8));
      }
    });
    duckdb.data_chunk_set_size(chunk.chunk, n);
    this.appender.appendDataChunk(chunk);
    this.chunk = null;
    this.keys = null;
    this.n = 0;
  }
}

let types: Bindings.LogicalType[] | null = null;
const TYPES = () =>
  (types ??= COLUMNS.map(([, kind]) =>
    duckdb.create_logical_type(
      { str: duckdb.Type.VARCHAR, int: duckdb.Type.INTEGER, big: duckdb.Type.BIGINT, bool: duckdb.Type.BOOLEAN }[kind],
    ),
  ));
