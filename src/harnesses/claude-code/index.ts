import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { claudeRoots, discoverClaude } from './paths.js';

export const claudeCode: Harness = {
  id: 'claude-code',
  displayName: 'Claude Code',
  howToPoint: 'set CLAUDE_CONFIG_DIR (comma-separated list allowed) or pass --root claude-code=PATH',
  roots: claudeRoots,
  // Lines are appended in time order; /branch copies are marked (forkedFrom, dedupe_rank 1).
  lastLineTime: (line) => latestIsoField(line, 'timestamp'),
  rankMarksCopies: true,
  discover: discoverClaude,
  // Loaded on first use (discovery alone never needs it; worker threads import it there).
  extract: async (source, sink, opts) => (await import('./extract.js')).extractClaude(source, sink, opts),
};
