// Extractor-level tests for the codex harness: every rule of the contract
// entry `codex` (see src/harnesses/codex/README.md) against generated rollouts
// whose expected totals the builders added up themselves.
import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  buildCodexHome,
  id,
  legacyForkScenario,
  legacyScenario,
  migratedScenario,
  newContext,
  paginatedForkScenario,
  paginatedScenario,
  revertScenario,
  rolloutName,
  sessionsPath,
  subagentScenario,
  T0,
  writeCorruptRollouts,
  zstdCompress,
} from '../fixtures/codex/home.js';
import { Ledger, utcDay } from '../fixtures/codex/ledger.js';
import { randomUsage, rng, RolloutWriter, ZERO_USAGE } from '../fixtures/codex/rollout.js';
import { byModelDay, collect, collectAll, discover, skipCount, sorted, storeLike, totalsBy } from './codex-helpers.js';
import type { SourceRef } from '../src/harnesses/types.js';

const dirs: string[] = [];
function freshHome(): string {
  const d = mkdtempSync(join(tmpdir(), 'txu-codex-'));
  dirs.push(d);
  return join(d, '.codex');
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function refFor(codexHome: string, path: string): Promise<SourceRef> {
  const ref = (await discover(codexHome)).find((r) => r.path === path);
  if (!ref) throw new Error(`not discovered: ${path}`);
  return ref;
}

describe('codex: the whole fixture home', () => {
  it('every file yields exactly its own billed responses, and all files together match the ledger by model and UTC day', async () => {
    const home = buildCodexHome(dirname(freshHome()));
    const collected = await collectAll(home.codexHome);
    expect(collected.map((c) => c.source.path).sort()).toEqual(home.written.map((w) => w.path).sort());
    for (const w of home.written) {
      const c = collected.find((x) => x.source.path === w.path)!;
      expect(c.failed).toBe(false);
      expect(sorted(byModelDay(c.events)), w.label).toEqual(sorted(home.ledger.byModelDay((r) => r.file === w.label)));
    }
    const all = collected.flatMap((c) => c.events);
    expect(sorted(byModelDay(storeLike(all)))).toEqual(sorted(home.ledger.byModelDay()));
    // No two events of different files share a dedupe key (nothing is a copy here).
    expect(storeLike(all).length).toBe(all.length);
    expect(home.ledger.responses.length).toBeGreaterThan(40);
  });
});
