#!/usr/bin/env node
// The bin entry. scripts/bundle.mjs builds it, with the memo check it
// imports, into one CommonJS file next to main.js (dist/src/cli/fast.cjs):
// a repeated report with nothing changed is answered from there without
// Node's ES module loader and without loading the rest of the CLI, yargs or
// DuckDB (docs/internals.md). Anything else goes to the main bundle
// (main.cjs, built from main.js), which takes over what the check found.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { passProbeToMain, replayByArgv } from './memo.js';
import { mark } from '../core/trace.js';
import { loadBundle } from './code-cache.js';
import { exitQuietlyWhenStdoutCloses } from './closed-stdout.js';

/** `tx-usage statusline`: its own bundle, without yargs (see statusline-entry.ts); --refresh and --help go to main.js. */
async function statusline(argv: string[]): Promise<boolean> {
  if (argv.some((a) => a === '--refresh' || a === '--help' || a === '-h')) return false;
  const bundled = fileURLToPath(new URL('./statusline.cjs', import.meta.url));
  const entry = existsSync(bundled)
    ? loadBundle<typeof import('./statusline-entry.js')>(bundled, null).exports
    : await import('./statusline-entry.js');
  try {
    await entry.runStatusline(argv.slice(1));
  } catch {
    /* statuslineCommand prints a line whatever happens; nothing may reach stderr */
  }
  return true;
}

async function run(argv: string[]): Promise<void> {
  mark('bin entry loaded');
  if (argv[0] === 'statusline' && (await statusline(argv))) return;
  if (argv[0] === 'report') {
    try {
      const r = await replayByArgv(argv);
      // Answered with synchronous writes to fds 1 and 2 (closed-stdout.ts writeAllSync): nothing is left to flush.
      if (r.hit) return process.exit();
      passProbeToMain(r);
    } catch {
      /* main checks again and reports what went wrong */
    }
  }
  exitQuietlyWhenStdoutCloses();
  // main.js and everything it imports as one CommonJS file when the build made it (scripts/bundle.mjs).
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
