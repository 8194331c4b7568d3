// V8 settings for tx-usage's runs, applied when the bin entry loads (before
// anything gets hot; the flags are process-wide, so worker threads get them
// too). Imported first by src/cli/fast.ts and src/cli/main.ts.
//
// Interrupt budget: how much bytecode a function runs before V8 considers
// optimizing it. With the default (132 KB of bytecode), a cold ingest had
// each of its three isolates (main and two extraction workers) send about
// 80 functions to TurboFan, whose compiles took ~0.6 s of CPU on V8's
// background threads, a quarter of the run's CPU on a 2-core machine. A budget
// eight times larger leaves about 40 per isolate (the hot loops still get
// there early) and the cold run took ~0.12 s less (benchmark corpus, 2 cores).
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--interrupt-budget=1000000');
