-- fragment: unit_counts
-- Units of work per group, from work_units rows (kind, n):
-- the counts every view of units shares, written once. A template that
-- declares `-- include: unit_counts` gets these lines where its body writes
-- {{unit_counts}} in a SELECT list (the last line has no comma); the export
-- (src/export/write.ts) reads the same fragment.
-- column: prompts                HUGEINT  prompts the user sent
-- column: turns                  HUGEINT  agent turns
-- column: tool_calls             HUGEINT  tool calls
-- column: subagent_tasks         HUGEINT  subagent tasks started
coalesce(sum(n) FILTER (WHERE kind = 'prompt'), 0)::HUGEINT AS prompts,
coalesce(sum(n) FILTER (WHERE kind = 'turn'), 0)::HUGEINT AS turns,
coalesce(sum(n) FILTER (WHERE kind = 'tool_call'), 0)::HUGEINT AS tool_calls,
coalesce(sum(n) FILTER (WHERE kind = 'subagent_task'), 0)::HUGEINT AS subagent_tasks
