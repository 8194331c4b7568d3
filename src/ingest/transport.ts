// How a job result crosses from a worker thread to the main thread. The
// usage events go as two typed arrays, moved (not copied) with the message:
// per event, the indexes of its strings in a table and its numbers. The rest
// of the result, the string table included, is a short JSON text. Events as
// objects were ~700 bytes of JSON each and every copy was allocated again on
// the main thread, which also runs the store's appender; as JSON rows they
// were a fifth of that, but still parsed value by value there (~45 ms of the
// workers' and ~35 ms of the main thread's CPU for the benchmark's cold run).
import type { UsageEvent } from '../core/types.js';
import { UnitColumns } from '../core/unit-columns.js';
import type { JobResult } from './job.js';

/** Every field of UsageEvent, in row order; strings go through the table. */
const STRING_FIELDS = ['harness', 'session_id', 'project', 'model', 'provider', 'dedupe_key', 'source_file', 'billing_kind', 'speed', 'grain'] as const;
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
  'request_units',
  'web_search_requests',
  'iteration',
] as const;

// A field missing from both lists would be dropped in transit: make that a type error.
// (`rule` is for `tx-usage explain`, which extracts in its own thread: never stored, so never sent.)
type Listed = (typeof STRING_FIELDS)[number] | (typeof NUMBER_FIELDS)[number];
const everyField: Record<Exclude<keyof UsageEvent, 'rule'>, true> = Object.fromEntries([...STRING_FIELDS, ...NUMBER_FIELDS].map((k) => [k, true])) as Record<Listed, true>;
void everyField;

// decodeResult writes its object literal in these orders: kept in step here.
if (STRING_FIELDS.join() !== 'harness,session_id,project,model,provider,dedupe_key,source_file,billing_kind,speed,grain' || NUMBER_FIELDS.join() !== 'ts,dedupe_rank,requests,input_tokens,cache_read_tokens,cache_write_tokens,cache_write_5m_tokens,cache_write_1h_tokens,output_tokens,reasoning_tokens,recorded_cost_usd,source_line,request_units,web_search_requests,iteration') {
  throw new Error('transport.ts: decodeResult no longer matches the field lists');
}

const NS = STRING_FIELDS.length;
const NN = NUMBER_FIELDS.length;

/** A result as posted: `json` without the events, which are in `refs` (string indexes, -1 = null) and `nums` (NaN = null), and without the units of work, in `urefs` and `unums` alike. */
export interface EncodedResult {
  json: string;
  refs: Int32Array;
  nums: Float64Array;
  urefs: Int32Array;
  unums: Float64Array;
}

/** Per unit of work: harness and session through the string table; its numbers (unit-columns.ts) as they are. */
const UNIT_NS = 2;

/** The dedupe key: one per response, so it is not looked up in the table, only added. */
const UNIQUE_FIELD = STRING_FIELDS.indexOf('dedupe_key');

export function encodeResult(r: JobResult): EncodedResult {
  const events = r.collected.events;
  const index = new Map<string, number>();
  const strings: string[] = [];
  const refs = new Int32Array(events.length * NS);
  const nums = new Float64Array(events.length * NN);
  // Per field, the previous event's string and its index: events of a file
  // mostly repeat their session, project, model, provider and file, and a
  // comparison with the previous value (often the very same string) is
  // cheaper than hashing a fresh copy of it for the table.
  const prevString: (string | null)[] = new Array<string | null>(NS).fill(null);
  const prevIndex = new Int32Array(NS).fill(-1);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    for (let f = 0; f < NS; f++) {
      const s = e[STRING_FIELDS[f]!] ?? null;
      let k = -1;
      if (s !== null) {
        if (s === prevString[f]) k = prevIndex[f]!;
        else if (f === UNIQUE_FIELD) {
          k = strings.length;
          strings.push(s);
        } else {
          k = index.get(s) ?? -1;
          if (k === -1) {
            k = strings.length;
            strings.push(s);
            index.set(s, k);
          }
          prevString[f] = s;
          prevIndex[f] = k;
        }
      }
      refs[i * NS + f] = k;
    }
    for (let f = 0; f < NN; f++) {
      const v = e[NUMBER_FIELDS[f]!] ?? null;
      // Numbers of an event are finite or null (core/numbers.ts), so NaN can stand for null.
      nums[i * NN + f] = v === null ? NaN : v;
    }
  }
  // Units of work: their columns' numbers as they are, sessions through the table.
  const units = r.collected.units;
  const urefs = new Int32Array(units.length * UNIT_NS);
  const unums = Float64Array.from(units.nums);
  const intern = (s: string) => {
    let k = index.get(s);
    if (k === undefined) {
      k = strings.length;
      strings.push(s);
      index.set(s, k);
    }
    return k;
  };
  for (let i = 0; i < units.length; i++) {
    urefs[i * UNIT_NS] = intern(units.harnesses[i]!);
    urefs[i * UNIT_NS + 1] = intern(units.sessions[i]!);
  }
  return { json: JSON.stringify({ ...r, collected: { ...r.collected, events: [], units: null }, strings }), refs, nums, urefs, unums };
}

