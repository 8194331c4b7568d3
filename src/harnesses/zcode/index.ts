import type { Harness } from '../types.js';
import { discoverZcode, zcodeRoots } from './paths.js';
import { RULE } from './rules.js';

export const zcode: Harness<'zcode'> = {
  id: 'zcode',
  displayName: 'ZCode',
  chartColor: '#637939',
  // GLM on Z.ai's plan, or any provider the user added (README "Cost"): the model name decides.
  pricing: { providerHint: null },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set ZCODE_HOME (a comma list of folders holding cli/db/db.sqlite), or pass --root zcode=PATH (a .zcode folder, the folder holding db.sqlite, or the file)',
  roots: zcodeRoots,
  discover: discoverZcode,
  extract: async (source, sink, opts) => (await import('./extract.js')).extractZcode(source, sink, opts),
};
