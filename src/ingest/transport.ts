// How a job result crosses from a worker thread to the main thread: JSON
// text, with the usage events as rows of values and their strings in a table.
// An event repeats its file path, project, session and model, so as objects
// they were ~700 bytes of JSON each (25 MB for the benchmark's 35 000 events)
// and JSON.parse allocated every copy on the main thread, which also runs the
// store's appender. As rows they take a fifth of that.
import type { UsageEvent } from '../core/types.js';
import type { JobResult } from './job.js';

/** Every field of UsageEvent, in row order; strings go through the table. */
const STRING_FIELDS = ['harness', 'session_id', 'project', 'model', 'provider', 'dedupe_key', 'source_file'] as const;
const NUMBER_FIELDS = [
  'ts',
  'dedupe_rank',
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'output_tokens',
  'reasoning_tokens',
  'recorded_cost_usd',
  'source_line',
] as const;

// A field missing from both lists would be dropped in transit: make that a type error.
type Listed = (typeof STRING_FIELDS)[number] | (typeof NUMBER_FIELDS)[number];
const everyField: Record<keyof UsageEvent, true> = Object.fromEntries([...STRING_FIELDS, ...NUMBER_FIELDS].map((k) => [k, true])) as Record<Listed, true>;
void everyField;

interface Packed {
  strings: string[];
  /** Per event: string indexes (-1 = null), then the numbers. */
  rows: (number | null)[][];
}

export function encodeResult(r: JobResult): string {
  const index = new Map<string, number>();
  const strings: string[] = [];
  const ref = (s: string | null): number => {
    if (s === null) return -1;
    let i = index.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      index.set(s, i);
    }
    return i;
  };
  const rows = r.collected.events.map((e) => {
    const row: (number | null)[] = [];
    for (const f of STRING_FIELDS) row.push(ref(e[f]));
    for (const f of NUMBER_FIELDS) row.push(e[f]);
    return row;
  });
  const packed: Packed = { strings, rows };
  return JSON.stringify({ ...r, collected: { ...r.collected, events: [] }, packed });
}

export function decodeResult(text: string): JobResult {
  const o = JSON.parse(text) as JobResult & { packed: Packed };
  const { strings, rows } = o.packed;
  const ns = STRING_FIELDS.length;
  o.collected.events = rows.map((row) => {
    const e = {} as Record<string, unknown>;
    STRING_FIELDS.forEach((f, i) => (e[f] = row[i] === -1 ? null : strings[row[i] as number]));
    NUMBER_FIELDS.forEach((f, i) => (e[f] = row[ns + i]));
    return e as unknown as UsageEvent;
  });
  delete (o as Partial<typeof o>).packed;
  return o;
}
