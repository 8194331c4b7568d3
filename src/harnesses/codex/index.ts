import type { Harness } from '../types.js';
import { codexRoots, discoverCodex } from './paths.js';

export const codex: Harness = {
  id: 'codex',
  displayName: 'Codex CLI',
  howToPoint: 'set CODEX_HOME or pass --root codex=PATH',
  roots: codexRoots,
  discover: discoverCodex,
  // Loaded on first use (discovery alone never needs it; worker threads import it there).
  extract: async (source, sink, opts) => (await import('./extract.js')).extractCodex(source, sink, opts),
};
