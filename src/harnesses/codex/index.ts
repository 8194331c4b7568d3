import type { Harness } from '../types.js';
import { latestIsoField } from '../../io/last-line.js';
import { codexRoots, discoverCodex } from './paths.js';

export const codex: Harness = {
  id: 'codex',
  displayName: 'Codex CLI',
  howToPoint: 'set CODEX_HOME or pass --root codex=PATH',
  roots: codexRoots,
  // Lines are appended in time order; legacy fork copies keep their timestamps and add nothing, paginated
  // forks copy nothing (dedupe_rank only puts a record before its token_count).
  lastLineTime: (line) => latestIsoField(line, 'timestamp'),
  // Contract: "zstd-compressed (level 3) by a background worker once unmodified for 7 days ...
  // Decompressed back to .jsonl before any append (resume)" — a .zst is never appended to.
  sealedWhenCompressed: true,
  discover: discoverCodex,
  // Loaded on first use (discovery alone never needs it; worker threads import it there).
  extract: async (source, sink, opts) => (await import('./extract.js')).extractCodex(source, sink, opts),
};
