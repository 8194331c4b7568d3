// A small pool of worker threads that run an ingest phase's extraction jobs
// in parallel while this thread writes their results. Workers claim jobs
// from the front of the list through a shared counter (see worker.ts), so
// they never wait for the main thread between jobs. A worker that dies costs
// speed, never a source: the jobs it took are run again in this thread.
//
// Why this thread does not extract too: its share of a cold run is starting
// up (loading DuckDB, opening the store) and writing, about as much as a
// worker's extraction at 1 GiB; extraction in this thread as well (it used
// to claim jobs from the back whenever its event loop was free) held its
// writes up and cost more CPU than in the worker, already warmed up for it.
// 1 GiB benchmark corpus, cold, 8 interleaved rounds under load (median of
// the per-round ratio, IQR): without this thread's share 0.87x the CPU
// (0.79-0.93) and 0.91x the wall time (0.78-0.93); claiming only after 20 ms
// without a result to take, 0.94x (0.77-1.01) and 0.97x.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runJob, type Job, type JobResult } from './job.js';
import type { BatchMessage } from './worker.js';
import { received, resultsOf, type SentPack } from './transport.js';

type Reply =
  | { kind: 'pack'; pack: SentPack }
  | { kind: 'failed'; index: number; error: string }
  | { kind: 'need'; from: number }
  | { kind: 'done' };

/**
 * The jobs of a batch, made when first asked for (an array is one): a
 * worker is sent them JOB_CHUNK at a time as it claims them, so neither
 * thread holds a job object per source of a large phase at once.
 */
export interface JobList {
  readonly length: number;
  at(index: number): Job | undefined;
}

/** Jobs a worker is sent at a time (worker.ts asks for the next chunk before it runs out). */
const JOB_CHUNK = 512;

// The bundled worker (scripts/bundle.mjs) when the build made one: one file to load instead of ~40 modules.
const WORKER_URL = ((bundled) =>
  bundled.protocol === 'file:' && existsSync(fileURLToPath(bundled))
    ? bundled
    : new URL('./worker.js', import.meta.url))(new URL('./worker.cjs', import.meta.url));
/** Results posted and not yet taken by the main thread, across workers (bounds memory while a batch is written). */
const AHEAD = 128;

/** True when the compiled worker module exists (not when running from TypeScript sources). */
export function workersAvailable(): boolean {
  return WORKER_URL.protocol === 'file:' && existsSync(fileURLToPath(WORKER_URL));
}

interface Slot {
  worker: Worker;
  dead: boolean;
  /** Called with each message of the batch in progress. */
  onMessage: ((m: Reply) => void) | null;
  onDeath: (() => void) | null;
}

/** See ExtractPool.nearEnd. */
const NEAR_END_JOBS = 64;

export class ExtractPool {
  private readonly slots: Slot[] = [];

  /** `threads - 1` workers extract (at least one), this thread writes (workersWanted's count). */
  constructor(threads: number) {
    const size = Math.max(1, threads - 1);
    for (let i = 0; i < size; i++) {
      const slot: Slot = { worker: new Worker(WORKER_URL), dead: false, onMessage: null, onDeath: null };
      slot.worker.on('message', (m: Reply) => slot.onMessage?.(m));
      const die = () => {
        if (slot.dead) return;
        slot.dead = true;
        slot.onDeath?.();
      };
      slot.worker.on('error', die);
      slot.worker.on('exit', die);
      this.slots.push(slot);
    }
  }

  /** Jobs run in this thread (those a worker that died had taken: all batches). */
  ranHere = 0;

  /**
   * The running batch is near its end: fewer than NEAR_END_JOBS of its jobs
   * were left to claim when a result came (or it had fewer from the start).
   * onNearEnd is called when that starts (the ingest then writes results as
   * they come, see phase-writer.ts).
   */
  nearEnd = false;
  onNearEnd: (() => void) | null = null;

  /** Live worker threads (this thread not counted). */
  get size(): number {
    return this.slots.filter((s) => !s.dead).length;
  }

