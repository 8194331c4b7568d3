// A store written before schema v14 and pricing-5 (issue 42): its Claude
// Code rows lack the inference_geo billing kind and the older lines' 5m+1h
// cache writes, its OpenCode 1.x rows are keyed by row id (every Session.fork
// copy billed again), and its costs were computed without regional prices.
// Opening it with this build reads those files again, once, and re-prices:
// the report is then what the files say, worked out by hand below.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { OpenCodeDb, type ModelRef } from '../../fixtures/opencode/builder.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const SONNET: ModelRef = { id: 'claude-sonnet-4-5', providerID: 'anthropic' };

describe('a store from before schema v14 and pricing-5', () => {
  it("reads the changed harnesses again once and re-prices: the report is the files' own figures", async () => {
    const home = tempDir('txu-mig-traps-');
    const env = cleanEnv(home);
    const db = join(home, 'store.duckdb');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: '/work/mig' });
    s.response({
      model: 'claude-opus-4-6',
      ts: '2026-01-05T10:00:00.000Z',
      usage: { input: 1000, output: 100 },
      inferenceGeo: 'us',
    });
    s.response({
      model: 'claude-sonnet-4-5',
      ts: '2026-01-05T10:05:00.000Z',
      usage: { input: 10, output: 20, cacheWrite5m: 1000, cacheWrite1h: 200 },
      flatCacheWrite: 0,
    });
    mkdirSync(join(home, '.local/share/opencode'), { recursive: true });
    const oc = new OpenCodeDb(join(home, '.local/share/opencode/opencode.db'), 'v1');
    const src = oc.v1Session({ directory: '/work/mig-oc', model: SONNET });
    src.user();
    src.assistant([{ input: 100, output: 10, cost: 0.001 }]);
    const fork = src.fork();
    fork.assistant([{ input: 200, output: 20, cost: 0.002 }]);
    oc.close();
    expect(runCli(['ingest', '--db', db], env).status).toBe(0);

    // What an earlier build stored.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const { MIGRATIONS } = await import('../../src/store/schema.js');
    // The store as it was before the traps migration (later migrations run after it too).
    const traps = MIGRATIONS.findIndex((m) => m.includes('read again: schema v14'));
    expect(traps).toBeGreaterThan(0);
    const inst = await DuckDBInstance.create(db);
    const conn = await inst.connect();
    await conn.run(`UPDATE event_attrs SET billing_kind = NULL WHERE harness = 'claude-code'`);
    await conn.run(`UPDATE usage_rows SET cache_write_tokens = 0 WHERE cache_write_tokens = 1200`);
    await conn.run(
      `UPDATE usage_rows SET dedupe_key = dedupe_key || ':' || rowid::VARCHAR, billed = true WHERE attr_id IN (SELECT attr_id FROM event_attrs WHERE harness = 'opencode')`,
    );
    await conn.run(`UPDATE usage_rows SET computed_cost_e10 = 0`);
    await conn.run(`UPDATE meta SET value = '${traps}' WHERE key = 'schema_version'`);
    await conn.run(`UPDATE meta SET value = 'pricing-4 era' WHERE key = 'pricing_fingerprint'`);
    conn.closeSync();
    inst.closeSync();

    const RANGE = ['--since', '2026-01-01', '--until', '2026-01-31', '--db', db, '--cost', 'computed'];
    const j = reportJson([...RANGE, '--by', 'harness'], env);
    const row = (h: string) => j.rows.find((r: any) => r.harness === h);
    // Claude Code: Opus 4.6 US-only (1000×$5 + 100×$25)×1.1 = 8250; Sonnet 4.5 10×$3 + 20×$15 + 1000×$3.75 + 200×$6 = 5280 millionths.
    expect(row('claude-code')).toMatchObject({ requests: 2, cache_write_tokens: 1200 });
    expect(row('claude-code').cost_usd).toBeCloseTo(0.01353, 10);
    // OpenCode: the source's one step and the fork's own step; the fork's copy once (was three requests).
    expect(row('opencode')).toMatchObject({ requests: 2, input_tokens: 300, output_tokens: 30 });
  });
});
