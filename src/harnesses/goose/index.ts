import type { Harness } from '../types.js';
import { discoverGoose, gooseRoots } from './paths.js';
import { RULE } from './rules.js';

export const goose: Harness<'goose'> = {
  id: 'goose',
  displayName: 'Goose',
  chartColor: '#bd9e39',
  // Any provider (the session records which): the model name decides.
  pricing: { providerHint: null },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set GOOSE_PATH_ROOT (absolute; the database is $GOOSE_PATH_ROOT/data/sessions/sessions.db) or XDG_DATA_HOME, or pass --root goose=PATH (a data dir, its sessions folder, or sessions.db)',
  roots: gooseRoots,
  discover: discoverGoose,
  extract: async (source, sink, opts) => (await import('./extract.js')).extractGoose(source, sink, opts),
};
