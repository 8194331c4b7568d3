// Claude Code's second round of field traps (issue 42), each in the shape the
// field reports, with tokens and costs worked out by hand here:
// - older lines: flat cache_creation_input_tokens 0 beside the real 5m/1h split;
// - regional pricing: usage.inference_geo "us" (1.1×), "global" and
//   "not_available" (list); Bedrock in-region and global inference profiles;
// - CLAUDE_CODE_PROJECT_DIR_NAME: a folder name unrelated to the path;
// - cleanupPeriodDays: said once in the first report, and in `sources`.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { compilePrice } from '../../src/pricing/engine.js';
import { costAtTier } from '../../src/pricing/service-tier.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-10-01', '--until', '2026-10-31'];
const at = (day: number, min = 0) =>
  `2026-10-${String(day).padStart(2, '0')}T10:${String(min).padStart(2, '0')}:00.000Z`;

describe('claude-code traps', () => {
  const home = tempDir('txu-claude-traps-');
  // The live clock (TX_USAGE_NOW) a month after the oldest transcript was last written.
  const env = cleanEnv(home, { TX_USAGE_NOW: '2026-11-05T00:00:00Z' });
  const claude = new ClaudeHome(join(home, '.claude'));
  const ids: Record<string, string> = {};
  let firstStderr = '';

  beforeAll(() => {
    // Older lines: flat 0, the split holds 1000 five-minute and 200 one-hour writes.
    const old = claude.session({ cwd: '/work/old', version: '2.1.140' });
    old.user(at(3));
    old.response({
      model: 'claude-sonnet-4-5-20250929',
      ts: at(3, 1),
      usage: { input: 10, output: 20, cacheWrite5m: 1000, cacheWrite1h: 200 },
      flatCacheWrite: 0,
    });
    ids.old = old.sessionId;
    // Data residency: the same response served as "us", "global" and "not_available".
    for (const geo of ['us', 'global', 'not_available']) {
      const s = claude.session({ cwd: `/work/geo-${geo}` });
      s.user(at(4));
      s.response({ model: 'claude-opus-4-6', ts: at(4, 1), usage: { input: 1000, output: 100 }, inferenceGeo: geo });
      ids[geo] = s.sessionId;
    }
    // Bedrock: an in-region (us.) and a global inference profile.
    for (const [k, model] of [
      ['bedrockUs', 'us.anthropic.claude-haiku-4-5-20251001-v1:0'],
      ['bedrockGlobal', 'global.anthropic.claude-haiku-4-5-20251001-v1:0'],
    ]) {
      const s = claude.session({ cwd: `/work/${k}` });
      s.user(at(5));
      s.response({ model, ts: at(5, 1), usage: { input: 1000, output: 100 } });
      ids[k!] = s.sessionId;
    }
    // CLAUDE_CODE_PROJECT_DIR_NAME: the folder is "short", the records say where the session ran (and it moved).
    const named = claude.session({ cwd: '/work/alpha', dirName: 'short' });
    named.user(at(6));
    named.response({ ts: at(6, 1), usage: { input: 1, output: 1 } });
    named.cd('/work/beta');
    named.user(at(6, 2));
    named.response({ ts: at(6, 3), usage: { input: 2, output: 2 } });
    // No record names a cwd: a folder name that is not an encoded path says nothing of the project.
    const blind = claude.session({ cwd: '/work/blind', dirName: 'nocwd' });
    blind.response({ ts: at(6, 5), usage: { input: 3, output: 3 }, omit: ['cwd'] });
    ids.blind = blind.sessionId;
    // The oldest transcript on disk, last written on 2026-10-02.
    utimesSync(old.file, new Date('2026-10-02T12:00:00Z'), new Date('2026-10-02T12:00:00Z'));
    const r = runCli(['report', ...RANGE, '--by', 'session', '--format', 'json'], env);
    expect(r.status, r.stderr).toBe(0);
    firstStderr = r.stderr;
  });

  const bySession = () => {
    const j = reportJson([...RANGE, '--by', 'session'], env);
    return (s: string) => j.rows.find((r: any) => r.session === s);
  };

  it('older lines: cache writes are the 5m + 1h split when the flat count is 0, each part at its own rate', () => {
    const row = bySession()(ids.old!);
    expect(row).toMatchObject({
      requests: 1,
      input_tokens: 10,
      cache_write_tokens: 1200,
      output_tokens: 20,
      total_tokens: 1230,
    });
    // Sonnet 4.5: 10×$3 + 20×$15 + 1000×$3.75 (5m) + 200×$6 (1h) per MTok = 5280 millionths.
    expect(row.cost_usd).toBeCloseTo(0.00528, 10);
    const ex = JSON.parse(runCli(['explain', ids.old!, '--format', 'json'], env).stdout);
    expect(ex.sources[0].records.find((x: any) => x.counted).rule).toBe('Cache writes');
  });

  it('inference_geo "us" is billed 1.1× every rate; "global" and "not_available" at list price, never unknown', () => {
    const row = bySession();
    // Opus 4.6: 1000×$5 + 100×$25 = 7500 millionths; US-only ×1.1 = 8250.
    expect(row(ids.us!).cost_usd).toBeCloseTo(0.00825, 10);
    expect(row(ids.global!).cost_usd).toBeCloseTo(0.0075, 10);
    expect(row(ids.not_available!).cost_usd).toBeCloseTo(0.0075, 10);
    for (const k of ['us', 'global', 'not_available'])
      expect(row(ids[k]!)).toMatchObject({ cost_source: 'computed', unpriced_requests: 0 });
    const ex = JSON.parse(runCli(['explain', ids.us!, '--format', 'json'], env).stdout);
    expect(ex.sources[0].records.find((x: any) => x.counted).rule).toBe('Regional pricing');
  });

  it('Bedrock: an in-region profile at its regional (1.1×) price, the global profile at list; a list entry for an in-region id gets 1.1×', () => {
    const row = bySession();
    // Haiku 4.5: 1000×$1 + 100×$5 = 1500 millionths; the us. profile 1.1× = 1650.
    expect(row(ids.bedrockUs!).cost_usd).toBeCloseTo(0.00165, 10);
    expect(row(ids.bedrockGlobal!).cost_usd).toBeCloseTo(0.0015, 10);
    // An in-region id priced from an entry that is not a regional one: 1.1× (here $1 per MTok input: 1000 tokens = 1000 millionths → 1100).
    const list = compilePrice({ input_mtok: '1' });
    const u = {
      input_tokens: 1000,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cache_write_5m_tokens: null,
      cache_write_1h_tokens: null,
      output_tokens: 0,
      reasoning_tokens: 0,
    };
    expect(costAtTier(list, { ...u, model: 'eu.anthropic.claude-sonnet-4-5-v1:0' })).toBe(11_000_000n);
    expect(costAtTier(list, { ...u, model: 'global.anthropic.claude-sonnet-4-5-v1:0' })).toBe(10_000_000n);
    expect(costAtTier({ ...list, regional: true }, { ...u, model: 'eu.anthropic.claude-sonnet-4-5-v1:0' })).toBe(
      10_000_000n,
    );
  });

  it('prices show says the regional multiples', () => {
    const first = JSON.parse(runCli(['prices', 'show', 'claude-opus-4-6', '--format', 'json'], env).stdout);
    expect(first.notes.join('\n')).toContain('inference_geo is "us"');
    expect(first.notes.join('\n')).toContain('Vertex AI');
    const bedrock = JSON.parse(
      runCli(['prices', 'show', 'us.anthropic.claude-haiku-4-5-20251001-v1:0', '--format', 'json'], env).stdout,
    );
    expect(bedrock.notes.join('\n')).toContain('in-region rate (1.1×');
  });

  it("CLAUDE_CODE_PROJECT_DIR_NAME: each response's project is its record's cwd, never the folder's name", () => {
    const j = reportJson([...RANGE, '--by', 'project'], env);
    const p = (name: string | null) => j.rows.find((r: any) => r.project === name);
    expect(p('/work/alpha')).toMatchObject({ requests: 1, input_tokens: 1 });
    expect(p('/work/beta')).toMatchObject({ requests: 1, input_tokens: 2 });
    expect(j.rows.some((r: any) => /short|nocwd/.test(String(r.project)))).toBe(false);
    // Reports name an unknown project `unknown`.
    expect(p('unknown')).toMatchObject({ requests: 1, input_tokens: 3 });
  });

  it('cleanupPeriodDays: the first report says once how far back the transcripts reach and the setting; sources always', () => {
    expect(firstStderr).toContain('Claude Code deletes a transcript 30 days after it was last written');
    expect(firstStderr).toContain('2026-10-02');
    expect(firstStderr).toContain('cleanupPeriodDays');
    const again = runCli(['report', ...RANGE, '--format', 'json'], env);
    expect(again.stderr).not.toContain('cleanupPeriodDays');
    // Transcripts that all fall inside the period have lost nothing yet: a first report says nothing.
    const young = tempDir('txu-claude-young-');
    const h = new ClaudeHome(join(young, '.claude'));
    h.session({ cwd: '/work/young' }).response({ ts: at(20), usage: { input: 1, output: 1 } });
    const first = runCli(
      ['report', ...RANGE, '--format', 'json'],
      cleanEnv(young, { TX_USAGE_NOW: '2026-11-05T00:00:00Z' }),
    );
    expect(first.stderr).not.toContain('cleanupPeriodDays');
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ cleanupPeriodDays: 365 }));
    const src = JSON.parse(runCli(['sources', '--format', 'json'], env).stdout).harnesses.find(
      (h: any) => h.harness === 'claude-code',
    );
    expect(src.retention).toMatchObject({
      oldest_transcript_written: '2026-10-02',
      cleanup_period_days: 365,
      set_in: join(home, '.claude', 'settings.json'),
    });
    expect(src.retention.note).toContain('cleanupPeriodDays is 365');
    const table = runCli(['sources'], env).stdout;
    expect(table).toContain('note: Claude Code deletes a transcript 365 days after it was last written');
  });
});
