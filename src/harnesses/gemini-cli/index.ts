import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { extractGemini, MARKERS } from './extract.js';
import { discoverGemini, geminiRoots } from './paths.js';
import { RULE } from './rules.js';

/** The latest of a line's `timestamp`s (messages, tool calls) and `lastUpdated` (the header, `$set`). */
function latestTime(line: Buffer): number | null {
  const a = latestIsoField(line, 'timestamp');
  const b = latestIsoField(line, 'lastUpdated');
  return a === null ? b : b === null ? a : Math.max(a, b);
}

export const geminiCli: Harness<'gemini-cli'> = {
  id: 'gemini-cli',
  displayName: 'Gemini CLI',
  chartColor: '#e7298a',
  // Gemini API and Vertex AI: Google's models, Google's prices.
  pricing: { providerHint: 'google' },
  ruleNames: Object.values(RULE),
  howToPoint:
    'set GEMINI_CLI_HOME (the folder holding .gemini), or pass --root gemini-cli=PATH (a .gemini or .gemini/tmp folder)',
  roots: geminiRoots,
  // Records are appended in time order (a message written again keeps its time, the `$set`
  // after it carries a later lastUpdated); copies of a session are marked (dedupe_rank 1).
  lastLineTime: latestTime,
  rankMarksCopies: true,
  discover: discoverGemini,
  extract: extractGemini,
  resumesAlone: true,
  scanMarkers: [MARKERS],
};
