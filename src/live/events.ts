// Billed responses read from the store for the live views, and the blocks
// of each harness built from them without reading whole histories: blocks
// are computed from the latest chain start before the window
// (queries/live_anchor.sql), which gives the same blocks as the whole
// history would. Blocks, budgets and plan limits add up windows of time from
// the store's 15-minute slots (queries/live_span.sql: a slot wholly inside a
// window as one event, the responses of a slot a bound cuts one by one); the
// live snapshot keeps its window's responses one by one (appended ones are
// merged into them by key, merge.ts).
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CostMode } from '../report/summary-rows.js';
import { loadTemplate, runTemplate } from '../report/template.js';
import { nowMs } from './clock.js';
import { FUTURE_SKEW_MS } from '../ingest/collect.js';
import {
  BLOCK_MS,
  identifyBlocks,
  isActive,
  latestBlockFirstTs,
  RECENT_MS,
  type Block,
  type LiveEvent,
} from './blocks.js';

/** A LiveEvent with what identifies it in the store (the statusline merges appended responses by it). */
export interface StoredEvent extends LiveEvent {
  provider: string | null;
  key: string;
  rank: number;
}

const big = (v: unknown): bigint | null => (v === null || v === undefined ? null : BigInt(v as string | number));
const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export function eventOfRow(r: Record<string, unknown>): StoredEvent {
  return {
    harness: String(r.harness),
    session: String(r.session_id),
    project: (r.project as string | null) ?? null,
    model: (r.model as string | null) ?? null,
    provider: (r.provider as string | null) ?? null,
    ts: num(r.ts_ms),
    key: String(r.dedupe_key),
    rank: num(r.dedupe_rank),
    requests: num(r.requests),
    input: num(r.input_tokens),
    cache_read: num(r.cache_read_tokens),
    cache_write: num(r.cache_write_tokens),
    output: num(r.output_tokens),
    reasoning: num(r.reasoning_tokens),
    cost_e10: big(r.cost_e10),
    computed_e10: big(r.computed_cost_e10),
    recorded_e10: big(r.recorded_cost_e10),
    uses_recorded: r.uses_recorded === true,
  };
}

export interface EventFilter {
  harnesses: string[];
  project: string;
  costMode: CostMode;
}

/**
 * A window's end as the live views read it: responses dated in the future
 * (warned about at ingest: collect.ts) are never in a live view. readSpans
 * and readEvents, the two readers every live view goes through, both cap here.
 */
const liveUntil = (untilMs: number) => Math.ceil(Math.min(untilMs, nowMs() + FUTURE_SKEW_MS));

/** A live_span row as an event: one response, or a slot's responses (slot_ms set). */
function spanEvent(r: Record<string, unknown>): StoredEvent {
  const e = eventOfRow(r);
  if (r.slot_ms === null || r.slot_ms === undefined) return e;
  return {
    ...e,
    uses_recorded: false,
    slot: {
      slot: num(r.slot_ms),
      last: num(r.last_ts_ms),
      events: num(r.events),
      priced: num(r.priced_events),
      recorded: num(r.recorded_events),
      unpriced_requests: num(r.unpriced_requests),
      unpriced_tokens: num(r.unpriced_tokens),
    },
  };
}

/**
 * The billed responses of each window [from, until), in time order: as
 * events of 15-minute slots where a slot lies wholly inside the window, one
 * by one elsewhere (queries/live_span.sql). Their sums (blocks.ts
 * sumEvents) are the window's responses' sums. The connection must have the
 * report macros.
 */
export async function readSpans(
  conn: DuckDBConnection,
  f: EventFilter,
  windows: readonly (readonly [number, number])[],
): Promise<StoredEvent[][]> {
  const out: StoredEvent[][] = windows.map(() => []);
  if (!windows.length) return out;
  const rows = await runTemplate(conn, loadTemplate('live_span'), {
    harnesses: f.harnesses,
    project: f.project,
    cost_mode: f.costMode,
    from_ms: windows.map(([from]) => Math.floor(from)),
    until_ms: windows.map(([, until]) => liveUntil(until)),
  });
  for (const r of rows) out[num(r.w) - 1]!.push(spanEvent(r));
  return out;
}

