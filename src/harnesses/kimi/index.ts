import type { Harness } from '../types.js';
import { CLI_MARKERS, CODE_MARKERS } from './markers.js';
import { discoverKimi, kimiRoots } from './paths.js';
import { RULE } from './rules.js';

export const kimi: Harness<'kimi'> = {
  id: 'kimi',
  displayName: 'Kimi',
  chartColor: '#6b6ecf',
  // Kimi's own models by default; a user may configure any provider (the model name decides).
  pricing: { providerHint: 'moonshotai' },
  ruleNames: Object.values(RULE),
  howToPoint:
    "set KIMI_SHARE_DIR (kimi-cli's .kimi folder) or KIMI_CODE_HOME (Kimi Code's .kimi-code folder), or pass --root kimi=PATH (either folder)",
  roots: kimiRoots,
  scanMarkers: [CLI_MARKERS, CODE_MARKERS],
  discover: discoverKimi,
  extract: async (s, k, o) => (await import('./extract.js')).extractKimi(s, k, o),
};
