// ccusage 20's agent names and tx-usage's harness ids, in one table: the
// per-agent subcommands (`tx-usage claude daily`), the `agent` and
// `metadata.agents` fields of the ccusage-shaped JSON, and the message for an
// agent tx-usage does not read. ccusage's names: `ccusage --help` (20.0.24).
import type { HarnessId } from '../../core/types.js';

/** ccusage's agent name → the harness tx-usage reads for it (null: tx-usage does not read it). */
export const CCUSAGE_AGENTS: Record<string, HarnessId | null> = {
  claude: 'claude-code',
  codex: 'codex',
  opencode: 'opencode',
  amp: 'amp',
  droid: 'droid',
  codebuff: null,
  hermes: 'hermes',
  pi: 'pi',
  goose: 'goose',
  kilo: 'kilo-code',
  copilot: 'copilot-cli',
  gemini: 'gemini-cli',
  antigravity: 'antigravity',
  kimi: 'kimi',
  qwen: 'qwen-code',
  openclaw: 'openclaw',
  grok: 'grok',
  zcode: 'zcode',
};

export const CCUSAGE_AGENT_NAMES = Object.keys(CCUSAGE_AGENTS);

/**
 * The agent name a harness's rows carry in ccusage-shaped JSON: ccusage's
 * name where it reads the harness, else tx-usage's id (cursor-agent, cline,
 * roo-code, codebuddy: harnesses ccusage 20 does not read).
 */
export function agentOf(harness: string): string {
  for (const [name, id] of Object.entries(CCUSAGE_AGENTS)) if (id === harness) return name;
  return harness;
}

/** The harness of a ccusage agent name; a usage error's text for one tx-usage does not read. */
export function harnessOfAgent(agent: string): { harness: HarnessId } | { refused: string } {
  const h = CCUSAGE_AGENTS[agent];
  if (h) return { harness: h };
  return {
    refused: `tx-usage does not read ${agent}'s files (ccusage's \`${agent}\` agent); \`tx-usage sources\` lists the harnesses it reads`,
  };
}
