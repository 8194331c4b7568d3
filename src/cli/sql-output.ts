// `tx-usage sql` results as JSON and text: integers and decimals of any size
// printed as JSON numbers, exactly (DuckDB's BIGINT, HUGEINT and DECIMAL do
// not fit a JavaScript number, and the JSON converter of @duckdb/node-api
// gives them as strings). Everything else as that converter gives it: dates
// and timestamps as strings, lists as arrays, structs as objects.
import { DuckDBTypeId, JsonDuckDBValueConverter, type DuckDBValueConverter } from '../store/duckdb.js';

/** A number kept as its exact decimal text, written into JSON as it is. */
class ExactNumber {
  constructor(readonly text: string) {}
}

const EXACT = new Set<number>([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.DECIMAL,
]);

/** JsonDuckDBValueConverter, with integers and decimals (nested ones too) as ExactNumber. */
export const exactConverter: DuckDBValueConverter<unknown> = (value, type, converter) =>
  value !== null && EXACT.has(type.typeId) ? new ExactNumber(String(value)) : JsonDuckDBValueConverter(value, type, converter as unknown as Parameters<typeof JsonDuckDBValueConverter>[2]);

/** JSON text of converted values, indented like JSON.stringify(v, null, 2) (or compact, like JSON.stringify(v), with indent null). */
export function exactJson(v: unknown, indent: string | null = ''): string {
  if (v instanceof ExactNumber) return v.text;
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  const inner = indent === null ? null : indent + '  ';
  const wrap = (open: string, items: string[], close: string) =>
    !items.length ? open + close : inner === null ? `${open}${items.join(',')}${close}` : `${open}\n${items.map((x) => inner + x).join(',\n')}\n${indent}${close}`;
  if (Array.isArray(v)) return wrap('[', v.map((x) => exactJson(x, inner)), ']');
  const sep = inner === null ? ':' : ': ';
  return wrap('{', Object.entries(v as Record<string, unknown>).map(([k, x]) => `${JSON.stringify(k)}${sep}${exactJson(x, inner)}`), '}');
}

/** A converted value as one table or CSV cell. */
export function cellText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof ExactNumber) return v.text;
  if (typeof v === 'object') return exactJson(v, null);
  return String(v);
}
