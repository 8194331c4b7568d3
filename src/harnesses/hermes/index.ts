import type { Harness } from '../types.js';
import { discoverHermes, hermesRoots } from './paths.js';
import { RULE } from './rules.js';

export const hermes: Harness<'hermes'> = {
  id: 'hermes',
  displayName: 'Hermes Agent',
  chartColor: '#9c9ede',
  // Any provider (the session records its billing provider): the model name decides.
  pricing: { providerHint: null },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set HERMES_HOME (the folder holding state.db and profiles/), or pass --root hermes=PATH (a Hermes home or a state.db)',
  roots: hermesRoots,
  discover: discoverHermes,
  extract: async (source, sink, opts) => (await import('./extract.js')).extractHermes(source, sink, opts),
};
