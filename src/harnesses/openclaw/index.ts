import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { RULE } from '../pi/rules.js';
import { dialectMarkers } from '../pi/extract.js';
import { extractOpenclaw, OPENCLAW_DIALECT } from './extract.js';
import { discoverOpenclaw, openclawRoots } from './paths.js';

export const openclaw: Harness<'openclaw'> = {
  id: 'openclaw',
  displayName: 'OpenClaw',
  chartColor: '#a6761d',
  // It records the provider per response.
  pricing: { providerHint: null },
  // Pi's format, read by Pi's extractor.
  ruleNames: Object.values(RULE),
  howToPoint:
    'set OPENCLAW_STATE_DIR (a state dir holding agents/), OPENCLAW_DIR (comma list) or OPENCLAW_HOME, or pass --root openclaw=PATH',
  roots: openclawRoots,
  // pi's format: entries appended in time order; backups and checkpoint twins are marked copies (dedupe_rank 1).
  lastLineTime: (line) => latestIsoField(line, 'timestamp'),
  rankMarksCopies: true,
  // Archives are compressed once, when a session is reset or deleted, and never written again.
  sealedWhenCompressed: true,
  discover: discoverOpenclaw,
  extract: extractOpenclaw,
  resumesAlone: true,
  scanMarkers: [dialectMarkers(OPENCLAW_DIALECT)],
};
