// How extraction results travel from the thread that made them to the
// writer: many sources' results in one pack of columns. Per response, the
// indexes of its strings in the pack's table and its numbers, each in one
// typed array for the whole pack (moved with the message, not copied); per
// unit of work likewise; the rest of each result (warnings, resume point,
// session facts…) and the string table as one short JSON text. A pack is
// made once per batch of sources, not per source: a message, its typed
// arrays and its JSON cost a fixed ~50 µs each, which for 100 000 small
// transcripts was more than reading them. The writer (store/write.ts)
// appends rows from the columns; nothing makes an object per response
// unless asked for one (PackedCollected.events: the live views).
import type { UsageEvent } from '../core/types.js';
import { UNIT_NUMS, UnitColumns } from '../core/unit-columns.js';
import type { SourceRef } from '../harnesses/types.js';
import type { Collected } from './collect.js';
import type { JobResult } from './job.js';

/** Every field of UsageEvent, in row order; strings go through the table. */
export const STRING_FIELDS = [
  'harness',
  'session_id',
  'project',
  'model',
  'provider',
  'dedupe_key',
  'source_file',
  'billing_kind',
  'speed',
  'grain',
] as const;
export const NUMBER_FIELDS = [
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
const everyField: Record<Exclude<keyof UsageEvent, 'rule'>, true> = Object.fromEntries(
  [...STRING_FIELDS, ...NUMBER_FIELDS].map((k) => [k, true]),
) as Record<Listed, true>;
void everyField;

/** Strings per response in `erefs`, numbers per response in `enums`. */
export const NS = STRING_FIELDS.length;
export const NN = NUMBER_FIELDS.length;
/** Column of each field in its array (S: erefs, N: enums). */
export const S = Object.fromEntries(STRING_FIELDS.map((f, i) => [f, i])) as Record<
  (typeof STRING_FIELDS)[number],
  number
>;
export const N = Object.fromEntries(NUMBER_FIELDS.map((f, i) => [f, i])) as Record<
  (typeof NUMBER_FIELDS)[number],
  number
>;
/** Per unit of work: harness and session through the string table; its numbers (unit-columns.ts) as they are. */
const UNIT_NS = 2;

/** What a result holds besides its responses and units, as it travels (source left out: the receiver has its job). */
type Rest = Omit<Collected, 'source' | 'events' | 'units'>;

/** One source's part of a pack: its job, its rows' ranges, the rest of its result. */
export interface PackEntry {
  /** The job's index in the list the pack's thread was given (pool.ts), or its id (a pack made where the result was taken). */
  index: number;
  /** Its responses are rows [e0, e1) of the pack, its units rows [u0, u1). */
  e0: number;
  e1: number;
  u0: number;
  u1: number;
  rest: Rest;
  tailHash: string | null;
  bytesRead: number;
  peakHeldBytes: number;
}

/** Many sources' results, as columns (see the top of this file). */
export interface Pack {
  strings: string[];
  /** NS string indexes per response (-1 = null). */
  erefs: Int32Array;
  /** NN numbers per response (NaN = null: every number of an event is finite or null, core/numbers.ts). */
  enums: Float64Array;
  /** UNIT_NS string indexes per unit. */
  urefs: Int32Array;
  /** UNIT_NUMS numbers per unit. */
  unums: Float64Array;
  entries: PackEntry[];
}

/** A pack as posted: the arrays move with the message (transferList), the rest is one JSON text. */
export interface SentPack {
  json: string;
  erefs: Int32Array;
  enums: Float64Array;
  urefs: Int32Array;
  unums: Float64Array;
}

/** The dedupe key: one per response, so it is added to the table without being looked up. */
const UNIQUE_FIELD = S.dedupe_key;

const grow = <T extends Int32Array | Float64Array>(a: T, need: number, make: (n: number) => T): T => {
  if (need <= a.length) return a;
  const b = make(Math.max(need, a.length * 2));
  b.set(a);
  return b;
};

/** Collects results into a pack; take() hands it over and starts the next one (its arrays are reused). */
export class PackBuilder {
  private strings: string[] = [];
  private index = new Map<string, number>();
  private erefs = new Int32Array(64 * NS);
  private enums = new Float64Array(64 * NN);
  private urefs = new Int32Array(64 * UNIT_NS);
  private unums = new Float64Array(64 * UNIT_NUMS);
  private ne = 0;
  private nu = 0;
  private entries: PackEntry[] = [];

  /** Sources in the pack being made. */
  get sources(): number {
    return this.entries.length;
  }
  /** Responses in the pack being made. */
  get events(): number {
    return this.ne;
  }

  private intern(s: string): number {
    let k = this.index.get(s);
    if (k === undefined) {
      k = this.strings.length;
      this.strings.push(s);
      this.index.set(s, k);
    }
    return k;
  }

  /** Adds a result; `index` says which job it is to the receiver (PackEntry.index). */
  add(r: JobResult, index: number): void {
    const c = r.collected;
    const events = c.events;
    const e0 = this.ne;
    const e1 = e0 + events.length;
    this.erefs = grow(this.erefs, e1 * NS, (n) => new Int32Array(n));
    this.enums = grow(this.enums, e1 * NN, (n) => new Float64Array(n));
    const { erefs, enums } = this;
    // The previous response's string per field and its index: responses of a
    // source mostly repeat their session, project, model, provider and file,
    // and comparing with the previous (often the very same string) is cheaper
    // than hashing it for the table.
    const prevString: (string | null)[] = new Array<string | null>(NS).fill(null);
    const prevIndex: number[] = new Array<number>(NS).fill(-1);
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      const r0 = (e0 + i) * NS;
      for (let f = 0; f < NS; f++) {
        const s = e[STRING_FIELDS[f]!] ?? null;
        let k = -1;
        if (s !== null) {
          if (f === UNIQUE_FIELD) {
            k = this.strings.length;
            this.strings.push(s);
          } else if (s === prevString[f]) k = prevIndex[f]!;
          else {
            k = this.intern(s);
            prevString[f] = s;
            prevIndex[f] = k;
          }
        }
        erefs[r0 + f] = k;
      }
      const n0 = (e0 + i) * NN;
      for (let f = 0; f < NN; f++) {
        const v = e[NUMBER_FIELDS[f]!] ?? null;
        enums[n0 + f] = v === null ? NaN : v;
      }
    }
    this.ne = e1;
    const units = c.units;
    const u0 = this.nu;
    const u1 = u0 + units.length;
    this.urefs = grow(this.urefs, u1 * UNIT_NS, (n) => new Int32Array(n));
    this.unums = grow(this.unums, u1 * UNIT_NUMS, (n) => new Float64Array(n));
    for (let i = 0; i < units.length; i++) {
      this.urefs[(u0 + i) * UNIT_NS] = this.intern(units.harnesses[i]!);
      this.urefs[(u0 + i) * UNIT_NS + 1] = this.intern(units.sessions[i]!);
    }
    this.unums.set(units.nums, u0 * UNIT_NUMS);
    this.nu = u1;
    const { source: _source, events: _events, units: _units, ...rest } = c;
    this.entries.push({
      index,
      e0,
      e1,
      u0,
      u1,
      rest,
      tailHash: r.tailHash,
      bytesRead: r.bytesRead,
      peakHeldBytes: r.peakHeldBytes,
    });
  }

  /** The pack made so far (null when empty), as this thread's own; the builder starts again. */
  take(): Pack | null {
    if (!this.entries.length) return null;
    const pack: Pack = {
      strings: this.strings,
      erefs: this.erefs.slice(0, this.ne * NS),
      enums: this.enums.slice(0, this.ne * NN),
      urefs: this.urefs.slice(0, this.nu * UNIT_NS),
      unums: this.unums.slice(0, this.nu * UNIT_NUMS),
      entries: this.entries,
    };
    this.strings = [];
    this.index = new Map();
    this.entries = [];
    this.ne = 0;
    this.nu = 0;
    return pack;
  }
}

