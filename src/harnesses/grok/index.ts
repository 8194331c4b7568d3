import type { Harness } from '../types.js';
import { MARKERS } from './markers.js';
import { discoverGrok, grokRoots } from './paths.js';
import { RULE } from './rules.js';

export const grok: Harness<'grok'> = {
  id: 'grok',
  displayName: 'Grok Build',
  chartColor: '#843c39',
  pricing: { providerHint: 'x-ai' },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set GROK_HOME (a comma list of .grok folders), or pass --root grok=PATH (a .grok folder or its sessions folder)',
  roots: grokRoots,
  scanMarkers: [MARKERS],
  discover: discoverGrok,
  extract: async (s, k, o) => (await import('./extract.js')).extractGrok(s, k, o),
};
