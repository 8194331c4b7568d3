// The extractors that can continue an append-only JSONL transcript from a
// resume point on their own (the harness's carried state is all they need),
// imported statically for the status line (live/own-files.ts), which reads a
// session's few appended lines without the store or the lazy harness modules. A harness
// whose sources are databases, or that needs what other harnesses found
// (Cursor's known projects), is null here: its changes are left to the store (the status line marks itself stale).
import type { HarnessId } from '../core/types.js';
import { extractClaude } from './claude-code/extract.js';
import { extractCodex } from './codex/extract.js';
import { extractPi } from './pi/extract.js';
import { extractGemini } from './gemini-cli/extract.js';
import { extractQwen } from './qwen-code/extract.js';
import { extractOpenclaw } from './openclaw/extract.js';
import type { Harness } from './types.js';
import { claudeCode } from './claude-code/index.js';
import { codex } from './codex/index.js';
import { pi } from './pi/index.js';
import { geminiCli } from './gemini-cli/index.js';
import { qwenCode } from './qwen-code/index.js';
import { openclaw } from './openclaw/index.js';

export const APPEND_EXTRACTORS: Record<HarnessId, Harness['extract'] | null> = {
  'claude-code': extractClaude,
  codex: extractCodex,
  'cursor-agent': null,
  opencode: null,
  pi: extractPi,
  'gemini-cli': extractGemini,
  'qwen-code': extractQwen,
  openclaw: extractOpenclaw,
  // Whole JSON documents rewritten on every save (and kilo.db): left to the store.
  cline: null,
  'roo-code': null,
  'kilo-code': null,
};

/** Harness.rankMarksCopies, for the status line (which does not load the registry). */
export const RANK_MARKS_COPIES: Record<HarnessId, boolean> = {
  'claude-code': claudeCode.rankMarksCopies === true,
  codex: codex.rankMarksCopies === true,
  'cursor-agent': false,
  opencode: false,
  pi: pi.rankMarksCopies === true,
  'gemini-cli': geminiCli.rankMarksCopies === true,
  'qwen-code': qwenCode.rankMarksCopies === true,
  openclaw: openclaw.rankMarksCopies === true,
  cline: false,
  'roo-code': false,
  'kilo-code': false,
};

/**
 * The lowest dedupe_rank that marks a copy, where ranks mark copies: an appended copy whose original
 * the snapshot lacks leaves the status line unproven. Codex: every copy (2 to 5), not only those
 * Harness.copyRankFrom names for the report horizon.
 */
export const COPY_RANK_FROM: Record<HarnessId, number> = {
  'claude-code': claudeCode.copyRankFrom ?? 1,
  codex: 2,
  'cursor-agent': 1,
  opencode: 1,
  pi: pi.copyRankFrom ?? 1,
  'gemini-cli': geminiCli.copyRankFrom ?? 1,
  'qwen-code': qwenCode.copyRankFrom ?? 1,
  openclaw: openclaw.copyRankFrom ?? 1,
  cline: 1,
  'roo-code': 1,
  'kilo-code': 1,
};
