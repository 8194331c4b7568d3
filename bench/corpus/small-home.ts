// The benchmark's small history: what a typical new user has (issue 41, "a
// 10 MB history"). A Claude Code + Codex corpus of ~7 MB dated up to today
// (the generator of the large corpora, scaled down), and in the same home
// the all-harness fixture (fixtures/all-harnesses.ts: Claude Code, Codex,
// OpenCode databases, Pi, Gemini CLI, Qwen Code, OpenClaw, Cline, Roo Code,
// Kilo Code, Cursor), each written by its own harness's builder. Reused when
// complete, like the large corpora.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildAllHome } from '../../fixtures/all-harnesses.js';
import { ensureCorpus, type Manifest } from './generate.js';

const MB = 1 << 20;
/** Bump when what is written here changes. */
const SMALL_HOME_VERSION = 1;

export interface SmallHome {
  home: string;
  /** The Claude Code + Codex part's manifest (its totals are that part's only). */
  manifest: Manifest;
  generated: boolean;
}

/** The small home in `dir` (`dir/home`), written unless a complete one is there. */
export function ensureSmallHome(dir: string, seed = 1): SmallHome {
  const { manifest, generated } = ensureCorpus({ dir, bytes: 7 * MB, seed });
  const done = join(dir, 'all-harnesses.done');
  const complete = !generated && existsSync(done) && readFileSync(done, 'utf8') === String(SMALL_HOME_VERSION);
  if (!complete) {
    // The fixture's OpenCode writers are closed (their -wal checkpointed): a home at rest.
    buildAllHome(manifest.home).close();
    writeFileSync(done, String(SMALL_HOME_VERSION));
  }
  return { home: manifest.home, manifest, generated: generated || !complete };
}
