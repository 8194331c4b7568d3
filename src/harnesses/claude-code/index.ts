import type { Harness } from '../types.js';
import { claudeRoots, discoverClaude } from './paths.js';
import { extractClaude } from './extract.js';

export const claudeCode: Harness = {
  id: 'claude-code',
  displayName: 'Claude Code',
  howToPoint: 'set CLAUDE_CONFIG_DIR (comma-separated list allowed) or pass --root claude-code=PATH',
  roots: claudeRoots,
  discover: discoverClaude,
  extract: extractClaude,
};