  /**
   * Runs every job; `onResult` is called once per job, one call at a time
   * (the next waits for the previous to settle), in completion order. A
   * batch given while another runs starts when that one has finished: the
   * workers' messages go to one batch's handlers at a time (the ingest gives
   * its own batch to the pool the early extraction is still using).
   */
  runAll(jobs: JobList, onResult: (r: JobResult) => Promise<void>, ahead = AHEAD): Promise<void> {
    // With no batch in progress, the jobs go to the workers now, before this
    // call returns. Through a promise they went when the caller's stack next
    // emptied: the early extraction is started by a caller that goes on with
    // ~100 ms of synchronous work (last-line checks, loading the report and
    // DuckDB's modules), and the worker waited that long for its first job
    // (benchmark cold run: its jobs arrived ~95 ms later, the run ~45 ms slower).
    const start = () => this.runBatch(jobs, onResult, ahead);
    // Counted down before the caller sees the batch settle: idle again for its next one.
    const run = (this.running === 0 ? start() : this.batches.then(start)).finally(() => void this.running--);
    this.running++;
    this.batches = run.catch(() => undefined);
    return run;
  }

  private batches: Promise<void> = Promise.resolve();
  /** Batches given and not yet finished (the one running included). */
  private running = 0;

  private runBatch(jobs: JobList, onResult: (r: JobResult) => Promise<void>, ahead: number): Promise<void> {
    const live = this.slots.filter((s) => !s.dead);
    // See BatchMessage (worker.ts).
    const shared = new SharedArrayBuffer(16);
    const counters = new Int32Array(shared);
    counters[3] = jobs.length;
    const done = new Array<boolean>(jobs.length).fill(false);
    let chain: Promise<void> = Promise.resolve();
    let failure: Error | null = null;
    let open = live.length;
    this.nearEnd = jobs.length < NEAR_END_JOBS;
    if (this.nearEnd) this.onNearEnd?.();
    const take = (r: JobResult, index: number) => {
      done[index] = true;
      if (!this.nearEnd && jobs.length - Atomics.load(counters, 0) < NEAR_END_JOBS) {
        this.nearEnd = true;
        this.onNearEnd?.();
      }
      chain = chain
        .then(() => (failure ? undefined : onResult(r)))
        .catch((e: unknown) => void (failure ??= e as Error))
        .finally(() => {
          Atomics.add(counters, 1, 1);
          Atomics.notify(counters, 1);
        });
    };
    return new Promise<void>((resolve, reject) => {
      const finish = () => {
        if (--open > 0) return;
        for (const s of live) s.onMessage = s.onDeath = null;
        // Jobs taken by a worker that died (or never run): again, here.
        const missing = done.flatMap((d, i) => (d ? [] : [i]));
        this.ranHere += missing.length;
        const rest = missing.reduce<Promise<void>>(
          (p, i) => p.then(async () => onResult(await runJob(jobs.at(i)!))),
          chain,
        );
        rest.then(
          () => (failure ? reject(failure) : resolve()),
          (e: unknown) => reject(failure ?? (e as Error)),
        );
      };
      if (!live.length) {
        open = 1;
        return finish();
      }
      for (const s of live) {
        let finished = false;
        const end = () => {
          if (finished) return;
          finished = true;
          finish();
        };
        s.onDeath = end;
        s.onMessage = (m) => {
          if (m.kind === 'pack')
            for (const { index, result } of resultsOf(received(m.pack), (i) => jobs.at(i)!)) take(result, index);
          else if (m.kind === 'need') s.worker.postMessage({ kind: 'jobs', from: m.from, jobs: chunkOf(jobs, m.from) });
          else if (m.kind === 'failed') {
            done[m.index] = true;
            failure ??= new Error(m.error);
            Atomics.add(counters, 1, 1);
          } else end();
        };
        const msg: BatchMessage = { kind: 'batch', jobs: chunkOf(jobs, 0), total: jobs.length, shared, ahead };
        s.worker.postMessage(msg);
      }
    });
  }

  async close(): Promise<void> {
    const live = this.slots.filter((s) => !s.dead);
    for (const s of live) s.dead = true;
    await Promise.all(live.map((s) => s.worker.terminate()));
  }
}

/** Jobs [from, from + JOB_CHUNK) of a list (fewer at its end). */
function chunkOf(jobs: JobList, from: number): Job[] {
  const out: Job[] = [];
  for (let i = from; i < Math.min(jobs.length, from + JOB_CHUNK); i++) out.push(jobs.at(i)!);
  return out;
}