/** A pack ready to post (give transferList(sent) as the transfer list). */
export function sendable(p: Pack): SentPack {
  return {
    json: JSON.stringify({ strings: p.strings, entries: p.entries }),
    erefs: p.erefs,
    enums: p.enums,
    urefs: p.urefs,
    unums: p.unums,
  };
}

/** The buffers a sent pack's arrays live in: moved with the message. */
export function transferList(p: SentPack): ArrayBuffer[] {
  return [
    p.erefs.buffer as ArrayBuffer,
    p.enums.buffer as ArrayBuffer,
    p.urefs.buffer as ArrayBuffer,
    p.unums.buffer as ArrayBuffer,
  ];
}

export function received(p: SentPack): Pack {
  const { strings, entries } = JSON.parse(p.json) as { strings: string[]; entries: PackEntry[] };
  return { strings, entries, erefs: p.erefs, enums: p.enums, urefs: p.urefs, unums: p.unums };
}

/** One response of a pack as an object (fields in UsageEvent's order, so every event has one hidden class). */
export function eventAt(p: Pack, i: number): UsageEvent {
  const r = i * NS;
  const m = i * NN;
  const { strings, erefs: refs, enums: nums } = p;
  const str = (k: number) => (k === -1 ? null : strings[k]!);
  const num = (v: number) => (Number.isNaN(v) ? null : v);
  return {
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
    grain: str(refs[r + 9]!) as UsageEvent['grain'],
    web_search_requests: num(nums[m + 13]!),
    iteration: num(nums[m + 14]!),
  };
}

