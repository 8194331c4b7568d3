// The ids of the registered harnesses, in report order: the index of the
// registry (registry.ts, which holds one object per id and fails to compile
// without one). Kept in a module of its own so that code that only names
// harnesses (flag checks, the fast path, the status line's settings) loads no
// harness.
export const HARNESS_IDS = [
  'claude-code',
  'codex',
  'cursor-agent',
  'opencode',
  'pi',
  'gemini-cli',
  'qwen-code',
  'openclaw',
  'cline',
  'roo-code',
  'kilo-code',
  'antigravity',
  'codebuddy',
  'zcode',
  'kimi',
  'amp',
  'grok',
  'copilot-cli',
  'droid',
  'goose',
  'hermes',
] as const;
export type HarnessId = (typeof HARNESS_IDS)[number];

export function isHarnessId(s: string): s is HarnessId {
  return (HARNESS_IDS as readonly string[]).includes(s);
}
