// `report blocks`' rows (src/live/block-rows.ts) in ccusage 20's
// `blocks --json` shape (its blocks.rs block_json): the same 5-hour blocks,
// gaps and active block's rates and projection, renamed; times as UTC
// instants with milliseconds, as ccusage writes them.
import type { BlockRow } from '../../live/block-rows.js';

type Json = Record<string, unknown>;
const utc = (iso: string) => new Date(iso).toISOString();

/**
 * One block. `burnRate` and `projection` are ccusage's (null unless active):
 * `tokensPerMinute` and `costPerHour` are tx-usage's rates over the block
 * (`tokens_per_minute_block`, `cost_usd_per_hour_block`);
 * `tokensPerMinuteForIndicator` (ccusage: input + output tokens only, per
 * minute) is that rate's input + output share. `tokenLimitStatus` when a
 * limit is given and the block is active, as ccusage writes it.
 */
export function ccusageBlock(b: BlockRow, limit: number | null): Json {
  const start = utc(b.start);
  const active = b.is_active && b.tokens_per_minute_block !== null;
  const burnRate = active
    ? {
        tokensPerMinute: b.tokens_per_minute_block!,
        tokensPerMinuteForIndicator:
          b.total_tokens > 0 ? (b.tokens_per_minute_block! * (b.input_tokens + b.output_tokens)) / b.total_tokens : 0,
        costPerHour: b.cost_usd_per_hour_block ?? 0,
      }
    : null;
  const projection =
    active && b.projected_total_tokens !== null
      ? {
          totalTokens: b.projected_total_tokens,
          totalCost: b.projected_cost_usd ?? 0,
          remainingMinutes: b.remaining_minutes ?? 0,
        }
      : null;
  const o: Json = {
    id: b.is_gap ? `gap-${start}` : start,
    startTime: start,
    endTime: utc(b.end),
    actualEndTime: b.last_response === null ? null : utc(b.last_response),
    isActive: b.is_active,
    isGap: b.is_gap,
    entries: b.requests,
    tokenCounts: {
      inputTokens: b.input_tokens,
      outputTokens: b.output_tokens,
      cacheCreationInputTokens: b.cache_write_tokens,
      cacheReadInputTokens: b.cache_read_tokens,
    },
    totalTokens: b.total_tokens,
    // ccusage's cost of a block: the priced part (0 when none is priced); costPartial says when some response had no price.
    costUSD: b.cost_usd ?? 0,
    models: b.models,
    burnRate,
    projection,
  };
  if (projection && limit) {
    const used = projection.totalTokens;
    o.tokenLimitStatus = {
      limit,
      projectedUsage: used,
      percentUsed: (used / limit) * 100,
      status: used > limit ? 'exceeds' : used > limit * 0.8 ? 'warning' : 'ok',
    };
  }
  // Added by tx-usage (never in place of ccusage's fields).
  Object.assign(o, {
    harness: b.harness,
    requests: b.requests,
    reasoningTokens: b.reasoning_tokens,
    costSource: b.cost_source,
    costPartial: b.unpriced_requests > 0 || b.unpriced_tokens > 0 || (!b.is_gap && b.cost_usd === null),
    unpricedRequests: b.unpriced_requests,
    unpricedTokens: b.unpriced_tokens,
  });
  return o;
}
