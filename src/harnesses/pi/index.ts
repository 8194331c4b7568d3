import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { dialectMarkers, extractPi, PI_DIALECT } from './extract.js';
import { discoverPi, piRoots } from './paths.js';
import { RULE } from './rules.js';

export const pi: Harness<'pi'> = {
  id: 'pi',
  displayName: 'Pi',
  chartColor: '#d4a017',
  // It records the provider per response.
  pricing: { providerHint: null },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set PI_CODING_AGENT_DIR (agent dir) and/or PI_CODING_AGENT_SESSION_DIR (flat session dir), or pass --root pi=PATH',
  roots: piRoots,
  // Entries are appended in time order; /fork and /clone copies are marked (parentSession, dedupe_rank 1).
  lastLineTime: (line) => latestIsoField(line, 'timestamp'),
  rankMarksCopies: true,
  discover: discoverPi,
  extract: extractPi,
  resumesAlone: true,
  scanMarkers: [dialectMarkers(PI_DIALECT)],
};
