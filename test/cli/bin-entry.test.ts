// The bin entry (dist/src/cli/fast.cjs, bundled with the rest of the CLI in
// layers by scripts/bundle.mjs) and the same modules unbundled
// (dist/src/cli/fast.js, as tsc compiled them) share one memo: either answers
// a report the other rendered, and both give the same answers.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { tokenFields } from '../../fixtures/ledger.js';
import { CLI, cleanEnv, tempDir } from '../helpers/cli.js';

const UNBUNDLED = resolve(__dirname, '../../dist/src/cli/fast.js');
const ts = (day: number, min: number) => new Date(Date.UTC(2026, 5, day, 10, min)).toISOString();

/** A report over June 2026, as JSON. */
const JUNE = ['report', '--since', '2026-06-01', '--until', '2026-06-30', '--format', 'json'];

/** A home with one Claude Code session holding one response, on 3 June 2026. */
function oneResponseHome(prefix: string): string {
  const home = tempDir(prefix);
  const s = new ClaudeHome(join(home, '.claude')).session({ cwd: '/w/a' });
  s.user(ts(3, 0));
  s.response({ ts: ts(3, 1), usage: { input: 7, output: 50, cacheRead: 300 } });
  return home;
}

describe('bin entry', () => {
  it('is the package bin, and agrees with the unbundled modules hit for hit and miss for miss', () => {
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8'));
    expect(resolve(__dirname, '../..', pkg.bin['tx-usage'])).toBe(CLI);
    const home = tempDir('txu-bin-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: '/w/a' });
    const add = (day: number, n: number) => {
      for (let i = 0; i < n; i++) {
        s.user(ts(day, 2 * i));
        s.response({ ts: ts(day, 2 * i + 1), usage: { input: 7 + i, output: 50 + i, cacheRead: 300 } });
      }
    };
    add(3, 2);
    const statsFile = join(home, 'stats.json');
    const env = cleanEnv(home, { TX_USAGE_STATS: statsFile });
    const run = (entry: string, extra: Record<string, string> = {}) => {
      rmSync(statsFile, { force: true });
      const r = spawnSync(
        process.execPath,
        [entry, 'report', '--since', '2026-06-01', '--until', '2026-06-30', '--format', 'json'],
        { env: { ...env, ...extra }, encoding: 'utf8' },
      );
      if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr}`);
      return { out: JSON.parse(r.stdout), kind: JSON.parse(readFileSync(statsFile, 'utf8')).kind as string };
    };
    const first = run(UNBUNDLED);
    expect(first.kind).toBe('ingest');
    const hit = run(CLI);
    expect(hit.kind).toBe('memo-hit');
    expect(hit.out).toEqual(first.out);
    // Trace marks (stderr only) are not part of what the memo is keyed on.
    expect(run(CLI, { TX_USAGE_TRACE: '1' }).kind).toBe('memo-hit');
    add(4, 3);
    // Lines appended: the store's incremental ingest reads just them, from either entry.
    const grown = run(CLI);
    expect(grown.kind).toBe('ingest');
    expect(tokenFields(grown.out.totals)).toEqual(tokenFields(claude.ledger.totals()));
    const again = run(UNBUNDLED);
    expect(again.kind).toBe('memo-hit');
    expect(again.out).toEqual(grown.out);
    // A new transcript: a miss, and the full path.
    const t = claude.session({ cwd: '/w/b' });
    t.user(ts(5, 0));
    t.response({ ts: ts(5, 1), usage: { input: 3, output: 9, cacheRead: 30 } });
    const miss = run(CLI);
    expect(miss.kind).toBe('ingest');
    expect(tokenFields(miss.out.totals)).toEqual(tokenFields(claude.ledger.totals()));
    const hitAgain = run(UNBUNDLED);
    expect(hitAgain.kind).toBe('memo-hit');
    expect(hitAgain.out).toEqual(miss.out);
  });

  it('gives every other command the answers of the unbundled modules', () => {
    const home = tempDir('txu-bin-');
    const env = cleanEnv(home);
    for (const args of [
      ['sources', '--format', 'json'],
      ['report', '--by', 'nope'],
      ['--version'],
      ['report', '--demo', '--format', 'json'],
      ['prices', 'show', 'gpt-5', '--at', '2026-06-01', '--format', 'json'],
    ]) {
      const a = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });
      const b = spawnSync(process.execPath, [UNBUNDLED, ...args], { env, encoding: 'utf8' });
      // The demo's sample data is generated around now: its times may differ by a second.
      const same = (s: string) => (args.includes('--demo') ? JSON.parse(s).totals : s);
      expect({ status: a.status, stdout: same(a.stdout), stderr: a.stderr }).toEqual({
        status: b.status,
        stdout: same(b.stdout),
        stderr: b.stderr,
      });
    }
  });

  it('ends quietly with exit 0 when the reader of its output goes away (`tx-usage report | head`)', async () => {
    const home = tempDir('txu-epipe-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: '/w/epipe' });
    for (let m = 0; m < 40; m++) s.response({ ts: ts(3, m), usage: { input: 10 + m, output: 100 } });
    const args = ['report', '--since', '2026-06-01', '--until', '2026-06-30', '--by', 'day,model,project,session'];
    const hitEnv = cleanEnv(home, { XDG_CACHE_HOME: join(home, '.cache-hit') });
    expect(spawnSync(process.execPath, [CLI, ...args], { env: hitEnv, encoding: 'utf8' }).status).toBe(0);
    // A miss through the bin entry and through the unbundled modules, and a memo hit (answered by the bin entry alone).
    for (const [entry, env] of [
      [CLI, cleanEnv(home, { XDG_CACHE_HOME: join(home, '.cache-bin') })],
      [UNBUNDLED, cleanEnv(home, { XDG_CACHE_HOME: join(home, '.cache-main') })],
      [CLI, hitEnv],
    ] as const) {
      const child = spawn(process.execPath, [entry, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      // The read end is gone before anything is written: every write fails with EPIPE.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
      expect(stderr, entry).not.toMatch(/EPIPE|Unhandled|at .*\(/);
      expect(code, `${entry}: ${stderr}`).toBe(0);
    }
  });

  it('answers a memo hit without loading what only work needs (perf_hooks, worker_threads), and sets no V8 flags', () => {
    const home = oneResponseHome('txu-bin-mods-');
    // A preload that writes the built-in modules the run loaded, at exit.
    const listFile = join(home, 'modules.json');
    const preload = join(home, 'list-modules.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listFile)}, JSON.stringify(process.moduleLoadList)));\n`,
    );
    const statsFile = join(home, 'stats.json');
    const env = cleanEnv(home, { TX_USAGE_STATS: statsFile });
    const run = () => {
      const r = spawnSync(process.execPath, ['--require', preload, CLI, ...JUNE], { env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const loaded = new Set(
        (JSON.parse(readFileSync(listFile, 'utf8')) as string[]).map((m) => m.replace(/^NativeModule /, '')),
      );
      return { kind: JSON.parse(readFileSync(statsFile, 'utf8')).kind as string, loaded };
    };
    const miss = run();
    expect(miss.kind).toBe('ingest');
    expect(miss.loaded.has('v8')).toBe(false); // no V8 flags set at run time
    const hit = run();
    expect(hit.kind).toBe('memo-hit');
    for (const m of ['v8', 'perf_hooks', 'worker_threads']) expect(hit.loaded.has(m), m).toBe(false);
  });

  it('writes the discovery record on a miss (once the early start is under way) and replays it on the next run', () => {
    const home = oneResponseHome('txu-bin-rec-');
    const env = cleanEnv(home, { TX_USAGE_TRACE: '1' });
    const record = join(home, '.cache', 'tx-usage', 'discovery.json');
    const run = () => {
      const r = spawnSync(process.execPath, [CLI, ...JUNE], { env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stderr;
    };
    const first = run();
    expect(first).toContain('sources found'); // discovered
    expect(existsSync(record)).toBe(true);
    const second = run();
    expect(second).toContain('memo: sources found and stamped');
    expect(second).not.toMatch(/trace .* sources found\n/); // replayed from the record, not discovered again
  });
});
