// 5-hour billing blocks: the one implementation, used by `report blocks`,
// `watch`, `statusline` and `check`.
//
// The rule is ccusage's (ryoppippi/ccusage, src/_session-blocks.ts:
// identifySessionBlocks, floorToHour, createBlock, createGapBlock,
// calculateBurnRate, projectBlockUsage), which is what users of 5-hour
// windows know:
// - responses are taken in time order, per account family (one harness);
// - a block starts at its first response's time floored to the UTC hour
//   (floorToHour: setUTCMinutes(0, 0, 0)) and ends 5 h later;
// - a response more than 5 h after its block's start, or more than 5 h after
//   the previous response, starts the next block (`>`: a response exactly at
//   the end still belongs to the block);
// - when two responses are more than 5 h apart, a gap row spans from 5 h
//   after the earlier one to the later one (createGapBlock);
// - a block is active while now is before its end and less than 5 h after
//   its last response.
// Where tx-usage differs, on purpose: sums and costs follow the summary's
// rules (metricsOf: exact integer sums, cost null when nothing is priced);
// burn rates count every token kind (total_tokens) and run to now, not to the
// last response, over the whole block and over the last 30 minutes; the
// projection adds the block rate over the time left.
import { metricsOf, type Metrics } from '../report/summary-rows.js';

export const BLOCK_HOURS = 5;
export const BLOCK_MS = BLOCK_HOURS * 3_600_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
/** The recent burn rate's window. */
export const RECENT_MS = 30 * MINUTE_MS;

/** One billed response as the live views use it (a row of queries/live_events.sql). */
export interface LiveEvent {
  harness: string;
  session: string;
  project: string | null;
  model: string | null;
  ts: number;
  requests: number;
  input: number;
  cache_read: number;
  cache_write: number;
  output: number;
  reasoning: number;
  /** Cost under the cost mode, 1e-10 USD; null when unpriced. */
  cost_e10: bigint | null;
  computed_e10: bigint | null;
  recorded_e10: bigint | null;
  /** The cost is the harness's recorded one. */
  uses_recorded: boolean;
  /**
   * Set when the event stands for the responses of one 15-minute slot of a
   * session, project and model (usage_slots, src/store/rollups.ts): `ts` is
   * the first of them and the figures above are their sums under the cost
   * mode (cost_e10 the priced ones', null when none is priced).
   */
  slot?: SlotSums;
}

/** What an event standing for a slot's responses adds to their sums (see LiveEvent.slot). */
export interface SlotSums {
  /** The slot's first instant (slot_ms). */
  slot: number;
  /** The last response's time. */
  last: number;
  events: number;
  priced: number;
  recorded: number;
  unpriced_requests: number;
  unpriced_tokens: number;
}

export const totalTokensOf = (e: LiveEvent) => e.input + e.cache_read + e.cache_write + e.output;

/** The time of an event's last response (its own for one response). */
export const lastTsOf = (e: LiveEvent) => e.slot?.last ?? e.ts;

/** The requests of an event that have no cost under the cost mode. */
export const unpricedRequestsOf = (e: LiveEvent) =>
  e.slot ? e.slot.unpriced_requests : e.cost_e10 === null ? e.requests : 0;

/** A block (or gap) of one harness: its bounds and the responses in it, in time order. */
export interface Block {
  harness: string;
  start: number;
  end: number;
  isGap: boolean;
  events: LiveEvent[];
  /**
   * Its responses of the 30 minutes before now, one by one, where `events`
   * holds slots (src/live/events.ts): the recent burn rate's window is not
   * cut at slot boundaries.
   */
  recent?: LiveEvent[];
}

/** The time of a block's last response. */
export function blockLastTs(b: Block): number {
  let last = -Infinity;
  for (const e of b.events) last = Math.max(last, lastTsOf(e));
  return last;
}

