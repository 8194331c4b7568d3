// The live snapshot: what the status line needs from the store, kept in
// tx-usage's cache dir (live/snapshot.json) so that a status line never
// loads DuckDB (~200 ms for its native library and the store's open, against
// a target of 80 ms for the whole line). It is made by a process that has the
// store open and up to date (refresh.ts: the status line's background
// refresh, or `watch`), and holds, as of that moment:
// - every billed response (one row per dedupe key, the store's own rows)
//   with a timestamp at or after `from` (48 h back, or further back to where
//   each harness's block chain starts);
// - whole-history totals of the sessions active since `from` and of those
//   with rows in the listed sources;
// - the bookkeeping row (size, inode, resume point and state, tail hash) and
//   discovery facts of every transcript of the status-line harnesses written
//   to since `from`: the status line resumes its own session's files from
//   there, exactly as the next ingest will;
// - the pricer's compiled prices for the models seen (pricing/cache.ts): a
//   cost priced from them equals the pricer's to the digit;
// - recent plan rate-limit snapshots (Codex), for `watch`.
// Made by snapshot-build.ts; see merge.ts for how appended responses are
// added and why the result equals the store's after its next ingest.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { HarnessId, RateLimitSnapshot } from '../core/types.js';
import type { SourceRef } from '../harnesses/types.js';
import { parseWithBigInt, stringifyWithBigInt, type PriceCache } from '../pricing/cache.js';
import type { EventSums } from './blocks.js';
import type { StoredEvent } from './events.js';
import type { SourceBookRow } from '../store/write.js';

export const SNAPSHOT_VERSION = 1;
/** How far back the snapshot's responses reach at least: "today" in any zone, and the last 24 h. */
export const SNAPSHOT_SPAN_MS = 48 * 3_600_000;

/** A status-line source: where it is, and the store's resume bookkeeping of it (the same fields as its sources row). */
export interface SnapSource extends Pick<
  SourceBookRow,
  'size' | 'ino' | 'resume_offset' | 'resume_lines' | 'resume_state' | 'tail_hash'
> {
  key: string;
  harness: HarnessId;
  path: string;
  kind: SourceRef['kind'];
  meta?: Record<string, string>;
  /** Sessions the store holds rows of from this source. */
  sessions: string[];
}

export interface LiveSnapshot {
  v: number;
  /** When it was made and from which store. */
  made_at: number;
  db: string;
  /** Responses with ts >= from are all in `events`. */
  from: number;
  /** Per harness: the first response of its latest block before the span (its blocks from there on are exact, as from the chain's start). */
  block_from: Record<string, number>;
  events: StoredEvent[];
  /** Whole-history sums per `harness NUL session`. */
  sessions: Record<string, EventSums & { first_ts_ms: string | null; last_ts_ms: string | null }>;
  /** Transcripts of the status-line harnesses written since `from`, by path. */
  sources: Record<string, SnapSource>;
  prices: PriceCache;
  limits: RateLimitSnapshot[];
  /** The current month (in the status line's zone) before `from`: cost per harness and project, for monthly budgets. */
  month: {
    start: number;
    before: { harness: string; project: string | null; cost_e10: string | null; unpriced_requests: number }[];
  };
}

export const sessionKey = (harness: string, session: string) => `${harness}\u0000${session}`;

/** A source as the snapshot lists it: discovery's facts and the store's bookkeeping row. */
export function snapSource(
  ref: SourceRef,
  book: Pick<SnapSource, 'size' | 'ino' | 'resume_offset' | 'resume_lines' | 'resume_state' | 'tail_hash'>,
  sessions: string[],
): SnapSource {
  return {
    key: ref.key,
    harness: ref.harness,
    path: ref.path,
    kind: ref.kind,
    ...(ref.meta ? { meta: ref.meta } : {}),
    size: book.size,
    ino: book.ino,
    resume_offset: book.resume_offset,
    resume_lines: book.resume_lines,
    resume_state: book.resume_state,
    tail_hash: book.tail_hash,
    sessions,
  };
}

export function snapshotPath(cacheDir: string): string {
  return join(cacheDir, 'live', 'snapshot.json');
}

// On disk the responses are arrays of numbers and string-table indexes, and
// the prices a JSON text of their own: a status line parses this file on
// every run, and named fields (or a reviver for the prices' BigInts over the
// whole file) cost several times more to parse.
const STRING_FIELDS = ['harness', 'session', 'project', 'model', 'provider', 'key'] as const;
type Row = (number | string | null)[];

interface SnapshotFile extends Omit<LiveSnapshot, 'events' | 'prices'> {
  strings: string[];
  rows: Row[];
  prices: string;
}

function encode(s: LiveSnapshot): SnapshotFile {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const ref = (v: string | null) => {
    if (v === null) return -1;
    let i = index.get(v);
    if (i === undefined) {
      i = strings.length;
      strings.push(v);
      index.set(v, i);
    }
    return i;
  };
  const big = (v: bigint | null) => (v === null ? null : v.toString());
  const rows = s.events.map((e): Row => [
    ...STRING_FIELDS.map((f) => ref(e[f])),
    e.ts,
    e.rank,
    e.requests,
    e.input,
    e.cache_read,
    e.cache_write,
    e.output,
    e.reasoning,
    big(e.cost_e10),
    big(e.computed_e10),
    big(e.recorded_e10),
    e.uses_recorded ? 1 : 0,
  ]);
  const { events: _e, prices, ...rest } = s;
  void _e;
  return { ...rest, strings, rows, prices: stringifyWithBigInt(prices) };
}

function decode(f: SnapshotFile): LiveSnapshot {
  const str = (i: number) => (i < 0 ? null : f.strings[i]!);
  const big = (v: unknown) => (v === null ? null : BigInt(v as string));
  const events = f.rows.map((r): StoredEvent => ({
    harness: str(r[0] as number)!,
    session: str(r[1] as number)!,
    project: str(r[2] as number),
    model: str(r[3] as number),
    provider: str(r[4] as number),
    key: str(r[5] as number)!,
    ts: r[6] as number,
    rank: r[7] as number,
    requests: r[8] as number,
    input: r[9] as number,
    cache_read: r[10] as number,
    cache_write: r[11] as number,
    output: r[12] as number,
    reasoning: r[13] as number,
    cost_e10: big(r[14]),
    computed_e10: big(r[15]),
    recorded_e10: big(r[16]),
    uses_recorded: r[17] === 1,
  }));
  const { strings: _s, rows: _r, prices, ...rest } = f;
  void _s;
  void _r;
  return { ...rest, events, prices: parseWithBigInt(prices) as PriceCache };
}

/** The snapshot in the cache dir, or null when there is none (or it is of another version or store, or unreadable). */
export function readSnapshot(cacheDir: string, dbPath: string): LiveSnapshot | null {
  try {
    const f = JSON.parse(readFileSync(snapshotPath(cacheDir), 'utf8')) as SnapshotFile;
    return f.v === SNAPSHOT_VERSION && f.db === dbPath ? decode(f) : null;
  } catch {
    return null;
  }
}

export function writeSnapshot(cacheDir: string, s: LiveSnapshot): void {
  const path = snapshotPath(cacheDir);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(encode(s)));
  renameSync(tmp, path);
}
