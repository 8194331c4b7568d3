// Pi's field traps of issue 42, priced by hand: a `-fast` model name is the
// model in fast mode where the price data has no entry of its own for it, and
// `cacheWrite1h` is the 1-hour part of `cacheWrite`, never added to it.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Ledger, PiSession } from '../../fixtures/pi/session.js';
import { sessionsDir } from '../../fixtures/pi/scenarios.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-10-01', '--until', '2026-10-31'];

describe('pi: -fast model names and cacheWrite1h', () => {
  const home = tempDir('txu-pi-traps-');
  const env = cleanEnv(home);
  const agent = join(home, '.pi', 'agent');
  const cwd: Record<string, string> = {};
  beforeAll(() => {
    const ledger = new Ledger();
    const cases: [
      string,
      string,
      string,
      { input: number; output: number; cacheRead: number; cacheWrite: number; cacheWrite1h?: number },
    ][] = [
      ['fast48', 'anthropic', 'claude-opus-4-8-fast', { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 }],
      ['fast5', 'anthropic', 'claude-opus-5-fast', { input: 1000, output: 0, cacheRead: 0, cacheWrite: 0 }],
      ['router', 'openrouter', 'anthropic/claude-opus-5-fast', { input: 2000, output: 0, cacheRead: 0, cacheWrite: 0 }],
      [
        'oneHour',
        'anthropic',
        'claude-sonnet-4-5',
        { input: 1000, output: 100, cacheRead: 0, cacheWrite: 1000, cacheWrite1h: 400 },
      ],
    ];
    for (const [i, [k, provider, model, usage]] of cases.entries()) {
      cwd[k] = `/work/pi-${k}`;
      const s = new PiSession({
        dir: sessionsDir(agent, cwd[k]),
        cwd: cwd[k],
        start: Date.UTC(2026, 9, 3 + i, 9, 0, 0),
        ledger,
        seed: 70 + i,
      });
      s.user('go');
      // No cost recorded: the computed price is what is checked.
      s.assistant({ provider, model, usage });
      s.write();
    }
  });

  it('prices a -fast name as the model in fast mode unless the data has an entry for the name itself', () => {
    const j = reportJson([...RANGE, '--by', 'project'], env);
    const p = (k: string) => j.rows.find((r: any) => r.project === cwd[k]);
    // Opus 4.8 fast: 2× $5 / $25 → 1000×$10 + 100×$50 = 15000 millionths (not 7500 at the standard rate).
    expect(p('fast48')).toMatchObject({ requests: 1, cost_source: 'computed' });
    expect(p('fast48').cost_usd).toBeCloseTo(0.015, 10);
    // Opus 5 fast, a name no entry has: 1000×$10 = 10000 millionths (was unknown).
    expect(p('fast5').cost_usd).toBeCloseTo(0.01, 10);
    // OpenRouter lists anthropic/claude-opus-5-fast itself at $10 input: 2000×$10 = 20000 millionths, not doubled again.
    expect(p('router').cost_usd).toBeCloseTo(0.02, 10);
    const show = JSON.parse(runCli(['prices', 'show', 'claude-opus-4-8-fast', '--format', 'json'], env).stdout);
    expect(show.notes.join('\n')).toContain('priced as claude-opus-4-8 at speed "fast"');
  });

  it('cacheWrite1h is the 1-hour part of cacheWrite: 400 at the 1h rate, 600 at the 5m rate, 1000 written in all', () => {
    const row = reportJson([...RANGE, '--by', 'project'], env).rows.find((r: any) => r.project === cwd.oneHour);
    expect(row).toMatchObject({
      requests: 1,
      input_tokens: 1000,
      cache_write_tokens: 1000,
      output_tokens: 100,
      total_tokens: 2100,
    });
    // Sonnet 4.5: 1000×$3 + 100×$15 + 600×$3.75 + 400×$6 = 9150 millionths.
    expect(row.cost_usd).toBeCloseTo(0.00915, 10);
  });
});