// eventAt writes its object literal in these orders: kept in step here.
if (
  STRING_FIELDS.join() !==
    'harness,session_id,project,model,provider,dedupe_key,source_file,billing_kind,speed,grain' ||
  NUMBER_FIELDS.join() !==
    'ts,dedupe_rank,requests,input_tokens,cache_read_tokens,cache_write_tokens,cache_write_5m_tokens,cache_write_1h_tokens,output_tokens,reasoning_tokens,recorded_cost_usd,source_line,request_units,web_search_requests,iteration'
) {
  throw new Error('transport.ts: eventAt no longer matches the field lists');
}

/**
 * One source's result inside a pack, read as a Collected: responses and
 * units are made as objects only when asked for (`events`, `units`); the
 * writer reads the pack's columns instead (store/write.ts).
 */
export class PackedCollected implements Collected {
  source: SourceRef;
  estimates: Collected['estimates'];
  contexts: Collected['contexts'];
  rateLimits: Collected['rateLimits'];
  facts: Collected['facts'];
  warnings: string[];
  tailWarnings: string[];
  skips: Collected['skips'];
  counts: Record<string, number>;
  resume: Collected['resume'];
  failed: boolean;
  private made: UsageEvent[] | null = null;
  private madeUnits: UnitColumns | null = null;

  constructor(
    readonly pack: Pack,
    readonly entry: PackEntry,
    source: SourceRef,
  ) {
    this.source = source;
    const r = entry.rest;
    this.estimates = r.estimates;
    this.contexts = r.contexts;
    this.rateLimits = r.rateLimits;
    this.facts = r.facts;
    this.warnings = r.warnings;
    this.tailWarnings = r.tailWarnings;
    this.skips = r.skips;
    this.counts = r.counts;
    this.resume = r.resume;
    this.failed = r.failed;
  }

  /** Responses in the pack. */
  get eventCount(): number {
    return this.entry.e1 - this.entry.e0;
  }

  /** Whether some response's rank and time satisfy `f` (read from the columns). */
  someEvent(f: (rank: number, ts: number) => boolean): boolean {
    const nums = this.pack.enums;
    for (let i = this.entry.e0; i < this.entry.e1; i++)
      if (f(nums[i * NN + N.dedupe_rank]!, nums[i * NN + N.ts]!)) return true;
    return false;
  }

  get events(): UsageEvent[] {
    if (this.made === null) {
      const out: UsageEvent[] = [];
      for (let i = this.entry.e0; i < this.entry.e1; i++) out.push(eventAt(this.pack, i));
      this.made = out;
    }
    return this.made;
  }

  get units(): UnitColumns {
    if (this.madeUnits === null) {
      const { u0, u1 } = this.entry;
      const { strings, urefs, unums } = this.pack;
      const harnesses: string[] = [];
      const sessions: string[] = [];
      for (let i = u0; i < u1; i++) {
        harnesses.push(strings[urefs[i * UNIT_NS]!]!);
        sessions.push(strings[urefs[i * UNIT_NS + 1]!]!);
      }
      this.madeUnits = new UnitColumns(harnesses, sessions, unums.subarray(u0 * UNIT_NUMS, u1 * UNIT_NUMS));
    }
    return this.madeUnits;
  }

