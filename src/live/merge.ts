// Responses appended to a session's transcripts since the live snapshot was
// made, added to the snapshot as the store will add them.
//
// Invariant (test/live/live-statusline.test.ts checks it against a real ingest):
// after the next ingest, the store's billed responses with ts >= snapshot.from
// and its session totals equal what mergeAppended returns, because
// - the appended responses are read by the harness's own extractor from the
//   store's own resume point and state (the next ingest reads exactly those
//   bytes the same way: same inode, same bytes before the resume point);
// - they are priced from the pricer's exported prices (pricing/cache.ts:
//   the same arithmetic, so the same cost to the digit; anything not in the
//   export is a miss, never a guess);
// - a response whose dedupe key the snapshot holds is combined by the
//   store's rule (the harness's winner order, src/harnesses/dedupe.ts), and a
//   new key is a new response;
// - what cannot be proven this way makes the answer unproven, never guessed:
//   a response dated before `from` (its key may be stored outside the
//   window), a copy (dedupe_rank > 0 where the harness marks copies so) of a
//   response the snapshot does not hold (its original may be stored outside
//   the window), a price miss.
import { nowMs } from './clock.js';
import { FUTURE_SKEW_MS } from '../ingest/collect.js';
import { usdToE10 } from '../core/money.js';
import type { HarnessId, UsageEvent } from '../core/types.js';
import { winnerOrderOf } from '../harnesses/dedupe.js';
import { harnessById } from '../harnesses/registry.js';
import { cachedCost, PRICE_MISS } from '../pricing/cache.js';
import { totalTokensOf, type EventSums } from './blocks.js';
import type { StoredEvent } from './events.js';
import { sessionKey, type LiveSnapshot } from './snapshot.js';

/** A session's sums as exact integers (the summary template's columns). */
export type Sums = Record<string, bigint | null>;

const COUNT_FIELDS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
  'usage_events',
  'priced_events',
  'recorded_events',
  'unpriced_requests',
  'unpriced_tokens',
] as const;
const COST_FIELDS = ['cost_e10', 'computed_cost_e10', 'recorded_cost_e10'] as const;

export function sumsOf(s: EventSums | undefined): Sums {
  const out: Sums = {};
  for (const k of COUNT_FIELDS) out[k] = BigInt(s?.[k] ?? '0');
  for (const k of COST_FIELDS) out[k] = s?.[k] === null || s?.[k] === undefined ? null : BigInt(s[k]!);
  return out;
}

export function sumsToRow(s: Sums): EventSums {
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v === null ? null : v.toString()]));
}

/** Adds (sign 1) or takes away (sign -1) one response from sums. */
export function addEvent(s: Sums, e: StoredEvent, sign: 1 | -1): void {
  const b = (n: number) => BigInt(n) * BigInt(sign);
  const one = BigInt(sign);
  s.requests! += b(e.requests);
  s.input_tokens! += b(e.input);
  s.cache_read_tokens! += b(e.cache_read);
  s.cache_write_tokens! += b(e.cache_write);
  s.output_tokens! += b(e.output);
  s.reasoning_tokens! += b(e.reasoning);
  s.total_tokens! += b(totalTokensOf(e));
  s.usage_events! += one;
  if (e.cost_e10 !== null) {
    s.cost_e10 = (s.cost_e10 ?? 0n) + e.cost_e10 * one;
    s.priced_events! += one;
    if (e.uses_recorded) s.recorded_events! += one;
  } else {
    s.unpriced_requests! += b(e.requests);
    s.unpriced_tokens! += b(totalTokensOf(e));
  }
  if (e.computed_e10 !== null) s.computed_cost_e10 = (s.computed_cost_e10 ?? 0n) + e.computed_e10 * one;
  if (e.recorded_e10 !== null) s.recorded_cost_e10 = (s.recorded_cost_e10 ?? 0n) + e.recorded_e10 * one;
  // Nothing priced left: unknown again, as the store's sum over no priced row is NULL.
  if (s.priced_events === 0n) s.cost_e10 = null;
}

