import type { Harness } from '../types.js';
import { droidModelNames } from './model-names.js';
import { discoverDroid, droidRoots } from './paths.js';
import { DROID_MARKERS, RULE } from './rules.js';

export const droid: Harness<'droid'> = {
  id: 'droid',
  displayName: 'Factory Droid',
  chartColor: '#ce6dbd',
  // Any provider (Factory's router or the user's own key): the model name decides.
  pricing: { providerHint: null, modelNames: droidModelNames },
  ruleNames: Object.values(RULE),
  scanMarkers: [DROID_MARKERS],
  howToPoint:
    'set DROID_SESSIONS_DIR (a comma list of sessions folders) or FACTORY_DIR (the .factory folder), or pass --root droid=PATH (a sessions folder)',
  roots: droidRoots,
  discover: discoverDroid,
  extract: async (source, sink, opts) => (await import('./extract.js')).extractDroid(source, sink, opts),
};
