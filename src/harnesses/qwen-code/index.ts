import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { extractQwen, MARKERS } from './extract.js';
import { qwenModelNames } from './model-names.js';
import { discoverQwen, qwenRoots } from './paths.js';
import { RULE } from './rules.js';

export const qwenCode: Harness<'qwen-code'> = {
  id: 'qwen-code',
  displayName: 'Qwen Code',
  chartColor: '#66a61e',
  // Any OpenAI-compatible endpoint (DashScope, OpenRouter, a local server...), Gemini or Anthropic: not one provider.
  pricing: { providerHint: null, modelNames: qwenModelNames },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set QWEN_HOME (the .qwen folder) or QWEN_RUNTIME_DIR, or pass --root qwen-code=PATH (a .qwen folder, or its projects or tmp folder)',
  roots: qwenRoots,
  // Records are appended in time order; /branch copies carry forkedFrom (dedupe_rank 1).
  lastLineTime: (line) => latestIsoField(line, 'timestamp'),
  rankMarksCopies: true,
  discover: discoverQwen,
  extract: extractQwen,
  resumesAlone: true,
  scanMarkers: [MARKERS],
};
