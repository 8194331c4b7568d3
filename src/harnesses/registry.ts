// Every harness tx-usage knows: one line per harness, by id (ids.ts holds the
// ids in report order). Nothing outside a harness's folder knows its format;
// everything else takes what it needs of a harness from its object here. A
// harness whose id has no line, or whose object lacks a field it must have,
// fails to compile (docs/adding-a-harness.md).
import type { Harness } from './types.js';
import { HARNESS_IDS, type HarnessId } from './ids.js';
import { scanMarkersProblem } from '../io/marker-scan.js';
import { claudeCode } from './claude-code/index.js';
import { codex } from './codex/index.js';
import { cursorAgent } from './cursor-agent/index.js';
import { opencode } from './opencode/index.js';
import { pi } from './pi/index.js';
import { geminiCli } from './gemini-cli/index.js';
import { qwenCode } from './qwen-code/index.js';
import { openclaw } from './openclaw/index.js';
import { cline } from './cline/index.js';
import { rooCode } from './roo-code/index.js';
import { kiloCode } from './kilo-code/index.js';
import { antigravity } from './antigravity/index.js';
import { codebuddy } from './codebuddy/index.js';
import { zcode } from './zcode/index.js';
import { kimi } from './kimi/index.js';
import { amp } from './amp/index.js';
import { grok } from './grok/index.js';
import { copilotCli } from './copilot-cli/index.js';
import { droid } from './droid/index.js';
import { goose } from './goose/index.js';
import { hermes } from './hermes/index.js';

const BY_ID: { readonly [K in HarnessId]: Harness<K> } = {
  'claude-code': claudeCode,
  codex,
  'cursor-agent': cursorAgent,
  opencode,
  pi,
  'gemini-cli': geminiCli,
  'qwen-code': qwenCode,
  openclaw,
  cline,
  'roo-code': rooCode,
  'kilo-code': kiloCode,
  antigravity,
  codebuddy,
  zcode,
  kimi,
  amp,
  grok,
  'copilot-cli': copilotCli,
  droid,
  goose,
  hermes,
};

/** In report order. */
export const HARNESSES: readonly Harness[] = HARNESS_IDS.map((id) => BY_ID[id]);

// Registration: a marker set the scanner cannot hold fails here, not as a silently slower scan.
for (const h of HARNESSES) {
  for (const set of h.scanMarkers ?? []) {
    const problem = scanMarkersProblem(set);
    if (problem) throw new Error(`harness ${h.id}: its scan markers do not fit the WebAssembly scanner: ${problem}`);
  }
}

export function harnessById(id: HarnessId): Harness | undefined {
  return BY_ID[id];
}
