// Every harness tx-usage knows, in report order. Nothing outside a harness's
// folder knows its format; everything else iterates this array.
import type { HarnessId } from '../core/types.js';
import type { Harness } from './types.js';
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

export const HARNESSES: readonly Harness[] = [claudeCode, codex, cursorAgent, opencode, pi, geminiCli, qwenCode, openclaw, cline, rooCode, kiloCode];

export function harnessById(id: HarnessId): Harness | undefined {
  return HARNESSES.find((h) => h.id === id);
}
