// Worker-thread entry. A batch message carries the first jobs of an ingest
// phase (the rest come a chunk at a time, asked for before they are needed)
// and shared counters: each worker claims the next job itself (no round trip
// through the main thread, which may be busy writing), runs jobs one at a time
// (so each job's bytes-read figure is its own) and posts their results in
// packs (transport.ts): columns for many sources at once, moved with the
// message. It waits while too many results are still unread, which bounds
// memory.
import { parentPort } from 'node:worker_threads';
import { runJob, type Job } from './job.js';
import { PackBuilder, sendable, transferList } from './transport.js';

export interface BatchMessage {
  kind: 'batch';
  /** Jobs [0, jobs.length) of the batch: the first chunk (JobsMessage brings the next ones). */
  jobs: Job[];
  /** Jobs in the batch. */
  total: number;
  /**
   * Int32Array over a SharedArrayBuffer: [next job to claim, results taken
   * by the main thread, results posted, one past the last job to claim].
   */
  shared: SharedArrayBuffer;
  /** Results all workers together may have posted and not yet had taken. */
  ahead: number;
}

/** Jobs [from, from + jobs.length) of the running batch, the answer to a `need` message. */
export interface JobsMessage {
  kind: 'jobs';
  from: number;
  jobs: Job[];
}

/**
 * A pack is posted once it holds this many responses or sources, or its
 * first result has waited this long: large enough that a pack's fixed cost
 * is small beside its rows, small enough that the writer is not kept waiting
 * (and never more than half the results allowed ahead).
 */
const PACK_EVENTS = 4096;
const PACK_SOURCES = 64;
const PACK_MS = 50;

const port = parentPort;
if (!port) throw new Error('src/ingest/worker.js must run as a worker thread');

/**
 * The running batch's jobs this worker holds: [base, base + window.length).
 * Claims only move forward, so the jobs before the one claimed last (run
 * here or claimed by another thread) are let go.
 */
let base = 0;
let window: Job[] = [];
/** One past the last job asked for (or sent with the batch). */
let asked = 0;
/** Called when the next JobsMessage arrives (a worker waiting for a job). */
let arrived: () => void = () => undefined;

// Batches run one after another: a batch sent while another runs waits.
let batches: Promise<void> = Promise.resolve();
port.on('message', (m: BatchMessage | JobsMessage) => {
  if (m.kind === 'jobs') received(m);
  else batches = batches.then(() => runBatch(m));
});

function received(m: JobsMessage): void {
  const end = base + window.length;
  if (m.from <= end) window.push(...m.jobs.slice(end - m.from));
  else {
    // Jobs between were claimed elsewhere meanwhile.
    window = m.jobs;
    base = m.from;
  }
  const wake = arrived;
  arrived = () => undefined;
  wake();
}

/** Asks the main thread for the chunk of jobs from index `from`. */
function ask(from: number, chunk: number): void {
  asked = from + chunk;
  port!.postMessage({ kind: 'need', from });
}

/** Job `i` (claimed by this worker): at hand, or asked for and waited for. Asks for the next chunk half-way through this one. */
async function jobAt(i: number, total: number, chunk: number): Promise<Job> {
  for (;;) {
    if (i > base) {
      window = i - base >= window.length ? [] : window.slice(i - base);
      base = i;
    }
    const end = base + window.length;
    if (i < end) {
      if (end - i <= chunk >> 1 && asked <= end && end < total) ask(end, chunk);
      return window[0]!;
    }
    if (asked <= i) ask(i, chunk);
    await new Promise<void>((r) => (arrived = r));
  }
}

async function runBatch(m: BatchMessage): Promise<void> {
  const counters = new Int32Array(m.shared);
  base = 0;
  window = m.jobs;
  const chunk = Math.max(1, m.jobs.length);
  asked = m.jobs.length;
  const pack = new PackBuilder();
  let firstAt = 0;
  const post = () => {
    const p = pack.take();
    if (!p) return;
    const sent = sendable(p);
    port!.postMessage({ kind: 'pack', pack: sent }, transferList(sent));
    Atomics.add(counters, 2, p.entries.length);
  };
  const packSources = Math.max(1, Math.min(PACK_SOURCES, m.ahead >> 1));
  for (;;) {
    const i = Atomics.add(counters, 0, 1);
    // Past the end.
    if (i >= m.total || i >= Atomics.load(counters, 3)) break;
    try {
      const r = await runJob(await jobAt(i, m.total, chunk));
      if (!pack.sources) firstAt = performance.now();
      pack.add(r, i);
    } catch (e) {
      post(); // the results before a failure go first
      port!.postMessage({ kind: 'failed', index: i, error: (e as Error)?.message ?? String(e) });
      Atomics.add(counters, 2, 1);
    }
    if (pack.events >= PACK_EVENTS || pack.sources >= packSources || performance.now() - firstAt >= PACK_MS) post();
    for (;;) {
      const taken = Atomics.load(counters, 1);
      if (Atomics.load(counters, 2) - taken <= m.ahead) break;
      Atomics.wait(counters, 1, taken, 50);
    }
  }
  post();
  window = [];
  port!.postMessage({ kind: 'done' });
}
