import type { Harness } from '../types.js';
import { ampRoots, discoverAmp } from './paths.js';
import { RULE } from './rules.js';

export const amp: Harness<'amp'> = {
  id: 'amp',
  displayName: 'Amp',
  chartColor: '#e6550d',
  // Anthropic, OpenAI and Google models through Amp's own service: the model name decides.
  pricing: { providerHint: null },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set AMP_DATA_DIR (a comma list of folders holding threads/), or pass --root amp=PATH (that folder, or threads/ itself)',
  roots: ampRoots,
  discover: discoverAmp,
  extract: async (s, k, o) => (await import('./extract.js')).extractAmp(s, k, o),
};
