import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { extractClaude, MARKERS } from './extract.js';
import { claudeRoots, discoverClaude } from './paths.js';
import { RULE, WINNER_ORDER } from './rules.js';

export const claudeCode: Harness<'claude-code'> = {
  id: 'claude-code',
  displayName: 'Claude Code',
  chartColor: '#c8553d',
  pricing: { providerHint: 'anthropic' },
  ruleNames: Object.values(RULE),
  winnerOrder: WINNER_ORDER,
  howToPoint: 'set CLAUDE_CONFIG_DIR (comma-separated list allowed) or pass --root claude-code=PATH',
  roots: claudeRoots,
  // Lines are appended in time order; /branch copies are marked (forkedFrom, dedupe_rank 1).
  lastLineTime: (line) => latestIsoField(line, 'timestamp'),
  rankMarksCopies: true,
  discover: discoverClaude,
  extract: extractClaude,
  resumesAlone: true,
  scanMarkers: [MARKERS],
};
