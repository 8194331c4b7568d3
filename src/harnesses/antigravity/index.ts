import type { Harness } from '../types.js';
import { antigravityModelNames } from './model-names.js';
import { antigravityRoots, discoverAntigravity } from './paths.js';
import { RULE } from './rules.js';

export const antigravity: Harness<'antigravity'> = {
  id: 'antigravity',
  displayName: 'Antigravity',
  chartColor: '#3182bd',
  // Gemini by default, Claude and GPT-OSS as chosen: the model name decides (README "Cost").
  pricing: {
    providerHint: null,
    modelNames: (name) =>
      antigravityModelNames(name).map((model) => ({ model, how: "Antigravity's name for the model" })),
  },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set ANTIGRAVITY_DATA_DIR (a comma list of folders holding conversations/*.db; default ~/.gemini/antigravity-cli, ~/.gemini/antigravity-ide, ~/.gemini/antigravity), or pass --root antigravity=PATH',
  roots: antigravityRoots,
  discover: discoverAntigravity,
  extract: async (source, sink, opts) => (await import('./extract.js')).extractAntigravity(source, sink, opts),
};
