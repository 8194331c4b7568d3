#!/usr/bin/env node
// The bin entry. scripts/bundle.mjs builds it, with the memo check it
// imports, into one CommonJS file next to main.js (dist/src/cli/fast.cjs):
// a repeated report with nothing changed is answered from there without
// Node's ES module loader (about 6 ms to start here) and without loading a
// dozen modules one by one (about 10 ms). Anything else goes to main.js
// (bundled as main.cjs), which takes over what the check found.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { handProbeOver, replayByArgv } from './memo.js';
import { mark } from '../core/trace.js';
import { loadBundle } from './code-cache.js';
import { exitQuietlyWhenStdoutCloses } from './closed-stdout.js';
import { plainReportArgs } from './plain-args.js';
import { runtimeFrom, type GlobalArgs } from './runtime.js';
import { sidecarPath } from '../ingest/handoff.js';
import { prestartWorkers } from '../ingest/prestart.js';
import { workersWanted } from '../ingest/worker-count.js';

/**
 * A plain report on a store that was never filled (no sidecar index beside
 * it, see ingest/early.ts) reads every recent transcript in worker threads:
 * the first of them is started now, to boot while main.cjs loads and the
 * sources are found (ingest/prestart.ts); the pool starts the others. One,
 * not all: a store never filled may also be a small history that needs no
 * workers at all, and cold runs over the benchmark corpus were no faster
 * with two prestarted (857 vs 850 ms, 983 vs 1009 ms in another sitting).
 */
function prestartForEmptyStore(argv: string[]): void {
  const args = plainReportArgs(argv);
  if (!args || args.from !== undefined) return;
  const side = sidecarPath(runtimeFrom(args as GlobalArgs).dbPath);
  const worker = new URL('../ingest/worker.cjs', import.meta.url);
  if (!side || existsSync(side) || !existsSync(fileURLToPath(worker))) return;
  // Only when the early start would use workers at all (early.ts: at least two).
  if (workersWanted(process.env) < 2) return;
  // The store will be opened: the worker loads DuckDB's native library while it waits (worker.ts).
  prestartWorkers(worker, 1, ['@duckdb/node-bindings']);
  mark('1 extraction worker prestarted');
}

async function run(argv: string[]): Promise<void> {
  mark('bin entry loaded');
  if (argv[0] === 'report') {
    try {
      const r = await replayByArgv(argv);
      // Answered with synchronous writes to fds 1 and 2 (memo.ts writeOutput): nothing is left to flush.
      if (r.hit) return process.exit();
      handProbeOver(r);
      if (!r.seen) prestartForEmptyStore(argv);
    } catch {
      /* main.js checks again and reports what went wrong */
    }
  }
  exitQuietlyWhenStdoutCloses();
  // main.js and its ~70 modules as one CommonJS file when the build made it (scripts/bundle.mjs).
  const bundled = fileURLToPath(new URL('./main.cjs', import.meta.url));
  if (existsSync(bundled)) {
    mark('main: the bundle');
    // With the code V8 made for it at build time (scripts/code-cache.mjs).
    const codePath = `${bundled}.code`;
    const main = loadBundle(bundled, codePath);
    mark(main.usedCode ? 'main: compiled code used' : 'main: compiled');
    if (process.env.TX_USAGE_MAKE_CODE) process.on('exit', () => main.keepCode(codePath, { force: true }));
  } else await import('./main.js');
}

void run(process.argv.slice(2));
