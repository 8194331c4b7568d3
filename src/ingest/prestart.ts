// Extraction workers started by the bin entry before it loads the rest of
// the CLI, on a run that will certainly read transcripts in parallel (a store
// that has never been filled: see fast.ts). A worker takes ~20 ms to boot
// (a Node isolate and the bundled worker module); started here, that happens
// on the second core while the main thread loads main.cjs and discovers the
// sources, instead of after (~60 ms later). ExtractPool adopts them.
//
// fast.cjs and main.cjs are separate bundles, each with its own copy of this
// module: the workers are handed over through a registered global symbol.
import type { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

const KEY = Symbol.for('tx-usage.prestarted-workers');

type Held = { worker: Worker; dead: boolean; drop: () => void };

function held(): Held[] {
  const g = globalThis as Record<symbol, unknown>;
  return ((g[KEY] as Held[] | undefined) ??= []);
}

/**
 * Starts `n` workers of `url`, not keeping the process alive until adopted
 * (a run that ends up not needing them exits as if they did not exist).
 * `preload`: packages each worker loads while it waits for its first jobs
 * (see worker.ts).
 */
export function prestartWorkers(url: URL, n: number, preload: string[] = []): void {
  // Loaded here, not with the module: the bin entry bundles this module, and a warm run has no use for it (~2 ms).
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const list = held();
  for (let i = 0; i < n; i++) {
    // Until adopted, a worker that fails is only dropped: the pool starts another.
    const h: Held = { worker: new Worker(url, { workerData: { preload } }), dead: false, drop: () => void (h.dead = true) };
    h.worker.unref();
    h.worker.once('error', h.drop);
    h.worker.once('exit', h.drop);
    list.push(h);
  }
}

/** A prestarted worker that is still alive, now keeping the process alive like any other; null when none is left. */
export function adoptPrestartedWorker(): Worker | null {
  const list = held();
  for (let h = list.shift(); h; h = list.shift()) {
    if (h.dead) continue;
    h.worker.off('error', h.drop).off('exit', h.drop);
    h.worker.ref();
    return h.worker;
  }
  return null;
}