  /** The same source with no responses, units or other rows: what is written of a failed read of a source the store holds. */
  withoutRows(rest: Partial<Rest>): PackedCollected {
    const entry = { ...this.entry, e1: this.entry.e0, u1: this.entry.u0, rest: { ...this.entry.rest, ...rest } };
    return new PackedCollected(this.pack, entry, this.source);
  }

  /** The same result as plain objects (for the rare change that adds rows: ingest's rewrite rule). */
  plain(): Collected {
    const {
      source,
      events,
      estimates,
      contexts,
      rateLimits,
      units,
      facts,
      warnings,
      tailWarnings,
      skips,
      counts,
      resume,
      failed,
    } = this;
    return {
      source,
      events,
      estimates,
      contexts,
      rateLimits,
      units,
      facts,
      warnings,
      tailWarnings,
      skips,
      counts,
      resume,
      failed,
    };
  }

  /** The same rows with other fields changed (warnings, resume…). */
  with(rest: Partial<Rest>): PackedCollected {
    return new PackedCollected(this.pack, { ...this.entry, rest: { ...this.entry.rest, ...rest } }, this.source);
  }
}

/** A result as a packed one: itself when it is, else packed on its own (a result made in this thread). */
export function packed(c: Collected): PackedCollected {
  if (c instanceof PackedCollected) return c;
  const b = new PackBuilder();
  b.add({ id: 0, collected: c, tailHash: null, bytesRead: 0, peakHeldBytes: 0 }, 0);
  const p = b.take()!;
  return new PackedCollected(p, p.entries[0]!, c.source);
}

/** The results of a received pack, each a JobResult of the job it names. */
export function resultsOf(
  p: Pack,
  jobOf: (index: number) => { id: number; source: SourceRef },
): { index: number; result: JobResult }[] {
  return p.entries.map((e) => {
    const job = jobOf(e.index);
    return {
      index: e.index,
      result: {
        id: job.id,
        collected: new PackedCollected(p, e, job.source),
        tailHash: e.tailHash,
        bytesRead: e.bytesRead,
        peakHeldBytes: e.peakHeldBytes,
      },
    };
  });
}

/** The fields of a response that event_attrs keeps (its combination), as columns of erefs. */
const COMBINATION = [
  S.harness,
  S.session_id,
  S.project,
  S.model,
  S.provider,
  S.source_file,
  S.billing_kind,
  S.speed,
  S.grain,
];

/**
 * A response of a pack read in place: one object, moved from row to row
 * (at()), with a UsageEvent's fields, for code that takes a response (the
 * cost function, the row writer) without an object made per row.
 */
export class EventCursor implements UsageEvent {
  harness: UsageEvent['harness'] = 'claude-code';
  session_id = '';
  project: string | null = null;
  model: string | null = null;
  provider: string | null = null;
  ts = 0;
  dedupe_key = '';
  dedupe_rank = 0;
  requests = 0;
  input_tokens = 0;
  cache_read_tokens = 0;
  cache_write_tokens = 0;
  cache_write_5m_tokens: number | null = null;
  cache_write_1h_tokens: number | null = null;
  output_tokens = 0;
  reasoning_tokens = 0;
  recorded_cost_usd: number | null = null;
  source_file = '';
  source_line: number | null = null;
  billing_kind: string | null = null;
  request_units: number | null = null;
  speed: string | null = null;
  grain: UsageEvent['grain'] = null;
  web_search_requests: number | null = null;
  iteration: number | null = null;
  private p: Pack | null = null;

  /** Reads rows of `p` from now on. */
  over(p: Pack): void {
    this.p = p;
  }

