import type { Harness } from '../types.js';
import { discoverOpencode, opencodeRoots } from './paths.js';
import { RULE } from './rules.js';

export const opencode: Harness<'opencode'> = {
  id: 'opencode',
  displayName: 'OpenCode',
  chartColor: '#1f78b4',
  // It records the provider per response.
  pricing: { providerHint: null },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set XDG_DATA_HOME (data dir $XDG_DATA_HOME/opencode) or OPENCODE_DB, or pass --root opencode=PATH (a data dir or a .db file)',
  roots: opencodeRoots,
  discover: discoverOpencode,
  // Loaded on first use (discovery alone never needs it; worker threads import it there).
  extract: async (source, sink, opts) => (await import('./extract.js')).extractOpencode(source, sink, opts),
};
