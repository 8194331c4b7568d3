// `--sort cost|tokens|date|name`, the one row order of every report. Without
// it, rows keyed by time (day, week, month) run chronologically and anything
// else runs by cost, highest first: the rows people read first are the ones
// that cost the most. Unknown costs go last; ties fall back to the keys.
import { UsageError } from './period.js';

export const SORT_KEYS = ['cost', 'tokens', 'date', 'name'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export const TIME_KEYS: readonly string[] = ['day', 'week', 'month'];

export function parseSort(v: string | undefined): SortKey | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  if ((SORT_KEYS as readonly string[]).includes(s)) return s as SortKey;
  throw new UsageError(`--sort ${JSON.stringify(v)}: expected one of ${SORT_KEYS.join(', ')}`);
}

type Row = Record<string, unknown>;
type Cmp = (a: Row, b: Row) => number;

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
/** Ascending text, missing values last. */
const ascText =
  (field: string): Cmp =>
  (a, b) => {
    const x = text(a[field]);
    const y = text(b[field]);
    if (x === y) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return x < y ? -1 : 1;
  };
/** Descending number, missing values last. */
const descNum =
  (field: string): Cmp =>
  (a, b) => {
    const x = a[field] === null || a[field] === undefined ? null : Number(a[field]);
    const y = b[field] === null || b[field] === undefined ? null : Number(b[field]);
    if (x === y) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return y - x;
  };
const chain =
  (cmps: Cmp[]): Cmp =>
  (a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };

/** Fields a row may carry its first activity in (e.g. `--by session`), for `--sort date` without a time key. */
const ACTIVITY_FIELDS = ['first_ts', 'first_activity'];

/**
 * `rows` (a copy) in the order `sort` asks for; `keys` are the row's key
 * fields in grouping order (time keys among them run chronologically).
 */
export function sortRows<T extends object>(
  list: readonly T[],
  keys: readonly string[],
  sort: SortKey | undefined,
): T[] {
  const rows = list as unknown as readonly Row[];
  const time = keys.filter((k) => TIME_KEYS.includes(k));
  const names = keys.filter((k) => !TIME_KEYS.includes(k));
  const chronological = time.map(ascText);
  const byName = names.map(ascText);
  const byCost = [descNum('cost_usd'), descNum('total_tokens')];
  const byTokens = [descNum('total_tokens'), descNum('cost_usd')];
  let order: Cmp[];
  switch (sort) {
    case undefined:
      order = time.length ? [...chronological, ...byCost] : byCost;
      break;
    case 'cost':
      order = byCost;
      break;
    case 'tokens':
      order = byTokens;
      break;
    case 'date': {
      const activity = ACTIVITY_FIELDS.find((f) => rows.some((r) => r[f] !== undefined && r[f] !== null));
      order = time.length ? chronological : activity ? [ascText(activity)] : [];
      order = [...order, ...byCost];
      break;
    }
    case 'name':
      // By the keys themselves, in grouping order (days, weeks and months read in order anyway).
      order = keys.map(ascText);
      break;
    default:
      return sort satisfies never;
  }
  return [...rows].sort(chain([...order, ...chronological, ...byName])) as unknown as T[];
}
