// Worker-thread entry. A batch message carries every job of an ingest phase
// and shared counters: each worker claims the next job from the front itself
// (no round trip through the main thread, which may be busy writing; the
// main thread claims from the back, see pool.ts), runs jobs one at
// a time (so each job's bytes-read figure is its own) and posts each result
// back as typed arrays and a short JSON text (transport.ts), which cross
// threads faster than a structured clone of thousands of small event objects. It waits while too many results are
// still unread, which bounds memory.
import { parentPort } from 'node:worker_threads';
import { runJob, type Job } from './job.js';
import { encodeResult, transferList } from './transport.js';

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

const port = parentPort;
if (!port) throw new Error('src/ingest/worker.js must run as a worker thread');

// Batches run one after another: a batch sent while another runs waits.
let batches: Promise<void> = Promise.resolve();
port.on('message', (m: BatchMessage) => {
  batches = batches.then(() => runBatch(m));
});

async function runBatch(m: BatchMessage): Promise<void> {
  const counters = new Int32Array(m.shared);
  for (;;) {
    const i = Atomics.add(counters, 0, 1);
    // Past the end, or where the main thread's claims from the back begin.
    if (i >= m.jobs.length || i >= Atomics.load(counters, 3)) break;
    const job = m.jobs[i]!;
    try {
      const enc = encodeResult(await runJob(job));
      port!.postMessage({ kind: 'result', index: i, result: enc }, transferList(enc));
    } catch (e) {
      port!.postMessage({ kind: 'failed', index: i, error: (e as Error)?.message ?? String(e) });
    }
    Atomics.add(counters, 2, 1);
    for (;;) {
      const taken = Atomics.load(counters, 1);
      if (Atomics.load(counters, 2) - taken <= m.ahead) break;
      Atomics.wait(counters, 1, taken, 50);
    }
  }
  port!.postMessage({ kind: 'done' });
}