/** The store's choice between two rows of one dedupe key (the harness's winner order). */
export function storeKeeps(a: StoredEvent, b: StoredEvent): StoredEvent {
  // Rows without a place: where usage and rank are equal the store orders by source file and line, and the numbers are the same either way.
  const row = (e: StoredEvent) => ({
    usage: totalTokensOf(e),
    dedupe_rank: e.rank,
    source_file: '',
    source_line: null,
  });
  return winnerOrderOf(harnessById(a.harness as HarnessId)).compare(row(a), row(b)) <= 0 ? a : b;
}

/** The lowest dedupe_rank of a copy whose original the snapshot must hold, or null where ranks do not mark copies. */
function copyRankFrom(harness: HarnessId): number | null {
  const h = harnessById(harness);
  return h?.rankMarksCopies ? (h.anyCopyRankFrom ?? h.copyRankFrom ?? 1) : null;
}

/** An extracted response as the store will hold it (cost under `auto`, priced from the snapshot's prices). */
export function storedFrom(e: UsageEvent, priceOf: PriceOf): StoredEvent | typeof PRICE_MISS {
  const computed = priceOf(e);
  if (computed === PRICE_MISS) return PRICE_MISS;
  const recorded = e.recorded_cost_usd === null ? null : usdToE10(e.recorded_cost_usd);
  return {
    harness: e.harness,
    session: e.session_id,
    project: e.project,
    model: e.model,
    provider: e.provider,
    ts: e.ts,
    key: e.dedupe_key,
    rank: e.dedupe_rank,
    requests: e.requests,
    input: e.input_tokens,
    cache_read: e.cache_read_tokens,
    cache_write: e.cache_write_tokens,
    output: e.output_tokens,
    reasoning: e.reasoning_tokens,
    cost_e10: recorded ?? computed,
    computed_e10: computed,
    recorded_e10: recorded,
    uses_recorded: recorded !== null,
  };
}

export interface Merged {
  /** The snapshot's window with the appended responses in (time order). */
  events: StoredEvent[];
  /** Whole-history sums per `harness NUL session`, appended responses included. */
  sessions: Map<string, Sums>;
  /** Why the result cannot be shown as exact (null: it can). */
  unproven: string | null;
}

/** The computed cost of a response: the snapshot's exported prices (a status line), or the ingest's own pricer (watch). */
export type PriceOf = (e: UsageEvent) => bigint | null | typeof PRICE_MISS;

export function mergeAppended(
  snap: LiveSnapshot,
  appended: readonly UsageEvent[],
  priceOf: PriceOf = (e) => cachedCost(snap.prices, e),
): Merged {
  const byKey = new Map<string, StoredEvent>();
  for (const e of snap.events) byKey.set(`${e.harness}\u0000${e.key}`, e);
  const sessions = new Map<string, Sums>();
  const sums = (h: string, s: string) => {
    const k = sessionKey(h, s);
    let v = sessions.get(k);
    if (!v) sessions.set(k, (v = sumsOf(snap.sessions[k])));
    return v;
  };
  let unproven: string | null = null;
  for (const raw of appended) {
    // Dated in the future: out of the live views, as readEvents leaves them (events.ts).
    if (raw.ts > nowMs() + FUTURE_SKEW_MS) continue;
    if (raw.ts < snap.from) {
      unproven ??= `a response dated before the snapshot's window (${new Date(raw.ts).toISOString()})`;
      continue;
    }
    const e = storedFrom(raw, priceOf);
    if (e === PRICE_MISS) {
      unproven ??= `no exported price for ${raw.model ?? 'an unknown model'}`;
      continue;
    }
    const k = `${e.harness}\u0000${e.key}`;
    const old = byKey.get(k);
    if (!old) {
      const copyFrom = copyRankFrom(e.harness as HarnessId);
      if (copyFrom !== null && e.rank >= copyFrom) {
        unproven ??= `a copied response (${e.key}) whose original is not in the snapshot`;
        continue;
      }
      byKey.set(k, e);
      addEvent(sums(e.harness, e.session), e, 1);
      continue;
    }
    if (storeKeeps(old, e) === old) continue;
    byKey.set(k, e);
    addEvent(sums(old.harness, old.session), old, -1);
    addEvent(sums(e.harness, e.session), e, 1);
  }
  const events = [...byKey.values()].sort((a, b) => a.ts - b.ts);
  for (const [k, v] of Object.entries(snap.sessions)) if (!sessions.has(k)) sessions.set(k, sumsOf(v));
  return { events, sessions, unproven };
}
