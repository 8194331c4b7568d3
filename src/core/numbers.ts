// Validation of numbers read from harness files. A usage field of the wrong
// type must neither crash the report nor poison totals with NaN or negatives.

/** Largest token count accepted from one field of one response (1e12). */
export const MAX_TOKENS_PER_FIELD = 1_000_000_000_000;

export type TokenCheck = { ok: true; value: number } | { ok: false; value: 0; reason: string };

/**
 * Missing (undefined) counts as 0 and is fine; anything else must be a
 * non-negative integer. `null` is not missing: no harness's format writes a
 * token count as null (contract: integers), so one is named like any other
 * invalid value rather than passed as 0 without a word.
 */
export function checkTokenCount(v: unknown): TokenCheck {
  if (v === undefined) return { ok: true, value: 0 };
  if (v === null) return { ok: false, value: 0, reason: 'null' };
  if (typeof v !== 'number') return { ok: false, value: 0, reason: `not a number (${typeof v})` };
  if (!Number.isFinite(v)) return { ok: false, value: 0, reason: 'not finite' };
  if (v < 0) return { ok: false, value: 0, reason: 'negative' };
  if (!Number.isInteger(v)) return { ok: false, value: 0, reason: 'not an integer' };
  if (v > MAX_TOKENS_PER_FIELD) return { ok: false, value: 0, reason: 'implausibly large' };
  return { ok: true, value: v };
}

/** A recorded USD cost: finite, non-negative, at most $1e6 per record; else null. */
export function checkCost(v: unknown): number | null {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1_000_000) return null;
  return v;
}

/** Timestamps outside 2000-01-01 .. 2100-01-01 are corrupt, not history. */
const MIN_TS = Date.UTC(2000, 0, 1);
const MAX_TS = Date.UTC(2100, 0, 1);

/** ISO-8601 string or epoch milliseconds to epoch ms; null when unusable or implausible. */
export function parseTimestamp(v: unknown): number | null {
  let ms: number;
  if (typeof v === 'number') ms = v;
  else if (typeof v === 'string' && v.length >= 10) ms = parseIso(v) ?? (ISO_SHAPE.test(v) ? NaN : Date.parse(v));
  else return null;
  return Number.isFinite(ms) && ms >= MIN_TS && ms < MAX_TS ? Math.floor(ms) : null;
}

/** The shape of an ISO-8601 date-time as harnesses write it (date, optional time, optional zone). */
const ISO_SHAPE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * An ISO-8601 date-time in epoch ms, read the same on every machine: a time
 * without a zone is UTC (Date.parse reads it in the machine's zone, so one
 * file gave different days under two TZs), and a date that does not exist
 * (`2026-02-30`, hour 25) is NaN (Date.parse rolled it over to March 2).
 * Null when `v` is not of this shape (Date.parse has its say).
 */
function parseIso(v: string): number | null {
  const m = ISO_SHAPE.exec(v);
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0, sec = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) =>
    x === undefined ? undefined : Number(x),
  ) as number[];
  const frac = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  if (
    mo! < 1 ||
    mo! > 12 ||
    d! < 1 ||
    d! > daysIn(y!, mo!) ||
    h > 24 ||
    mi > 59 ||
    sec > 60 ||
    (h === 24 && (mi > 0 || sec > 0 || frac > 0))
  )
    return NaN;
  let offsetMin = 0;
  const zone = m[8];
  if (zone && zone !== 'Z' && zone !== 'z') {
    const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    const zh = Number(z[2]);
    const zm = z[3] === undefined ? 0 : Number(z[3]);
    if (zh > 23 || zm > 59) return NaN;
    offsetMin = (z[1] === '-' ? -1 : 1) * (zh * 60 + zm);
  }
  // A leap second (:60) is the next second's start, as Date.parse would have it.
  return Date.UTC(y!, mo! - 1, d!, h, mi, Math.min(sec, 59)) + (sec === 60 ? 1000 : 0) + frac - offsetMin * 60_000;
}

function daysIn(y: number, mo: number): number {
  return new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

/**
 * What a usage value that should be an object is instead (`null`, `a
 * string`, `a list`…), or null when it is an object: for the warning that
 * names a usage record the extractor cannot count (never its content).
 */
export function notAnObject(v: unknown): string | null {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? null : `a ${typeof v}`;
}

/**
 * Reads several token fields of one usage object; invalid ones become 0 and are
 * named in `invalid` so the caller can warn with the file and line.
 */
export function readTokenFields<K extends string>(
  obj: Record<string, unknown>,
  fields: Record<K, string>,
): { values: Record<K, number>; invalid: string[] } {
  const fast = readerOf(fields)(obj);
  if (fast !== null) return { values: fast, invalid: NONE_INVALID };
  const values = {} as Record<K, number>;
  const invalid: string[] = [];
  for (const [key, path, parts] of compiledFields(fields)) {
    let cur: unknown = obj;
    for (const part of parts) {
      cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
    }
    // The common case (a plain count) without building a TokenCheck.
    if (typeof cur === 'number' && Number.isInteger(cur) && cur >= 0 && cur <= MAX_TOKENS_PER_FIELD) {
      values[key] = cur;
      continue;
    }
    const c = checkTokenCount(cur);
    if (!c.ok) invalid.push(`${path} ${c.reason}`);
    values[key] = c.value;
  }
  return { values, invalid };
}

const NONE_INVALID: string[] = Object.freeze([]) as unknown as string[];

type Reader<K extends string> = (obj: Record<string, unknown>) => Record<K, number> | null;
const readers = new WeakMap<object, Reader<string>>();

/**
 * A reader made for one field table: the paths as property loads written
 * out (each with a load site of its own, where a loop over the paths shares
 * one site among them all), returning every value when each is a plain
 * count or missing, and null when any needs checkTokenCount's verdict (the
 * general loop then names it). On a cold ingest this ran per usage record
 * in two workers: ~2.4 µs a record with the loop.
 */
function readerOf<K extends string>(fields: Record<K, string>): Reader<K> {
  let r = readers.get(fields);
  if (!r) {
    const entries = compiledFields(fields);
    const lit = (s: string) => JSON.stringify(s);
    const body: string[] = ['let x;'];
    entries.forEach(([, , parts], i) => {
      let expr = 'o';
      for (let j = 0; j < parts.length; j++) {
        body.push(`x = ${expr};`);
        expr = `(x !== null && typeof x === 'object' ? x[${lit(parts[j]!)}] : undefined)`;
      }
      body.push(`const v${i} = ${expr};`);
      body.push(
        `if (!(v${i} === undefined || (typeof v${i} === 'number' && Number.isInteger(v${i}) && v${i} >= 0 && v${i} <= ${MAX_TOKENS_PER_FIELD}))) return null;`,
      );
    });
    body.push(`return { ${entries.map(([k], i) => `${lit(k)}: v${i} ?? 0`).join(', ')} };`);
    r = new Function('o', body.join('\n')) as Reader<string>;
    readers.set(fields, r);
  }
  return r as Reader<K>;
}

/** Field tables are module constants: their paths are split once, not once per record. */
const compiled = new WeakMap<object, [string, string, string[]][]>();
function compiledFields<K extends string>(fields: Record<K, string>): [K, string, string[]][] {
  let c = compiled.get(fields);
  if (!c) {
    c = Object.entries<string>(fields).map(([k, path]) => [k, path, path.split('.')]);
    compiled.set(fields, c);
  }
  return c as [K, string, string[]][];
}
