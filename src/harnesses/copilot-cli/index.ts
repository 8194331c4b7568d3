import type { Harness } from '../types.js';
import { copilotModelNames } from './model-names.js';
import { copilotRoots, discoverCopilot } from './paths.js';
import { RULE } from './rules.js';

export const copilotCli: Harness<'copilot-cli'> = {
  id: 'copilot-cli',
  displayName: 'Copilot CLI',
  chartColor: '#6e5494',
  // Copilot routes to Anthropic, OpenAI and Google models: the model name decides.
  pricing: { providerHint: null, modelNames: copilotModelNames },
  ruleNames: Object.values(RULE),
  howToPoint: 'set COPILOT_HOME (the folder holding session-store.db), or pass --root copilot-cli=PATH (that folder or the file)',
  roots: copilotRoots,
  discover: discoverCopilot,
  extract: async (source, sink, opts) => (await import('./extract.js')).extractCopilot(source, sink, opts),
};
