import type { Harness } from '../types.js';
import { copilotModelNames } from './model-names.js';
import { copilotRoots, discoverCopilot } from './paths.js';
import { RULE, SHUTDOWN_MARKERS } from './rules.js';

export const copilotCli: Harness<'copilot-cli'> = {
  id: 'copilot-cli',
  displayName: 'Copilot CLI',
  chartColor: '#6e5494',
  // Copilot routes to Anthropic, OpenAI and Google models: the model name decides.
  pricing: { providerHint: null, modelNames: copilotModelNames },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set COPILOT_HOME (the folder holding session-store.db), or pass --root copilot-cli=PATH (that folder or the file)',
  roots: copilotRoots,
  discover: discoverCopilot,
  scanMarkers: [SHUTDOWN_MARKERS],
  // The store; where a root has none, its sessions' events.jsonl shutdown summaries (README).
  extract: async (source, sink, opts) =>
    source.kind === 'jsonl'
      ? (await import('./shutdown.js')).extractCopilotShutdowns(source, sink, opts)
      : (await import('./extract.js')).extractCopilot(source, sink, opts),
};
