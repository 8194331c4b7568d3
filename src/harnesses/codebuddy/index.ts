import type { Harness } from '../types.js';
import { codebuddyModelNames } from './model-names.js';
import { codebuddyRoots, discoverCodebuddy } from './paths.js';
import { MARKERS } from './markers.js';
import { RULE } from './rules.js';

export const codebuddy: Harness<'codebuddy'> = {
  id: 'codebuddy',
  displayName: 'CodeBuddy',
  chartColor: '#8c564b',
  // Tencent's MaaS serves Claude, DeepSeek, GLM and others: the model name decides (README "Cost").
  pricing: {
    providerHint: null,
    modelNames: (name) => codebuddyModelNames(name).map((model) => ({ model, how: "CodeBuddy's name for the model" })),
  },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set CODEBUDDY_DIR (a comma list of folders holding the project folders; default ~/.codebuddy/projects), or pass --root codebuddy=PATH',
  roots: codebuddyRoots,
  discover: discoverCodebuddy,
  scanMarkers: [MARKERS],
  extract: async (source, sink, opts) => (await import('./extract.js')).extractCodebuddy(source, sink, opts),
};
