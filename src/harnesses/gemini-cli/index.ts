import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { discoverGemini, geminiRoots } from './paths.js';

/** The latest of a line's `timestamp`s (messages, tool calls) and `lastUpdated` (the header, `$set`). */
function latestTime(line: Buffer): number | null {
  const a = latestIsoField(line, 'timestamp');
  const b = latestIsoField(line, 'lastUpdated');
  return a === null ? b : b === null ? a : Math.max(a, b);
}

export const geminiCli: Harness = {
  id: 'gemini-cli',
  displayName: 'Gemini CLI',
  howToPoint: 'set GEMINI_CLI_HOME (the folder holding .gemini), or pass --root gemini-cli=PATH (a .gemini or .gemini/tmp folder)',
  roots: geminiRoots,
  // Records are appended in time order (a message written again keeps its time, the `$set`
  // after it carries a later lastUpdated); copies of a session are marked (dedupe_rank 1).
  lastLineTime: latestTime,
  rankMarksCopies: true,
  discover: discoverGemini,
  // Loaded on first use (discovery alone never needs it; worker threads import it there).
  extract: async (source, sink, opts) => (await import('./extract.js')).extractGemini(source, sink, opts),
};
