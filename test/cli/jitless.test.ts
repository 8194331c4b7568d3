// tx-usage depends on no JIT and no WebAssembly: under `node --jitless`
// (WebAssembly is then missing, as on hardened or some embedded Nodes) the
// marker scan falls back to plain JavaScript (src/io/marker-scan.ts), the
// digests are node:crypto's, and every report, extraction workers included,
// is the same to the byte as with WebAssembly. The memo written by one run
// answers the other.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome } from '../../fixtures/all-harnesses.js';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { CLI, cleanEnv, tempDir } from '../helpers/cli.js';

const dir = tempDir('txu-jitless-');
const fx = buildAllHome(join(dir, 'home'));
fx.close();
{
  // Over 8 MB to read: the ingest extracts in worker threads (ingest.ts PARALLEL_MIN_BYTES).
  const s = new ClaudeHome(join(fx.home, '.claude')).session({ cwd: '/w/big' });
  s.user('2026-10-20T09:00:00.000Z');
  s.imageResult('2026-10-20T09:00:30.000Z', 9 << 20);
  s.response({ ts: '2026-10-20T09:01:00.000Z', usage: { input: 40, output: 400, cacheRead: 9000 } });
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(nodeArgs: string[], cache: string, args: string[]) {
  const statsFile = join(dir, `stats-${cache}.json`);
  // Two extraction threads whatever the machine, so a worker runs the scan too.
  const env = cleanEnv(fx.home, { XDG_CACHE_HOME: join(dir, cache), TX_USAGE_STATS: statsFile, TX_USAGE_WORKERS: '2' });
  const r = spawnSync(process.execPath, [...nodeArgs, CLI, ...args], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  expect(r.status, r.stderr).toBe(0);
  return { stdout: r.stdout, stderr: r.stderr, stats: JSON.parse(readFileSync(statsFile, 'utf8')) };
}

describe('node --jitless', () => {
  it('has no WebAssembly, and gives the same reports as a Node with it', () => {
    const probe = spawnSync(process.execPath, ['--jitless', '-p', 'typeof WebAssembly'], { encoding: 'utf8' });
    expect(probe.stdout.trim()).toBe('undefined');
    for (const args of [
      ['report', ...ALL_RANGE, '--by', 'harness,model', '--format', 'json'],
      ['report', 'monthly', ...ALL_RANGE, '--format', 'json'],
    ]) {
      const name = args.join('_').replace(/\W+/g, '-');
      const jit = run([], `jit-${name}`, args);
      const jitless = run(['--jitless'], `jitless-${name}`, args);
      expect(jitless.stats.kind).toBe('ingest');
      expect(jitless.stats.workers).toBeGreaterThan(0);
      expect(jitless.stdout).toBe(jit.stdout);
      // V8 says, per isolate, that --jitless turns WebAssembly off: the rest of stderr is the same.
      expect(jitless.stderr.replace(/^Warning: disabling flag --expose_wasm.*\n/gm, '')).toBe(jit.stderr);
    }
    // Answered from the memo a run with WebAssembly wrote.
    const args = ['report', ...ALL_RANGE, '--by', 'harness,model', '--format', 'json'];
    const cache = `jit-${args.join('_').replace(/\W+/g, '-')}`;
    const hit = run(['--jitless'], cache, args);
    expect(hit.stats.kind).toBe('memo-hit');
  });
});
