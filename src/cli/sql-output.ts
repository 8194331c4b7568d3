// `tx-usage sql` results as JSON and text: integers and decimals of any size
// printed as JSON numbers, exactly (DuckDB's BIGINT, HUGEINT and DECIMAL do
// not fit a JavaScript number, and the JSON converter of @duckdb/node-api
// gives them as strings); timestamps in JSON as ISO 8601 (`2026-01-08T22:00:04.541Z`;
// the converter's `2026-01-08 22:00:04.541+00` is what a table or CSV cell
// shows). Everything else as that converter gives it: dates as strings, lists
// as arrays, structs as objects.
import { DuckDBTypeId, JsonDuckDBValueConverter, type DuckDBValueConverter } from '../store/duckdb.js';

/** A number kept as its exact decimal text, written into JSON as it is. */
class ExactNumber {
  constructor(readonly text: string) {}
}

/** A timestamp: ISO 8601 in JSON, DuckDB's own text in a cell. */
class Instant {
  constructor(
    readonly iso: string,
    readonly text: string,
  ) {}
}

/** Nanoseconds per unit of each timestamp type's value, and the value's field. */
const INSTANTS = new Map<number, [bigint, 'seconds' | 'millis' | 'micros' | 'nanos']>([
  [DuckDBTypeId.TIMESTAMP_S, [1_000_000_000n, 'seconds']],
  [DuckDBTypeId.TIMESTAMP_MS, [1_000_000n, 'millis']],
  [DuckDBTypeId.TIMESTAMP, [1_000n, 'micros']],
  [DuckDBTypeId.TIMESTAMP_TZ, [1_000n, 'micros']],
  [DuckDBTypeId.TIMESTAMP_NS, [1n, 'nanos']],
]);

/** ISO 8601 of a timestamp value (UTC, `Z`, for TIMESTAMP WITH TIME ZONE; no zone for a plain TIMESTAMP); null for ±infinity or out of Date's range. */
function isoOf(value: unknown, typeId: number): string | null {
  const [scale, field] = INSTANTS.get(typeId)!;
  const raw = (value as Record<string, unknown>)[field];
  if (typeof raw !== 'bigint') return null;
  const ns = raw * scale;
  let ms = ns / 1_000_000n;
  if (ms * 1_000_000n > ns) ms -= 1n; // floor, for instants before 1970
  const d = new Date(Number(ms));
  if (Number.isNaN(d.getTime())) return null;
  const sub = ns - ms * 1_000_000n; // below the millisecond
  const iso = d.toISOString().replace(/Z$/, sub === 0n ? '' : String(sub).padStart(6, '0').replace(/0+$/, ''));
  return typeId === DuckDBTypeId.TIMESTAMP_TZ ? `${iso}Z` : iso;
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
export const exactConverter: DuckDBValueConverter<unknown> = (value, type, converter) => {
  if (value !== null && EXACT.has(type.typeId)) return new ExactNumber(String(value));
  const json = JsonDuckDBValueConverter(
    value,
    type,
    converter as unknown as Parameters<typeof JsonDuckDBValueConverter>[2],
  );
  if (value === null || !INSTANTS.has(type.typeId)) return json;
  const iso = isoOf(value, type.typeId);
  return iso === null ? json : new Instant(iso, String(json));
};

/** JSON text of converted values, indented like JSON.stringify(v, null, 2) (or compact, like JSON.stringify(v), with indent null). */
export function exactJson(v: unknown, indent: string | null = ''): string {
  if (v instanceof ExactNumber) return v.text;
  if (v instanceof Instant) return JSON.stringify(v.iso);
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  const inner = indent === null ? null : indent + '  ';
  const wrap = (open: string, items: string[], close: string) =>
    !items.length
      ? open + close
      : inner === null
        ? `${open}${items.join(',')}${close}`
        : `${open}\n${items.map((x) => inner + x).join(',\n')}\n${indent}${close}`;
  if (Array.isArray(v))
    return wrap(
      '[',
      v.map((x) => exactJson(x, inner)),
      ']',
    );
  const sep = inner === null ? ':' : ': ';
  return wrap(
    '{',
    Object.entries(v as Record<string, unknown>).map(([k, x]) => `${JSON.stringify(k)}${sep}${exactJson(x, inner)}`),
    '}',
  );
}

/** A converted value as one table or CSV cell. */
export function cellText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof ExactNumber || v instanceof Instant) return v.text;
  if (typeof v === 'object') return exactJson(v, null);
  return String(v);
}