  /** Moves to row i. */
  at(i: number): void {
    const { strings, erefs: refs, enums: nums } = this.p!;
    const r = i * NS;
    const m = i * NN;
    const str = (k: number) => (k === -1 ? null : strings[k]!);
    const num = (v: number) => (v !== v ? null : v); // NaN stands for null
    this.harness = strings[refs[r]!] as UsageEvent['harness'];
    this.session_id = strings[refs[r + 1]!]!;
    this.project = str(refs[r + 2]!);
    this.model = str(refs[r + 3]!);
    this.provider = str(refs[r + 4]!);
    this.dedupe_key = strings[refs[r + 5]!]!;
    this.source_file = strings[refs[r + 6]!]!;
    this.billing_kind = str(refs[r + 7]!);
    this.speed = str(refs[r + 8]!);
    this.grain = str(refs[r + 9]!) as UsageEvent['grain'];
    this.ts = nums[m]!;
    this.dedupe_rank = nums[m + 1]!;
    this.requests = nums[m + 2]!;
    this.input_tokens = nums[m + 3]!;
    this.cache_read_tokens = nums[m + 4]!;
    this.cache_write_tokens = nums[m + 5]!;
    this.cache_write_5m_tokens = num(nums[m + 6]!);
    this.cache_write_1h_tokens = num(nums[m + 7]!);
    this.output_tokens = nums[m + 8]!;
    this.reasoning_tokens = nums[m + 9]!;
    this.recorded_cost_usd = num(nums[m + 10]!);
    this.source_line = num(nums[m + 11]!);
    this.request_units = num(nums[m + 12]!);
    this.web_search_requests = num(nums[m + 13]!);
    this.iteration = num(nums[m + 14]!);
  }

  /** Rows i and j have the same combination of repeated strings. */
  sameRows(i: number, j: number): boolean {
    const refs = this.p!.erefs;
    const a = i * NS;
    const b = j * NS;
    for (const f of COMBINATION) if (refs[a + f] !== refs[b + f]) return false;
    return true;
  }

  /** Row i's combination as a key (of this pack's table). */
  keyOf(i: number): string {
    const refs = this.p!.erefs;
    const a = i * NS;
    let k = '';
    for (const f of COMBINATION) k += `${refs[a + f]},`;
    return k;
  }
}

/**
 * A source's responses as the writer reads them, one row at a time: in a
 * pack (read in place through a cursor) or as the objects an extraction in
 * this thread made. Written once over both (store/write.ts).
 */
export interface EventRows {
  readonly length: number;
  /** Response i (0-based): an object valid until the next call. */
  at(i: number): UsageEvent;
  /** Responses i and j share the strings event_attrs keeps (their combination). */
  same(i: number, j: number): boolean;
  /** Response i's combination, as a key (equal keys, equal combinations: within this source). */
  key(i: number): string;
}

/** The strings event_attrs keeps for a response, as one key (NUL-separated; \u0001 for null). */
function comboKey(e: UsageEvent): string {
  const n = (v: string | null) => (v === null ? '\u0001' : v);
  return `${e.harness}\0${e.session_id}\0${n(e.project)}\0${n(e.model)}\0${n(e.provider)}\0${e.source_file}\0${n(e.billing_kind ?? null)}\0${n(e.speed ?? null)}\0${n(e.grain ?? null)}`;
}

function sameStrings(a: UsageEvent, b: UsageEvent): boolean {
  return (
    a.session_id === b.session_id &&
    a.project === b.project &&
    a.model === b.model &&
    a.provider === b.provider &&
    a.source_file === b.source_file &&
    a.harness === b.harness &&
    (a.billing_kind ?? null) === (b.billing_kind ?? null) &&
    (a.speed ?? null) === (b.speed ?? null) &&
    (a.grain ?? null) === (b.grain ?? null)
  );
}

/** The rows of a result: from its pack's columns when it came packed, else its objects. */
export function eventRows(c: Collected): EventRows {
  if (c instanceof PackedCollected) {
    const { e0, e1 } = c.entry;
    const cur = new EventCursor();
    cur.over(c.pack);
    return {
      length: e1 - e0,
      at: (i) => (cur.at(e0 + i), cur),
      same: (i, j) => cur.sameRows(e0 + i, e0 + j),
      key: (i) => cur.keyOf(e0 + i),
    };
  }
  const ev = c.events;
  return {
    length: ev.length,
    at: (i) => ev[i]!,
    same: (i, j) => sameStrings(ev[i]!, ev[j]!),
    key: (i) => comboKey(ev[i]!),
  };
}