/** ccusage's floorToHour (UTC hours). */
export function floorToHour(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/**
 * ccusage's rule: a response more than a block's length after its block's
 * start (floored to the hour) or after the response before it starts a new
 * block.
 */
export function startsNewBlock(blockStart: number, lastTs: number, ts: number): boolean {
  return ts - blockStart > BLOCK_MS || ts - lastTs > BLOCK_MS;
}

/**
 * The time of the first response of the latest block, given a chain's
 * response times in order from the chain's start, as [first, last] of each
 * slot's responses (src/store/rollups.ts: no block starts inside a slot, as
 * a block ends on a UTC hour and a response on a slot's boundary is a slot
 * of its own): blocks computed from that response on are the blocks
 * computed from the chain's start.
 */
export function latestBlockFirstTs(sortedSpans: readonly (readonly [number, number])[]): number | null {
  let first: number | null = null;
  let start = 0;
  let last = 0;
  for (const [ts, lastTs] of sortedSpans) {
    if (first === null || startsNewBlock(start, last, ts)) {
      first = ts;
      start = floorToHour(ts);
    }
    last = Math.max(last, lastTs);
  }
  return first;
}

/**
 * Blocks and gap rows of one harness from its responses (any order; sorted
 * here). The first response must start a block chain: the earliest response
 * overall, or one more than 5 h after the response before it.
 */
export function identifyBlocks(harness: string, events: readonly LiveEvent[]): Block[] {
  const sorted = [...events].sort((a, b) => a.ts - b.ts);
  const out: Block[] = [];
  let cur: Block | null = null;
  // The latest response so far: a slot's events (LiveEvent.slot) end at their own last response.
  let last = 0;
  for (const e of sorted) {
    if (cur) {
      if (!startsNewBlock(cur.start, last, e.ts)) {
        cur.events.push(e);
        last = Math.max(last, lastTsOf(e));
        continue;
      }
      out.push(cur);
      if (e.ts - last > BLOCK_MS) out.push({ harness, start: last + BLOCK_MS, end: e.ts, isGap: true, events: [] });
    }
    const start = floorToHour(e.ts);
    cur = { harness, start, end: start + BLOCK_MS, isGap: false, events: [e] };
    last = lastTsOf(e);
  }
  if (cur) out.push(cur);
  return out;
}

export function isActive(b: Block, now: number): boolean {
  if (b.isGap || !b.events.length) return false;
  // Only the block that holds now: one starting later (future-dated rows) never is.
  return b.start <= now && now - blockLastTs(b) < BLOCK_MS && now < b.end;
}

/** The summary template's sums over some responses (its column names), for metricsOf. */
export interface EventSums {
  [k: string]: string | null;
}

/** Exact sums of responses in the summary template's columns (counts as decimal strings, costs null when none). */
export function sumEvents(events: readonly LiveEvent[]): EventSums {
  let requests = 0n,
    input = 0n,
    cacheRead = 0n,
    cacheWrite = 0n,
    output = 0n,
    reasoning = 0n;
  let cost: bigint | null = null,
    computed: bigint | null = null,
    recorded: bigint | null = null;
  let priced = 0,
    recordedN = 0,
    unpricedReq = 0n,
    unpricedTok = 0n;
  let n = 0;
  for (const e of events) {
    requests += BigInt(e.requests);
    input += BigInt(e.input);
    cacheRead += BigInt(e.cache_read);
    cacheWrite += BigInt(e.cache_write);
    output += BigInt(e.output);
    reasoning += BigInt(e.reasoning);
    if (e.cost_e10 !== null) cost = (cost ?? 0n) + e.cost_e10;
    if (e.slot) {
      n += e.slot.events;
      priced += e.slot.priced;
      recordedN += e.slot.recorded;
      unpricedReq += BigInt(e.slot.unpriced_requests);
      unpricedTok += BigInt(e.slot.unpriced_tokens);
    } else if (e.cost_e10 !== null) {
      n++;
      priced++;
      if (e.uses_recorded) recordedN++;
    } else {
      n++;
      unpricedReq += BigInt(e.requests);
      unpricedTok += BigInt(totalTokensOf(e));
    }
    if (e.computed_e10 !== null) computed = (computed ?? 0n) + e.computed_e10;
    if (e.recorded_e10 !== null) recorded = (recorded ?? 0n) + e.recorded_e10;
  }
  const s = (v: bigint | null) => (v === null ? null : v.toString());
  return {
    requests: s(requests),
    input_tokens: s(input),
    cache_read_tokens: s(cacheRead),
    cache_write_tokens: s(cacheWrite),
    output_tokens: s(output),
    reasoning_tokens: s(reasoning),
    total_tokens: s(input + cacheRead + cacheWrite + output),
    cost_e10: s(cost),
    computed_cost_e10: s(computed),
    recorded_cost_e10: s(recorded),
    usage_events: String(n),
    priced_events: String(priced),
    recorded_events: String(recordedN),
    unpriced_requests: s(unpricedReq),
    unpriced_tokens: s(unpricedTok),
  };
}

/** The summary's metric fields plus the unpriced share, for some responses. */
export type LiveMetrics = Metrics & { unpriced_requests: number; unpriced_tokens: number };

export function metricsOfEvents(events: readonly LiveEvent[]): LiveMetrics {
  const s = sumEvents(events);
  return {
    ...metricsOf(s),
    unpriced_requests: Number(s.unpriced_requests),
    unpriced_tokens: Number(s.unpriced_tokens),
  };
}

export interface BurnRate {
  tokens_per_minute: number;
  /** null when none of the responses in the window is priced. */
  cost_usd_per_hour: number | null;
  /** Some responses in the window have no price: the cost rate covers the priced ones only (a lower bound). */
  partial: boolean;
}

/** What only the active block has: time left, burn rates and the projection to its end. */
export interface ActiveFigures {
  elapsed_minutes: number;
  remaining_minutes: number;
  /** Over the last 30 minutes (or since the block's first response, when that is more recent). */
  burn_30m: BurnRate;
  /** From the block's first response to now. */
  burn_block: BurnRate;
  /** Tokens at the block's end if the block's rate goes on. */
  projected_total_tokens: number;
  projected_cost_usd: number | null;
}

function rate(events: readonly LiveEvent[], minutes: number): BurnRate {
  // Nothing in the window: nothing spent, a known $0 (not an unknown cost).
  if (!events.length) return { tokens_per_minute: 0, cost_usd_per_hour: 0, partial: false };
  const m = sumEvents(events);
  const cost = m.cost_e10 === null ? null : Number(BigInt(m.cost_e10)) / 1e10;
  return {
    tokens_per_minute: Number(m.total_tokens) / minutes,
    cost_usd_per_hour: cost === null ? null : (cost / minutes) * 60,
    partial: cost !== null && Number(m.unpriced_requests) > 0,
  };
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/** Null for a block that is not active at `now`. */
export function activeFigures(b: Block, now: number): ActiveFigures | null {
  if (!isActive(b, now)) return null;
  const first = b.events[0]!.ts;
  // At least a minute, so that a first response a second ago is not a rate of millions.
  const sinceFirst = Math.max(MINUTE_MS, now - first) / MINUTE_MS;
  const recentFrom = now - RECENT_MS;
  const recent = (b.recent ?? b.events).filter((e) => e.ts > recentFrom && e.ts <= now);
  const burnBlock = rate(b.events, sinceFirst);
  const burn30 = rate(recent, Math.min(RECENT_MS / MINUTE_MS, sinceFirst));
  const remaining = (b.end - now) / MINUTE_MS;
  const m = sumEvents(b.events);
  const cost = m.cost_e10 === null ? null : Number(BigInt(m.cost_e10)) / 1e10;
  return {
    elapsed_minutes: round((now - b.start) / MINUTE_MS, 1),
    remaining_minutes: round(remaining, 1),
    burn_30m: {
      tokens_per_minute: round(burn30.tokens_per_minute, 1),
      cost_usd_per_hour: burn30.cost_usd_per_hour === null ? null : round(burn30.cost_usd_per_hour, 4),
      partial: burn30.partial,
    },
    burn_block: {
      tokens_per_minute: round(burnBlock.tokens_per_minute, 1),
      cost_usd_per_hour: burnBlock.cost_usd_per_hour === null ? null : round(burnBlock.cost_usd_per_hour, 4),
      partial: burnBlock.partial,
    },
    projected_total_tokens: Math.round(Number(m.total_tokens) + burnBlock.tokens_per_minute * remaining),
    projected_cost_usd: cost === null ? null : round(cost + (burnBlock.cost_usd_per_hour! / 60) * remaining, 4),
  };
}

/** The distinct models of a block, in order of first use. */
export function modelsOf(b: Block): string[] {
  return [...new Set(b.events.map((e) => e.model ?? 'unknown'))];
}

/** `--token-limit max`: the largest finished block (ccusage: not gaps, not the active one); null when there is none. */
export function maxBlockTokens(blocks: readonly Block[], now: number): number | null {
  let max: number | null = null;
  for (const b of blocks) {
    if (b.isGap || isActive(b, now)) continue;
    const t = b.events.reduce((n, e) => n + totalTokensOf(e), 0);
    if (max === null || t > max) max = t;
  }
  return max;
}

/** The active block of `harness` at `now` among its blocks, or null. */
export function activeBlock(blocks: readonly Block[], now: number): Block | null {
  for (let i = blocks.length - 1; i >= 0; i--) if (isActive(blocks[i]!, now)) return blocks[i]!;
  return null;
}
