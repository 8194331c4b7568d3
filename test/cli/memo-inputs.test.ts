// The report memo (src/cli/memo.ts) is keyed on what the run read
// (src/core/inputs.ts): an input that changes makes the next run a full one,
// a variable the run never read does not. And a memo hit prints what the
// full run of the same command prints: after `tx-usage ingest` read an old
// transcript with a bad line, the report's warnings are the same either way
// (a report shows the warnings of the sources it needs, not those of a source
// its horizon leaves unread, ingest/horizon.ts).
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const dir = tempDir('txu-memo-inputs-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A home with a June session, and a January one whose file ends with a bad line (and was last written then). */
function home(name: string): { home: string; old: string } {
  const h = join(dir, name);
  const claude = new ClaudeHome(join(h, '.claude'));
  const june = claude.session({ cwd: '/w/june' });
  june.user('2026-06-10T10:00:00.000Z');
  june.response({ ts: '2026-06-10T10:01:00.000Z', usage: { input: 12, output: 120, cacheRead: 500 } });
  const jan = claude.session({ cwd: '/w/jan' });
  jan.user('2026-01-10T10:00:00.000Z');
  jan.response({ ts: '2026-01-10T10:01:00.000Z', usage: { input: 7, output: 70 } });
  jan.garbage();
  jan.user('2026-01-10T10:02:00.000Z');
  const t = Date.UTC(2026, 0, 10, 11) / 1000;
  utimesSync(jan.file, t, t);
  return { home: h, old: jan.file };
}

function runner(h: string, extra: Record<string, string> = {}) {
  const statsFile = join(h, 'stats.json');
  const env = cleanEnv(h, { TX_USAGE_STATS: statsFile, ...extra });
  return (args: string[], more: Record<string, string> = {}) => {
    const r = runCli(args, { ...env, ...more });
    expect(r.status, r.stderr).toBe(0);
    return { ...r, kind: JSON.parse(readFileSync(statsFile, 'utf8')).kind as string };
  };
}

const JUNE = ['report', '--since', '2026-06-01', '--until', '2026-06-30'];
const memoFile = (h: string) => join(h, '.cache', 'tx-usage', 'report-memo.json');

describe('report memo', () => {
  it('after `tx-usage ingest`, a memo hit prints the same warnings as the full run of the same command', () => {
    const { home: h, old } = home('warnings');
    const run = runner(h);
    for (const format of ['table', 'json']) {
      const args = [...JUNE, '--format', format];
      const before = run(args);
      expect(before.kind).toBe('ingest');
      expect(before.stdout + before.stderr).not.toContain(old); // left unread: no warning of it yet
      // `ingest` reads everything, the old transcript and its bad line too.
      const ing = run(['ingest']);
      expect(ing.kind).toBe('ingest');
      const hit = run(args);
      expect(hit.kind).toBe('memo-hit');
      rmSync(memoFile(h));
      const full = run(args);
      expect(full.kind).toBe('ingest');
      expect({ stdout: hit.stdout, stderr: hit.stderr }).toEqual({ stdout: full.stdout, stderr: full.stderr });
      // A report whose window holds the old transcript shows its warning.
      const wide = run(['report', '--since', '2026-01-01', '--until', '2026-06-30', '--format', format]);
      expect(wide.stdout + wide.stderr).toContain(old);
      rmSync(join(h, '.cache'), { recursive: true, force: true });
    }
  });

  it('is keyed on what the run read: an environment variable or file it read, not one it did not', () => {
    const { home: h } = home('inputs');
    const run = runner(h);
    const args = [...JUNE, '--format', 'json', '--by', 'model'];
    expect(run(args).kind).toBe('ingest');
    expect(run(args).kind).toBe('memo-hit');
    // Variables this run did not read (numbers are formatted en-US whatever the locale; JSON has no width).
    expect(
      run(args, { SOME_UNRELATED_VARIABLE: 'x', LANG: 'fr_FR.UTF-8', LC_ALL: 'de_DE.UTF-8', COLUMNS: '200' }).kind,
    ).toBe('memo-hit');
    // A harness root variable discovery reads (it points at nothing here: another answer).
    const elsewhere = run(args, { CLAUDE_CONFIG_DIR: join(h, 'nowhere') });
    expect(elsewhere.kind).toBe('ingest');
    // (Its rows are those read before: the store keeps the history of sources it no longer finds.)
    expect(run(args).kind).toBe('ingest');
    expect(run(args).kind).toBe('memo-hit');
    // The config file (its absence was read): a machine name for --by machine.
    const cfg = join(h, '.config', 'tx-usage');
    mkdirSync(cfg, { recursive: true });
    writeFileSync(join(cfg, 'config.json'), JSON.stringify({ machine: 'desk-1' }));
    const byMachine = [...JUNE, '--format', 'json', '--by', 'machine'];
    const m1 = run(byMachine);
    expect(JSON.parse(m1.stdout).rows.map((r: { machine: string }) => r.machine)).toEqual(['desk-1']);
    expect(run(byMachine).kind).toBe('memo-hit');
    writeFileSync(join(cfg, 'config.json'), JSON.stringify({ machine: 'desk-22' }));
    const m2 = run(byMachine);
    expect(m2.kind).toBe('ingest');
    expect(JSON.parse(m2.stdout).rows.map((r: { machine: string }) => r.machine)).toEqual(['desk-22']);
    // Price overrides: the file's contents, through --prices.
    const prices = join(h, 'prices.json');
    writeFileSync(
      prices,
      JSON.stringify({ 'claude-opus-5-5': { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 } }),
    );
    const p1 = run([...args, '--prices', prices]);
    expect(run([...args, '--prices', prices]).kind).toBe('memo-hit');
    writeFileSync(
      prices,
      JSON.stringify({ 'claude-opus-5-5': { input_cost_per_token: 3e-6, output_cost_per_token: 2e-6 } }),
    );
    const p2 = run([...args, '--prices', prices]);
    expect(p2.kind).toBe('ingest');
    expect(JSON.parse(p2.stdout).totals.cost_usd).not.toBe(JSON.parse(p1.stdout).totals.cost_usd);
    // The zone: TZ is read when --tz is not given.
    expect(run(args, { TZ: 'Asia/Tokyo' }).kind).toBe('ingest');
  });

  it('writes its entries with the inputs they were read with', () => {
    const { home: h } = home('entries');
    const run = runner(h);
    run([...JUNE, '--format', 'json']);
    const memo = JSON.parse(readFileSync(memoFile(h), 'utf8'));
    const inputs = memo.entries[0].inputs as { k: string; name?: string; path?: string }[];
    const env = inputs.filter((i) => i.k === 'env').map((i) => i.name);
    expect(env).toEqual(
      expect.arrayContaining(['HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'CLAUDE_CONFIG_DIR', 'TZ']),
    );
    // Knobs that change how a run works, never its output, are not inputs.
    expect(env).not.toContain('TX_USAGE_STATS');
    const files = inputs.filter((i) => i.k === 'file').map((i) => i.path!);
    expect(files.some((f) => f.endsWith('/queries/summary.sql'))).toBe(true);
    expect(files.some((f) => f.endsWith('/reports/summary.json'))).toBe(true);
    expect(files.some((f) => f.endsWith(join('tx-usage', 'config.json')))).toBe(true);
  });
});
