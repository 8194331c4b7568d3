import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { discoverQwen, qwenRoots } from './paths.js';

export const qwenCode: Harness = {
  id: 'qwen-code',
  displayName: 'Qwen Code',
  howToPoint: 'set QWEN_HOME (the .qwen folder) or QWEN_RUNTIME_DIR, or pass --root qwen-code=PATH (a .qwen folder, or its projects or tmp folder)',
  roots: qwenRoots,
  // Records are appended in time order; /branch copies carry forkedFrom (dedupe_rank 1).
  lastLineTime: (line) => latestIsoField(line, 'timestamp'),
  rankMarksCopies: true,
  discover: discoverQwen,
  // Loaded on first use (discovery alone never needs it; worker threads import it there).
  extract: async (source, sink, opts) => (await import('./extract.js')).extractQwen(source, sink, opts),
};
