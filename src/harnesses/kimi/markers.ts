// The lines the JSONL scanner parses (Harness.scanMarkers), one set per product:
// kimi-cli's usage, prompt and tool-call messages; Kimi Code's usage records, the
// requests naming their model, fork marks, prompts and tool calls. Byte strings
// whatever the writer's spacing (kimi-cli writes `"type": "StatusUpdate"`).
export const CLI_MARKERS = ['"StatusUpdate"', '"TurnBegin"', '"ToolCall"'];
export const CODE_MARKERS = ['"usage.record"', '"llm.request"', '"forked"', '"turn.prompt"', '"tool.call"'];
