import type { Harness } from '../types.js';
import { codexRoots, discoverCodex } from './paths.js';
import { extractCodex } from './extract.js';

export const codex: Harness = {
  id: 'codex',
  displayName: 'Codex CLI',
  howToPoint: 'set CODEX_HOME or pass --root codex=PATH',
  roots: codexRoots,
  discover: discoverCodex,
  extract: extractCodex,
};
