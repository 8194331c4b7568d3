#!/usr/bin/env node
// The bin entry. scripts/bundle.mjs builds it, with the memo check it
// imports, into one CommonJS file next to main.js (dist/src/cli/fast.cjs):
// a repeated report with nothing changed is answered from there without
// Node's ES module loader (about 6 ms to start here) and without loading a
// dozen modules one by one (about 10 ms). Anything else goes to main.js
// (bundled as main.cjs), which takes over what the check found.
import '../core/v8-tuning.js'; // first: V8 flags before anything runs
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { handProbeOver, replayByArgv } from './memo.js';
import { mark } from '../core/trace.js';
import { exitQuietlyWhenStdoutCloses } from './closed-stdout.js';

async function run(argv: string[]): Promise<void> {
  exitQuietlyWhenStdoutCloses();
  if (argv[0] === 'report') {
    try {
      const r = await replayByArgv(argv);
      if (r.hit) return;
      handProbeOver(r);
    } catch {
      /* main.js checks again and reports what went wrong */
    }
  }
  // main.js and its ~70 modules as one CommonJS file when the build made it (scripts/bundle.mjs).
  const bundled = fileURLToPath(new URL('./main.cjs', import.meta.url));
  if (existsSync(bundled)) {
    mark('main: the bundle');
    createRequire(import.meta.url)(bundled);
  } else await import('./main.js');
}

void run(process.argv.slice(2));
