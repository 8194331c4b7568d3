// Worker-thread entry. A batch message carries every job of an ingest phase
// and shared counters: each worker claims the next job from the front itself
// (no round trip through the main thread, which may be busy writing; the
// main thread claims from the back, see pool.ts), runs jobs one at a time
// (so each job's bytes-read figure is its own) and posts their results in
// packs (transport.ts): columns for many sources at once, moved with the
// message. It waits while too many results are still unread, which bounds
// memory.
import { parentPort } from 'node:worker_threads';
import { runJob, type Job } from './job.js';
import { PackBuilder, sendable, transferList } from './transport.js';

export interface BatchMessage {
  jobs: Job[];
  /**
   * Int32Array over a SharedArrayBuffer: [next job to claim from the front,
   * results taken by the main thread, results posted, one past the last job
   * the main thread has not claimed from the back].
   */
  shared: SharedArrayBuffer;
  /** Results all workers together may have posted and not yet had taken. */
  ahead: number;
}

/**
 * A pack is posted once it holds this many responses or sources, or its
 * first result has waited this long: large enough that a pack's fixed cost
 * is small beside its rows, small enough that the writer is not kept waiting
 * (and never more than the results allowed ahead).
 */
const PACK_EVENTS = 4096;
const PACK_SOURCES = 64;
const PACK_MS = 50;

const port = parentPort;
if (!port) throw new Error('src/ingest/worker.js must run as a worker thread');

// Batches run one after another: a batch sent while another runs waits.
let batches: Promise<void> = Promise.resolve();
port.on('message', (m: BatchMessage) => {
  batches = batches.then(() => runBatch(m));
});

async function runBatch(m: BatchMessage): Promise<void> {
  const counters = new Int32Array(m.shared);
  const pack = new PackBuilder();
  let firstAt = 0;
  const post = () => {
    const p = pack.take();
    if (!p) return;
    const sent = sendable(p);
    port!.postMessage({ kind: 'pack', pack: sent }, transferList(sent));
    Atomics.add(counters, 2, p.entries.length);
  };
  const sourcesAhead = Math.max(1, Math.min(PACK_SOURCES, m.ahead >> 1));
  for (;;) {
    const i = Atomics.add(counters, 0, 1);
    // Past the end, or where the main thread's claims from the back begin.
    if (i >= m.jobs.length || i >= Atomics.load(counters, 3)) break;
    const job = m.jobs[i]!;
    try {
      const r = await runJob(job);
      if (!pack.sources) firstAt = performance.now();
      pack.add(r, i);
    } catch (e) {
      post(); // results before a failure go first, in order
      port!.postMessage({ kind: 'failed', index: i, error: (e as Error)?.message ?? String(e) });
      Atomics.add(counters, 2, 1);
    }
    if (pack.events >= PACK_EVENTS || pack.sources >= sourcesAhead || performance.now() - firstAt >= PACK_MS) post();
    for (;;) {
      const taken = Atomics.load(counters, 1);
      if (Atomics.load(counters, 2) - taken <= m.ahead) break;
      Atomics.wait(counters, 1, taken, 50);
    }
  }
  post();
  port!.postMessage({ kind: 'done' });
}
