import type { Harness } from '../types.js';
import { discoverTasks, extensionRoots } from '../cline/paths.js';
import type { ClassicDialect } from '../cline/classic.js';
import { CLASSIC_RULES } from '../cline/rules.js';

export const ROO_EXTENSION_ID = 'rooveterinaryinc.roo-cline';
/** Roo's settings section (its package name, `roo-cline`): `roo-cline.customStoragePath` moves its tasks (README "Where"). */
export const ROO_SETTINGS_SECTION = 'roo-cline';

/**
 * From Roo Code 3.29.5 (released 2025-11-01, RooCodeInc/Roo-Code#8954,
 * 416fa57) tokensIn is the whole prompt, cache included, for every provider;
 * before, Anthropic-protocol requests recorded the uncached remainder (README
 * "Input tokens"). The record carries no version: the release time decides.
 */
export const ROO_TOTAL_INPUT_FROM = Date.parse('2025-11-01T19:36:42Z');

/** Roo's and Kilo's rule, given the release that made tokensIn the whole prompt. */
export function rooInput(totalFrom: number): ClassicDialect['inputIncludesCache'] {
  return ({ ts, apiProtocol }) => apiProtocol === 'openai' || ts >= totalFrom;
}

export const ROO_DIALECT: ClassicDialect = {
  harness: 'roo-code',
  inputIncludesCache: rooInput(ROO_TOTAL_INPUT_FROM),
  models: 'history-stamps',
  folderHeading: '# Current Workspace Directory (',
};

export const rooCode: Harness<'roo-code'> = {
  id: 'roo-code',
  displayName: 'Roo Code',
  chartColor: '#bcbd22',
  // Any provider the user configured.
  pricing: { providerHint: null },
  ruleNames: CLASSIC_RULES,
  howToPoint:
    'set VSCODE_PORTABLE, XDG_CONFIG_HOME or APPDATA (editor user dirs; roo-cline.customStoragePath in their settings.json is followed), or pass --root roo-code=PATH (a folder holding tasks/)',
  roots: (ctx) =>
    extensionRoots(ctx, ROO_EXTENSION_ID, { settingsSection: { section: ROO_SETTINGS_SECTION, harness: 'roo-code' } }),
  discover: (roots, warn) =>
    discoverTasks('roo-code', roots, ['history_item.json', 'api_conversation_history.json'], warn),
  extract: async (source, sink, opts) =>
    (await import('../cline/classic.js')).extractClassicTask(source, sink, opts, ROO_DIALECT),
};
