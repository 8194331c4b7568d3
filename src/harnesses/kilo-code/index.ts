import type { Harness } from '../types.js';
import type { ClassicDialect } from '../cline/classic.js';
import { rooInput } from '../roo-code/index.js';
import { discoverKilo, kiloRoots } from './paths.js';
import { CLASSIC_RULES } from '../cline/rules.js';
import { RULE } from './rules.js';

/**
 * Kilo Code took Roo's whole-prompt tokensIn (RooCodeInc/Roo-Code#8954) in
 * v4.119.0, 2025-11-12 (README "Input tokens": weaker evidence, a public
 * design note; the legacy extension's source at that version was not read).
 */
export const KILO_TOTAL_INPUT_FROM = Date.parse('2025-11-12T00:00:00Z');

export const KILO_DIALECT: ClassicDialect = {
  harness: 'kilo-code',
  inputIncludesCache: rooInput(KILO_TOTAL_INPUT_FROM),
  models: 'history-stamps',
  folderHeading: '# Current Workspace Directory (',
};

export const kiloCode: Harness<'kilo-code'> = {
  id: 'kilo-code',
  displayName: 'Kilo Code',
  chartColor: '#393b79',
  // Any provider the user configured; its records name it where they can.
  pricing: { providerHint: null },
  ruleNames: [...CLASSIC_RULES, ...Object.values(RULE)],
  howToPoint:
    'set KILO_DATA_DIR or XDG_DATA_HOME (Kilo CLI), VSCODE_PORTABLE, XDG_CONFIG_HOME or APPDATA (editor user dirs; kilo-code.customStoragePath in their settings.json is followed), or pass --root kilo-code=PATH (a folder holding tasks/ or kilo.db)',
  roots: kiloRoots,
  discover: discoverKilo,
  extract: async (source, sink, opts) =>
    source.kind === 'sqlite'
      ? (await import('./kilo-db.js')).extractKiloDb(source, sink, opts)
      : (await import('../cline/classic.js')).extractClassicTask(source, sink, opts, KILO_DIALECT),
};
