// What the live views show, from a snapshot with appended responses merged
// in (merge.ts): today's spend per harness, each family's active block,
// the sessions active in the last minutes, one session's total. The same
// function serves `statusline` and `watch`; blocks come from blocks.ts.
import { metricsOf } from '../report/summary-rows.js';
import { activeBlock, identifyBlocks, metricsOfEvents, type Block, type LiveMetrics } from './blocks.js';
import { blockRow, type BlockRow } from './block-rows.js';
import type { StoredEvent } from './events.js';
import { sessionKey, type LiveSnapshot } from './snapshot.js';
import { sumsToRow, type Merged, type Sums } from './merge.js';
import { localDay, localDayStartMs } from './time.js';

/** A session's whole-history metrics from its sums (the summary's rules). */
export function metricsOfSums(s: Sums): LiveMetrics {
  const row = sumsToRow(s);
  return {
    ...metricsOf(row),
    unpriced_requests: Number(s.unpriced_requests ?? 0n),
    unpriced_tokens: Number(s.unpriced_tokens ?? 0n),
  };
}

export interface RecentSession {
  harness: string;
  session: string;
  project: string | null;
  last_ts: number;
  /** Spend in the session's whole history. */
  metrics: LiveMetrics;
}

export interface LiveView {
  now: number;
  tz: string;
  today: string;
  todayFrom: number;
  /** Today's spend per harness with responses today, and over them all. */
  todayByHarness: { harness: string; metrics: LiveMetrics }[];
  todayTotal: LiveMetrics;
  /** Each block family's active block (null when it has none). */
  blocks: { harness: string; active: BlockRow | null }[];
  activeBlocks: Block[];
  /** Sessions with a response in the last `recentMinutes`, latest first. */
  recent: RecentSession[];
  session(harness: string, session: string): LiveMetrics | null;
  /** Spend since `from` (e.g. the month's start, when the snapshot reaches back that far) of responses matching `keep`. */
  events: StoredEvent[];
}

export function liveView(
  snap: LiveSnapshot,
  merged: Merged,
  o: { now: number; tz: string; families: string[]; recentMinutes?: number },
): LiveView {
  const today = localDay(o.now, o.tz);
  const todayFrom = localDayStartMs(today, o.tz);
  const events = merged.events.filter((e) => e.ts <= o.now);
  const todays = events.filter((e) => e.ts >= todayFrom);
  const harnesses = [...new Set(todays.map((e) => e.harness))].sort();
  const actives = o.families.map((h) => {
    const mine = events.filter((e) => e.harness === h && e.ts >= (snap.block_from[h] ?? snap.from));
    return { harness: h, block: activeBlock(identifyBlocks(h, mine), o.now) };
  });
  const blocks = actives.map(({ harness, block }) => ({
    harness,
    active: block ? blockRow(block, o.tz, o.now, null) : null,
  }));
  const recentFrom = o.now - (o.recentMinutes ?? 10) * 60_000;
  const last = new Map<string, StoredEvent>();
  for (const e of events) if (e.ts >= recentFrom) last.set(sessionKey(e.harness, e.session), e);
  const recent = [...last.entries()]
    .map(([k, e]) => ({
      harness: e.harness,
      session: e.session,
      project: e.project,
      last_ts: e.ts,
      metrics: metricsOfSums(merged.sessions.get(k)!),
    }))
    .sort((a, b) => b.last_ts - a.last_ts);
  return {
    now: o.now,
    tz: o.tz,
    today,
    todayFrom,
    todayByHarness: harnesses.map((h) => ({
      harness: h,
      metrics: metricsOfEvents(todays.filter((e) => e.harness === h)),
    })),
    todayTotal: metricsOfEvents(todays),
    blocks,
    activeBlocks: actives.flatMap((a) => (a.block ? [a.block] : [])),
    recent,
    session(harness: string, session: string) {
      const s = merged.sessions.get(sessionKey(harness, session));
      return s ? metricsOfSums(s) : null;
    },
    events,
  };
}
