// One block as the reports and live views show it (the JSON row of
// `report blocks`, the active block of `watch` and `statusline`). Free of
// the store, so the status line's bundle can hold it.
import {
  activeFigures,
  blockLastTs,
  metricsOfEvents,
  modelsOf,
  type ActiveFigures,
  type Block,
  type LiveMetrics,
} from './blocks.js';
import { isoInZone } from './time.js';

export type BlockRow = {
  harness: string;
  start: string;
  end: string;
  is_gap: boolean;
  is_active: boolean;
  first_response: string | null;
  last_response: string | null;
  models: string[];
} & LiveMetrics & {
    token_limit_share: number | null;
    elapsed_minutes: number | null;
    remaining_minutes: number | null;
    tokens_per_minute_30m: number | null;
    cost_usd_per_hour_30m: number | null;
    tokens_per_minute_block: number | null;
    cost_usd_per_hour_block: number | null;
    projected_total_tokens: number | null;
    projected_cost_usd: number | null;
    projected_token_limit_share: number | null;
    /** The 30-minute and the block's cost rates (and so the projected cost) cover only the priced responses in their windows. */
    cost_per_hour_30m_partial: boolean | null;
    cost_per_hour_block_partial: boolean | null;
  };

const share = (n: number, limit: number | null) => (limit ? Math.round((n / limit) * 1e6) / 1e6 : null);

export function blockRow(b: Block, tz: string, now: number, limit: number | null): BlockRow {
  const m = metricsOfEvents(b.events);
  const a: ActiveFigures | null = activeFigures(b, now);
  return {
    harness: b.harness,
    start: isoInZone(b.start, tz),
    end: isoInZone(b.end, tz),
    is_gap: b.isGap,
    is_active: a !== null,
    first_response: b.events.length ? isoInZone(b.events[0]!.ts, tz) : null,
    last_response: b.events.length ? isoInZone(blockLastTs(b), tz) : null,
    models: modelsOf(b),
    ...m,
    token_limit_share: b.isGap ? null : share(m.total_tokens, limit),
    elapsed_minutes: a?.elapsed_minutes ?? null,
    remaining_minutes: a?.remaining_minutes ?? null,
    tokens_per_minute_30m: a?.burn_30m.tokens_per_minute ?? null,
    cost_usd_per_hour_30m: a?.burn_30m.cost_usd_per_hour ?? null,
    tokens_per_minute_block: a?.burn_block.tokens_per_minute ?? null,
    cost_usd_per_hour_block: a?.burn_block.cost_usd_per_hour ?? null,
    projected_total_tokens: a?.projected_total_tokens ?? null,
    projected_cost_usd: a?.projected_cost_usd ?? null,
    projected_token_limit_share: a ? share(a.projected_total_tokens, limit) : null,
    cost_per_hour_30m_partial: a?.burn_30m.partial ?? null,
    cost_per_hour_block_partial: a?.burn_block.partial ?? null,
  };
}
