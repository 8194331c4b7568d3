import type { Harness } from '../types.js';
import { cursorModelNames } from './model-names.js';
import { cursorRoots, discoverCursor } from './paths.js';
import { RULE } from './rules.js';

export const cursorAgent: Harness<'cursor-agent'> = {
  id: 'cursor-agent',
  displayName: 'Cursor Agent',
  chartColor: '#7570b3',
  pricing: {
    providerHint: 'cursor',
    // Cursor's own spelling of provider models (its usage CSV).
    modelNames: (name) => cursorModelNames(name).map((model) => ({ model, how: "Cursor's name for the model" })),
  },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set CURSOR_CONFIG_DIR (default ~/.cursor, also $XDG_CONFIG_HOME/cursor) or pass --root cursor-agent=PATH; billed usage: tx-usage import cursor-usage FILE.csv',
  roots: cursorRoots,
  // Projects come from md5(cwd) matched against cwds the other harnesses found.
  usesKnownProjects: true,
  discover: discoverCursor,
  // Loaded on first use (discovery alone never needs it; worker threads import it there).
  // `csv` sources are usage exports the user imported (usage-csv.ts), the rest chat stores.
  extract: async (source, sink, opts) =>
    source.kind === 'csv'
      ? (await import('./usage-csv.js')).extractUsageCsv(source, sink)
      : (await import('./extract.js')).extractCursor(source, sink, opts),
};
