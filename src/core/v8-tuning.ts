// V8 settings for tx-usage's runs that do work: tuneV8() is called by the
// bin entry when the memo cannot answer (before the workers start and
// main.cjs loads; nothing is hot yet) and by main.ts. The flags are
// process-wide, so worker threads get them too. A report answered from the
// memo never sets them: loading node:v8 cost ~2 ms of its ~60.
//
// Interrupt budget: how much bytecode a function runs before V8 considers
// optimizing it. With the default (132 KB of bytecode), a cold ingest had
// each of its three isolates (main and two extraction workers) send about
// 80 functions to TurboFan, whose compiles took ~0.6 s of CPU on V8's
// background threads, a quarter of the run's CPU on a 2-core machine. A budget
// eight times larger leaves about 40 per isolate (the hot loops still get
// there early) and the cold run took ~0.12 s less (benchmark corpus, 2 cores).
import { createRequire } from 'node:module';

let tuned = false;

const v8 = (): typeof import('node:v8') => createRequire(import.meta.url)('node:v8') as typeof import('node:v8');

export function tuneV8(): void {
  if (tuned) return;
  tuned = true;
  v8().setFlagsFromString('--interrupt-budget=1000000');
  // Set here too, before main.cjs loads, so that the flags V8 checks its
  // compiled code of the bundle against (cli/code-cache.ts) are the same on
  // every run and at build time, whichever thread compiles WebAssembly first.
  wasmOptimizedAtOnce();
}

/**
 * WebAssembly compiled by the optimizing compiler straight away: Node 20's
 * V8 runs it in its baseline compiler (Liftoff) and, measured on the
 * benchmark corpus, never tiers the marker scan's loop up (3x slower than
 * optimized). Process-wide, and one of the flags V8 checks code caches
 * against: set before compiling the marker scan (io/marker-scan.ts) and
 * before loading a bundle with code made by an earlier run (tuneV8 for
 * main.cjs, cli/memo.ts loadDelta for delta.cjs), so that the code is made and
 * used under the same flags. The digests' small module (io/xxh64.ts) is
 * compiled by whichever tier the flags say.
 */
export function wasmOptimizedAtOnce(): void {
  v8().setFlagsFromString('--no-liftoff');
}
