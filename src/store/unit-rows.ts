// Rows of unit_rows (schema.ts, v4) written as DuckDB data chunks, as
// usage-rows.ts writes responses: a source has about as many units of work
// as responses, and one appender call per value would cost the cold run
// several times what a chunk costs. Every column is a number (the dedupe
// key is its hash, core/unit-columns.ts): copied a column at a time.
import type * as Bindings from '@duckdb/node-bindings';
import { bindings as duckdb, DuckDBDataChunk, type DuckDBAppender, type DuckDBConnection } from './duckdb.js';
import type { SessionFact } from '../core/types.js';
import { UNIT_NUMS, type UnitColumns } from '../core/unit-columns.js';
import { ColumnBuffer, type Kind } from './usage-rows.js';

/** unit_rows' columns in table order (schema.ts). */
const COLUMNS: readonly [string, Kind][] = [
  ['unit_attr_id', 'int'],
  ['kind', 'int'],
  ['dedupe_key', 'big'],
  ['dedupe_rank', 'int'],
  ['ts_ms', 'big'],
  ['n', 'int'],
  // (schema v12) Every row is written as its key's kept unit; the write
  // transaction corrects the keys that have several rows (store/billed.ts).
  ['kept', 'bool'],
];
const WIDTH: Record<Kind, number> = { int: 4, big: 8, bool: 1, str: 0 };

const VECTOR = duckdb.vector_size();

export class UnitRowWriter {
  private readonly cols = COLUMNS.map(([, kind]) => new ColumnBuffer(kind, false));
  private chunk: DuckDBDataChunk | null = null;
  private n = 0;

  constructor(private readonly appender: DuckDBAppender) {}

  /** Unit `i` of `units` under combination `attrId`. */
  add(attrId: number, units: UnitColumns, i: number): void {
    if (this.chunk === null) this.open();
    const r = this.n;
    const c = this.cols;
    c[0]!.setInt(r, attrId);
    c[1]!.setInt(r, units.nums[i * UNIT_NUMS]!);
    c[2]!.setHalves(r, units.keyHigh(i), units.keyLow(i));
    c[3]!.setInt(r, units.rank(i));
    c[4]!.setBig(r, Math.round(units.ts(i)));
    c[5]!.setInt(r, units.count(i));
    this.n = r + 1;
    if (this.n === VECTOR) this.flush();
  }

  close(): void {
    this.flush();
  }

  private open(): void {
    this.chunk = new DuckDBDataChunk(duckdb.create_data_chunk(TYPES()));
  }

  private flush(): void {
    const chunk = this.chunk;
    const n = this.n;
    if (chunk === null || n === 0) return;
    this.cols.forEach((c, k) => {
      duckdb.copy_data_to_vector(duckdb.data_chunk_get_vector(chunk.chunk, k), 0, c.bytes, 0, n * WIDTH[c.kind]);
    });
    duckdb.data_chunk_set_size(chunk.chunk, n);
    this.appender.appendDataChunk(chunk);
    this.chunk = null;
    this.n = 0;
  }
}

let types: Bindings.LogicalType[] | null = null;
const TYPES = () =>
  (types ??= COLUMNS.map(([, kind]) =>
    duckdb.create_logical_type(
      kind === 'int' ? duckdb.Type.INTEGER : kind === 'bool' ? duckdb.Type.BOOLEAN : duckdb.Type.BIGINT,
    ),
  ));

/** The next free unit_attr_id, read once per writer (one process writes the store at a time). */
export class UnitAttrIds {
  private next: number | null = null;
  async take(conn: DuckDBConnection): Promise<() => number> {
    if (this.next === null) {
      const r = await conn.runAndReadAll(`SELECT coalesce(max(unit_attr_id), 0)::INTEGER AS m FROM unit_attrs`);
      this.next = Number((r.getRowObjectsJson()[0] as { m: number }).m) + 1;
    }
    return () => this.next!++;
  }
}

const str = (a: DuckDBAppender, v: string | null) => (v === null ? a.appendNull() : a.appendVarchar(v));

/**
 * A batch's units of work and session facts, inside the caller's transaction
 * (write.ts writeRows): `sources` pairs each source key with what its
 * extraction collected. Returns the first unit_attr_id it gave out (every
 * unit row it appended has this one or a larger one), null when it appended
 * no units: what the kept marks are maintained for (store/billed.ts).
 */
export async function writeUnitsAndFacts(
  conn: DuckDBConnection,
  sources: { key: string; units: UnitColumns; facts: readonly SessionFact[] }[],
  ids: UnitAttrIds,
): Promise<number | null> {
  const anyUnits = sources.some((s) => s.units.length > 0);
  const anyFacts = sources.some((s) => s.facts.length > 0);
  let first: number | null = null;
  if (anyUnits) {
    const take = await ids.take(conn);
    const nextId = () => {
      const id = take();
      first ??= id;
      return id;
    };
    const rowsA = await conn.createAppender('unit_rows');
    const attrsA = await conn.createAppender('unit_attrs');
    const rows = new UnitRowWriter(rowsA);
    for (const { key, units } of sources) {
      // A source's units share a session or a few.
      const combos = new Map<string, number>();
      for (let i = 0; i < units.length; i++) {
        const k = `${units.harnesses[i]}\0${units.sessions[i]}`;
        let id = combos.get(k);
        if (id === undefined) {
          id = nextId();
          combos.set(k, id);
          attrsA.appendInteger(id);
          attrsA.appendVarchar(key);
          attrsA.appendVarchar(units.harness(i));
          attrsA.appendVarchar(units.sessions[i]!);
          attrsA.endRow();
        }
        rows.add(id, units, i);
      }
    }
    rows.close();
    rowsA.closeSync();
    attrsA.closeSync();
  }
  if (anyFacts) {
    const fa = await conn.createAppender('session_fact_rows');
    for (const { key, facts } of sources) {
      for (const f of facts) {
        fa.appendVarchar(key);
        fa.appendVarchar(f.harness);
        fa.appendVarchar(f.session_id);
        str(fa, f.title);
        fa.appendInteger(f.title_rank);
        str(fa, f.parent_session_id);
        fa.appendBigInt(BigInt(Math.round(f.seq)));
        fa.endRow();
      }
    }
    fa.closeSync();
  }
  return first;
}
