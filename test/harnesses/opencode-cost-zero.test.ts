// OpenCode records cost 0 for tokens of a model it has no price for
// (openusage#1088; tokei#42): not a known $0. As pi's
// zero (test/pi-cost-zero.test.ts): no recorded cost, the computed one
// applies, and the JSON says which (cost_source, recorded_cost_usd). A
// zero-token step keeps its recorded 0. Through the real CLI; costs by hand.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { waitForUpdate } from '@pydantic/genai-prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenCodeDb } from '../../fixtures/opencode/builder.js';
import { buildZeroCostDb } from '../../fixtures/opencode/scenarios.js';
import { cleanEnv, reportJson, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-01-01', '--until', '2026-01-31', '--harness', 'opencode'];

let db: OpenCodeDb;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  const home = tempDir('txu-opencode-zero-');
  const dataDir = join(home, '.local/share/opencode');
  mkdirSync(dataDir, { recursive: true });
  db = buildZeroCostDb(join(dataDir, 'opencode.db'));
  env = cleanEnv(home);
});
afterAll(() => db?.close());

describe('opencode cost 0 with tokens', () => {
  it('still has the price the hand computation uses', async () => {
    const data = (await waitForUpdate())!;
    const s46 = data.find((p) => p.id === 'anthropic')!.models.find((m) => m.id === 'claude-sonnet-4-6')!.prices as {
      prices: unknown;
    }[];
    // Before 2026-03-13 (the fixture's January): base rates below 200k input.
    expect(s46[0]!.prices).toMatchObject({
      input_mtok: { base: 3 },
      cache_read_mtok: { base: 0.3 },
      output_mtok: { base: 15 },
    });
  });

  it('prices a zero recorded for tokens as computed, keeps a zero-token zero and a real recorded cost', () => {
    const j = reportJson([...RANGE, '--by', 'model'], env);
    const m = Object.fromEntries(j.rows.map((r: any) => [r.model, r]));
    // claude-sonnet-4-6 (recorded at 0): 1000×3 + 500×15 + 2000×0.3 = 3000+7500+600 = 11100 → $0.0111 computed;
    // its zero-token step stays a recorded $0: every response priced, one of each kind → mixed.
    expect(m['claude-sonnet-4-6']).toMatchObject({
      requests: 2,
      recorded_cost_usd: 0,
      cost_source: 'mixed',
      unpriced_requests: 0,
    });
    expect(m['claude-sonnet-4-6'].cost_usd).toBeCloseTo(0.0111, 10);
    expect(m['claude-sonnet-4-6'].computed_cost_usd).toBeCloseTo(0.0111, 10);
    // big-pickle: no price anywhere, so its zero is unknown, not $0.
    expect(m['big-pickle']).toMatchObject({
      requests: 1,
      cost_usd: null,
      recorded_cost_usd: null,
      cost_source: 'none',
      unpriced_requests: 1,
      unpriced_tokens: 440,
    });
    // A real recorded cost is kept as recorded.
    expect(m['gpt-5.1-codex']).toMatchObject({
      requests: 1,
      cost_usd: 0.02,
      recorded_cost_usd: 0.02,
      cost_source: 'recorded',
    });
    expect(
      j.warnings.some((w: string) =>
        w.startsWith('no price for model "big-pickle" (opencode): 1 response, 440 tokens'),
      ),
    ).toBe(true);
  });

  it('under --cost recorded, the zero for tokens is no cost at all (not $0)', () => {
    const j = reportJson([...RANGE, '--by', 'model', '--cost', 'recorded'], env);
    const m = Object.fromEntries(j.rows.map((r: any) => [r.model, r]));
    expect(m['claude-sonnet-4-6']).toMatchObject({
      cost_usd: 0,
      cost_source: 'partial',
      unpriced_requests: 1,
      unpriced_tokens: 3500,
    });
    expect(m['big-pickle']).toMatchObject({ cost_usd: null, cost_source: 'none' });
  });
});
