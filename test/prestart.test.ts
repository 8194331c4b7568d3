// Extraction workers started by the bin entry before main.cjs loads, on a
// report whose store was never filled (src/ingest/prestart.ts, src/cli/fast.ts):
// they must be the pool's workers when the ingest reads in parallel, must not
// hold the process open when nothing adopts them, and must change no answer.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { adoptPrestartedWorker, prestartWorkers } from '../src/ingest/prestart.js';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../bench/corpus/generate.js';
import { CLI, cleanEnv, tempDir } from './helpers/cli.js';

const ARGS = ['report', '--since', '30d', '--by', 'harness,model', '--format', 'json'];

function run(home: string, cache: string, extra: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...ARGS], {
    env: cleanEnv(home, { XDG_CACHE_HOME: cache, TX_USAGE_TRACE: '1', ...extra }),
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
  });
  expect(r.signal, 'the run ended by itself').toBeNull();
  expect(r.status, r.stderr).toBe(0);
  return { json: JSON.parse(r.stdout), stderr: r.stderr };
}

describe('prestarted extraction workers', () => {
  it('are adopted by the pool the early start reads with, on an empty store only, and the answer is the one-thread answer', () => {
    const dir = tempDir('txu-prestart-');
    const m = generateCorpus({ dir, bytes: 32 << 20, seed: 5 });
    const cache = join(dir, 'cache');
    const cold = run(m.home, cache, { TX_USAGE_WORKERS: '2' });
    expect(cold.stderr).toContain('1 extraction worker prestarted');
    // Two threads extract: the prestarted worker and the main thread.
    expect(cold.stderr).toMatch(/pool: 1 of 1 workers were prestarted/);
    expect(cold.stderr).toMatch(/early extraction started \(1 worker and the main thread/);
    // The store is filled now: the next run starts no workers of its own accord.
    const again = run(m.home, cache, { TX_USAGE_WORKERS: '2' });
    expect(again.stderr).not.toContain('prestarted');
    expect(again.json).toEqual(cold.json);
    // One worker asked for: none prestarted, extraction in the main thread.
    const single = run(m.home, join(dir, 'cache-1'), { TX_USAGE_WORKERS: '1' });
    expect(single.stderr).not.toContain('prestarted');
    expect(single.json.rows).toEqual(cold.json.rows);
    expect(single.json.totals).toEqual(cold.json.totals);
    expect(Number(cold.json.totals.requests)).toBeGreaterThan(0);
  });

  it('left unadopted (too little to read in parallel) do not keep the run from ending', () => {
    const dir = tempDir('txu-prestart-small-');
    const { home } = generateCorpus({ dir, bytes: 2 << 20, seed: 6 });
    const small = run(home, join(dir, 'cache-a'), { TX_USAGE_WORKERS: '2' });
    expect(small.stderr).toContain('1 extraction worker prestarted');
    expect(small.stderr).not.toContain('workers were prestarted');
    const plain = run(home, join(dir, 'cache-b'), { TX_USAGE_WORKERS: '1' });
    expect(small.json.rows).toEqual(plain.json.rows);
    expect(small.json.rows.length).toBeGreaterThan(0);
  });

  it('that died before they were adopted are passed over; live ones are handed out once each', async () => {
    const dir = tempDir('txu-prestart-unit-');
    const dies = join(dir, 'dies.cjs');
    const lives = join(dir, 'lives.cjs');
    writeFileSync(dies, 'process.exit(3);\n');
    writeFileSync(lives, "require('node:worker_threads').parentPort.on('message', () => {});\n");
    prestartWorkers(pathToFileURL(dies), 2);
    prestartWorkers(pathToFileURL(lives), 1);
    // Let the first two exit (their exit events are what marks them).
    await new Promise((r) => setTimeout(r, 500));
    const w = adoptPrestartedWorker();
    expect(w).not.toBeNull();
    expect(adoptPrestartedWorker()).toBeNull();
    // The one handed out is the live one: it is still running.
    const code = await w!.terminate();
    expect(code).toBe(1); // terminated, not exited by itself (which would be 3)
  });

  it('load what they are given to preload while they wait for jobs, in their own thread; a preload that fails changes nothing', async () => {
    const dir = tempDir('txu-prestart-preload-');
    const marker = join(dir, 'loaded.txt');
    const mod = join(dir, 'preloaded.cjs');
    writeFileSync(mod, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, String(require('node:worker_threads').isMainThread));\n`);
    prestartWorkers(pathToFileURL(resolve(__dirname, '../dist/src/ingest/worker.cjs')), 1, ['tx-usage-no-such-package', mod]);
    const w = adoptPrestartedWorker();
    expect(w).not.toBeNull();
    for (let i = 0; i < 100 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(marker, 'utf8')).toBe('false'); // loaded in the worker, not here
    // The failed one before it neither stopped the loading nor the worker.
    expect(await w!.terminate()).toBe(1);
  });
});
