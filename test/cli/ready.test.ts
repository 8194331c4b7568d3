// A store found current (cli/current.ts) is answered from its ready row
// (store/ready.ts) without the harnesses, the ingest or the price data. Its
// answers must be the full path's, byte for byte, and anything the row does
// not describe must send the run down the full path: a source changed, the
// prices' files or options changed, the row gone.
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAllHome } from '../../fixtures/all-harnesses.js';
import { cleanEnv, forgetSaidWarnings, runCli, tempDir } from '../helpers/cli.js';

const dir = tempDir('txu-ready-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RANGE = ['--since', '2025-09-01', '--until', '2026-12-31'];

describe('the ready row', () => {
  const all = buildAllHome(join(dir, 'home'));
  all.close();
  const stats = join(dir, 'stats.json');
  // One instant for every run: blocks and limits read the clock.
  const env = cleanEnv(all.home, { TX_USAGE_STATS: stats, COLUMNS: '140', TX_USAGE_NOW: new Date().toISOString() });
  const cache = join(all.home, '.cache', 'tx-usage');
  const db = join(cache, 'usage.duckdb');
  /** A run no memo answers: whether it found the store current, and what it said. */
  const run = (args: string[], more: Record<string, string> = {}) => {
    rmSync(join(cache, 'report-memo.json'), { force: true });
    const r = runCli(args, { ...env, ...more });
    const s = JSON.parse(readFileSync(stats, 'utf8')) as { current?: boolean; kind: string };
    return { out: { status: r.status, stdout: r.stdout, stderr: r.stderr }, current: s.current === true };
  };
  const dropReady = async () => {
    const { openStore } = await import('../../src/store/store.js');
    const store = await openStore(db);
    try {
      await store.conn.run(`DELETE FROM meta WHERE key = 'ready'`);
    } finally {
      await store.close();
    }
  };

  it('answers as the full path does, every report and limits', async () => {
    expect(runCli(['ingest'], env).status).toBe(0);
    let warned = 0;
    for (const args of [
      ['report', ...RANGE, '--format', 'json'],
      ['report', ...RANGE, '--by', 'harness,model'],
      ['report', 'compare', ...RANGE, '--format', 'json'],
      ['report', 'monthly', '--format', 'json'],
      ['report', ...RANGE, '--by', 'session', '--harness', 'codex,claude-code', '--format', 'csv'],
      ['report', 'blocks', ...RANGE, '--format', 'json'],
      ['limits', '--since', '2025-09-01', '--format', 'json'],
    ]) {
      forgetSaidWarnings(env); // a file's warnings are said once: each run here says them
      const current = run(args);
      expect(current.current, args.join(' ')).toBe(true);
      await dropReady();
      forgetSaidWarnings(env);
      const full = run(args);
      expect(full.current, args.join(' ')).toBe(false);
      expect(current.out, args.join(' ')).toEqual(full.out);
      if (current.out.stderr.includes('warning:')) warned++;
    }
    // The fixture's broken lines: warnings from the row, in the reports whose rows they concern (not all of them).
    expect(warned).toBeGreaterThan(0);
  });

  it('is not used once a source, the prices or their options changed', () => {
    const args = ['report', ...RANGE, '--by', 'model', '--format', 'json'];
    expect(run(args).current).toBe(true);
    // A source grew.
    appendFileSync(all.canaryFiles[0]!, '\n');
    expect(run(args).current).toBe(false);
    expect(run(args).current).toBe(true);
    // --prices given, then its file changed.
    const prices = join(dir, 'prices.json');
    writeFileSync(
      prices,
      JSON.stringify({ 'claude-opus-5-5': { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 } }),
    );
    const p1 = run([...args, '--prices', prices]);
    expect(p1.current).toBe(false);
    expect(run([...args, '--prices', prices]).current).toBe(true);
    writeFileSync(
      prices,
      JSON.stringify({ 'claude-opus-5-5': { input_cost_per_token: 3e-6, output_cost_per_token: 2e-6 } }),
    );
    const p2 = run([...args, '--prices', prices]);
    expect(p2.current).toBe(false);
    expect(JSON.parse(p2.out.stdout).totals.cost_usd).not.toBe(JSON.parse(p1.out.stdout).totals.cost_usd);
    // Without --prices again: the bundled prices (the store re-priced back).
    expect(run(args).current).toBe(false);
    expect(run(args).current).toBe(true);
    // "prices" in the config file.
    const cfg = join(all.home, '.config', 'tx-usage');
    mkdirSync(cfg, { recursive: true });
    writeFileSync(join(cfg, 'config.json'), JSON.stringify({ prices: prices }));
    expect(run(args).current).toBe(false);
    expect(run(args).current).toBe(true);
    rmSync(join(cfg, 'config.json'));
    expect(run(args).current).toBe(false);
  });
});
