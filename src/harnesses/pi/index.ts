import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { discoverPi, piRoots } from './paths.js';

export const pi: Harness = {
  id: 'pi',
  displayName: 'Pi',
  howToPoint: 'set PI_CODING_AGENT_DIR (agent dir) and/or PI_CODING_AGENT_SESSION_DIR (flat session dir), or pass --root pi=PATH',
  roots: piRoots,
  // Entries are appended in time order; /fork and /clone copies are marked (parentSession, dedupe_rank 1).
  lastLineTime: (line) => latestIsoField(line, 'timestamp'),
  rankMarksCopies: true,
  discover: discoverPi,
  // Loaded on first use (discovery alone never needs it; worker threads import it there).
  extract: async (source, sink, opts) => (await import('./extract.js')).extractPi(source, sink, opts),
};
