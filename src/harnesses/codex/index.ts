import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { extractCodex, MARKERS } from './extract.js';
import { THREAD_NAME_MARKERS } from './thread-names.js';
import { codexRoots, discoverCodex } from './paths.js';
import { RULE } from './rules.js';

export const codex: Harness<'codex'> = {
  id: 'codex',
  displayName: 'Codex CLI',
  chartColor: '#1b9e77',
  pricing: { providerHint: 'openai' },
  ruleNames: Object.values(RULE),
  howToPoint: 'set CODEX_HOME or pass --root codex=PATH',
  roots: codexRoots,
  // Lines are appended in time order. A fork's copy of its parent's records keeps their timestamps or is
  // re-stamped at the fork's creation; either way each copied response is marked (dedupe_rank 2 and 3,
  // README "Lineage: copied history"), and a report reads the files it deferred when it meets one.
  lastLineTime: (line) => latestIsoField(line, 'timestamp'),
  rankMarksCopies: true,
  // dedupe_rank 1 is a token_count beside its record in the same file, not a copy; 2 and 3 are
  // copies that kept their original's timestamp (their original's file is read whenever they are in
  // a report's window); 4 and 5 re-stamped copies.
  copyRankFrom: 4,
  // Every copy, for the status line: kept-timestamp copies (2, 3) and re-stamped ones (4, 5).
  anyCopyRankFrom: 2,
  // Contract: "zstd-compressed (level 3) by a background worker once unmodified for 7 days ...
  // Decompressed back to .jsonl before any append (resume)" — a .zst is never appended to.
  sealedWhenCompressed: true,
  discover: discoverCodex,
  extract: extractCodex,
  resumesAlone: true,
  scanMarkers: [MARKERS, THREAD_NAME_MARKERS],
};