/** Billed responses with from <= ts < until, one by one, in time order. The connection must have the report macros (export/local.ts labelLocalRows). */
export async function readEvents(
  conn: DuckDBConnection,
  f: EventFilter,
  fromMs: number,
  untilMs: number,
): Promise<StoredEvent[]> {
  const rows = await runTemplate(conn, loadTemplate('live_events'), {
    harnesses: f.harnesses,
    project: f.project,
    cost_mode: f.costMode,
    from_ms: Math.floor(fromMs),
    until_ms: liveUntil(untilMs),
  });
  return rows.map(eventOfRow);
}

/** Per harness, where its block chain containing `beforeMs` starts (absent: no response at or before it). */
export async function chainAnchors(
  conn: DuckDBConnection,
  f: Omit<EventFilter, 'costMode'>,
  beforeMs: number,
): Promise<Map<string, number>> {
  const rows = await runTemplate(conn, loadTemplate('live_anchor'), {
    harnesses: f.harnesses,
    project: f.project,
    before_ms: Math.floor(beforeMs),
    block_ms: BLOCK_MS,
  });
  return new Map(rows.map((r) => [String(r.harness), num(r.anchor_ms)]));
}

/**
 * Per harness, the first response of its latest block at or before
 * `beforeMs` (absent: no response at or before it). Blocks computed from
 * there on equal those computed from the chain's start (chainAnchors), which
 * on a history without a 5-hour pause can lie months back.
 */
export async function latestBlockStarts(
  conn: DuckDBConnection,
  f: Omit<EventFilter, 'costMode'>,
  beforeMs: number,
): Promise<Map<string, number>> {
  const anchors = await chainAnchors(conn, f, beforeMs);
  const out = new Map<string, number>();
  for (const [h, anchor] of anchors) {
    const rows = await runTemplate(conn, loadTemplate('live_block_times'), {
      harnesses: [h],
      project: f.project,
      from_ms: Math.floor(anchor),
      until_ms: Math.floor(beforeMs),
    });
    const first = latestBlockFirstTs(rows.map((r) => [num(r.ts_ms), num(r.last_ts_ms)] as const));
    out.set(h, first ?? anchor);
  }
  return out;
}

export interface HarnessBlocks {
  harness: string;
  blocks: Block[];
  /** The earliest instant read for it: blocks starting before it may be incomplete and are not returned. */
  readFrom: number;
}

/**
 * Each harness's blocks that can hold responses from `fromMs` to `untilMs`
 * (computed from the latest block starting at or before `fromMs`, which
 * gives the chain's own blocks). Blocks ending before `fromMs` are dropped by
 * the caller as it likes. A block active at `now` gets its last 30 minutes'
 * responses one by one (Block.recent: the recent burn rate's window).
 */
export async function blocksBetween(
  conn: DuckDBConnection,
  f: EventFilter,
  fromMs: number,
  untilMs: number,
  now: number,
): Promise<{ perHarness: HarnessBlocks[] }> {
  // From the latest block starting at or before fromMs: the blocks from there
  // on are the chain's, and the responses read are that block's onwards, not
  // the whole chain's (months of them on a history without a 5-hour pause).
  // A gap row before that block ends at its first response, at or before
  // fromMs, so no gap row in the range is lost.
  const anchors = await latestBlockStarts(conn, f, fromMs);
  const readFrom = Math.min(fromMs, ...anchors.values());
  const [events] = await readSpans(conn, f, [[readFrom, untilMs]]);
  const perHarness = f.harnesses.map((h) => {
    const from = anchors.get(h) ?? fromMs;
    const mine = events!.filter((e) => e.harness === h && e.ts >= from);
    return { harness: h, blocks: identifyBlocks(h, mine), readFrom: from };
  });
  const active = perHarness.flatMap((h) => h.blocks.filter((b) => isActive(b, now)));
  if (active.length) {
    const recent = await readEvents(conn, f, now - RECENT_MS + 1, now + 1);
    for (const b of active) b.recent = recent.filter((e) => e.harness === b.harness && e.ts >= b.events[0]!.ts);
  }
  return { perHarness };
}