/** The buffers encodeResult's arrays live in: give them as the message's transfer list. */
export function transferList(e: EncodedResult): ArrayBuffer[] {
  return [e.refs.buffer as ArrayBuffer, e.nums.buffer as ArrayBuffer, e.urefs.buffer as ArrayBuffer, e.unums.buffer as ArrayBuffer];
}

export function decodeResult(e: EncodedResult): JobResult {
  const o = JSON.parse(e.json) as JobResult & { strings: string[] };
  const { strings } = o;
  const { refs, nums } = e;
  const n = refs.length / NS;
  const events = new Array<UsageEvent>(n);
  const str = (k: number) => (k === -1 ? null : strings[k]!);
  const num = (v: number) => (Number.isNaN(v) ? null : v);
  for (let i = 0; i < n; i++) {
    const r = i * NS;
    const m = i * NN;
    // One object literal, fields in UsageEvent's order: every event gets the
    // same hidden class at once (added key by key, through a computed name,
    // each event was built property by property: ~2x the decode's time).
    // The indexes follow STRING_FIELDS and NUMBER_FIELDS (test/transport.test.ts);
    // -1 and NaN stand for null in every field, as encodeResult wrote them.
    events[i] = {
      harness: str(refs[r]!) as UsageEvent['harness'],
      session_id: str(refs[r + 1]!)!,
      project: str(refs[r + 2]!),
      model: str(refs[r + 3]!),
      provider: str(refs[r + 4]!),
      ts: num(nums[m]!)!,
      dedupe_key: str(refs[r + 5]!)!,
      dedupe_rank: num(nums[m + 1]!)!,
      requests: num(nums[m + 2]!)!,
      input_tokens: num(nums[m + 3]!)!,
      cache_read_tokens: num(nums[m + 4]!)!,
      cache_write_tokens: num(nums[m + 5]!)!,
      cache_write_5m_tokens: num(nums[m + 6]!),
      cache_write_1h_tokens: num(nums[m + 7]!),
      output_tokens: num(nums[m + 8]!)!,
      reasoning_tokens: num(nums[m + 9]!)!,
      recorded_cost_usd: num(nums[m + 10]!),
      source_file: str(refs[r + 6]!)!,
      source_line: num(nums[m + 11]!),
      billing_kind: str(refs[r + 7]!),
      request_units: num(nums[m + 12]!),
      speed: str(refs[r + 8]!),
      web_search_requests: num(nums[m + 13]!),
      iteration: num(nums[m + 14]!),
      grain: str(refs[r + 9]!) as UsageEvent['grain'],
    };
  }
  o.collected.events = events;
  const { urefs, unums } = e;
  const nu = urefs.length / UNIT_NS;
  const harnesses = new Array<string>(nu);
  const sessions = new Array<string>(nu);
  for (let i = 0; i < nu; i++) {
    harnesses[i] = strings[urefs[i * UNIT_NS]!]!;
    sessions[i] = strings[urefs[i * UNIT_NS + 1]!]!;
  }
  const units = new UnitColumns(harnesses, sessions, unums);
  o.collected.units = units;
  delete (o as Partial<typeof o>).strings;
  return o;
}
