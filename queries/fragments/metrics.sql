-- fragment: metrics
-- The usage and cost aggregates every grouped report shares, written once.
-- A template that declares `-- include: metrics` gets these lines where it
-- writes {{metrics}} in a SELECT list (the last line has no comma). They read
-- the columns of report_slots (src/report/macros.ts): the roll-up of billed
-- responses per 15-minute slot (usage_slots, src/store/rollups.ts), whose
-- sums and counts add up to those of the responses, with cost_e10,
-- priced_events, recorded_events and the unpriced share under cost_mode.
-- column: requests               HUGEINT  billed responses
-- column: input_tokens           HUGEINT  uncached input
-- column: cache_read_tokens      HUGEINT
-- column: cache_write_tokens     HUGEINT
-- column: output_tokens          HUGEINT  all output, reasoning included
-- column: reasoning_tokens       HUGEINT  subset of output
-- column: total_tokens           HUGEINT  input + cache read + cache write + output
-- column: cost_e10               HUGEINT  cost in 1e-10 USD (NULL when nothing priced)
-- column: computed_cost_e10      HUGEINT
-- column: recorded_cost_e10      HUGEINT
-- column: usage_events           BIGINT   billed usage events
-- column: priced_events          BIGINT   of those, events with a cost
-- column: recorded_events        BIGINT   of those, events whose cost is the harness's recorded one
-- column: unpriced_requests      HUGEINT  requests of events without a cost
-- column: unpriced_tokens        HUGEINT  their total tokens
sum(requests)::HUGEINT AS requests,
sum(input_tokens)::HUGEINT AS input_tokens,
sum(cache_read_tokens)::HUGEINT AS cache_read_tokens,
sum(cache_write_tokens)::HUGEINT AS cache_write_tokens,
sum(output_tokens)::HUGEINT AS output_tokens,
sum(reasoning_tokens)::HUGEINT AS reasoning_tokens,
sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens)::HUGEINT AS total_tokens,
sum(cost_e10)::HUGEINT AS cost_e10,
sum(computed_cost_e10)::HUGEINT AS computed_cost_e10,
sum(recorded_cost_e10)::HUGEINT AS recorded_cost_e10,
coalesce(sum(events), 0)::BIGINT AS usage_events,
coalesce(sum(priced_events), 0)::BIGINT AS priced_events,
coalesce(sum(recorded_events), 0)::BIGINT AS recorded_events,
coalesce(sum(unpriced_requests), 0)::HUGEINT AS unpriced_requests,
coalesce(sum(unpriced_tokens), 0)::HUGEINT AS unpriced_tokens
