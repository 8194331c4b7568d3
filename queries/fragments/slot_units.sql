-- fragment: slot_units
-- Units of work per group, from session_slots rows (src/store/rollups.ts:
-- each session's units of work per 15-minute slot, by kind): the counts
-- every view of units in a range shares, written once. A template that
-- declares `-- include: slot_units` gets these lines where its body writes
-- {{slot_units}} in a SELECT list (the last line has no comma).
-- column: prompts                HUGEINT  prompts the user sent
-- column: turns                  HUGEINT  agent turns
-- column: tool_calls             HUGEINT  tool calls
-- column: subagent_tasks         HUGEINT  subagent tasks started
coalesce(sum(prompts), 0)::HUGEINT AS prompts,
coalesce(sum(turns), 0)::HUGEINT AS turns,
coalesce(sum(tool_calls), 0)::HUGEINT AS tool_calls,
coalesce(sum(subagent_tasks), 0)::HUGEINT AS subagent_tasks
