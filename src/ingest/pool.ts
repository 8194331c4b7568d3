// A small pool of worker threads that run extraction jobs in parallel. Each
// worker takes one job at a time. A worker that dies hands its job back to
// the caller's fallback, so a crash costs speed, never a source.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runJob, type Job, type JobResult } from './job.js';

type Reply = { ok: true; result: JobResult } | { ok: false; id: number; error: string };

interface Slot {
  worker: Worker;
  job: Job | null;
  resolve: ((r: JobResult) => void) | null;
  reject: ((e: Error) => void) | null;
  dead: boolean;
}

const WORKER_URL = new URL('./worker.js', import.meta.url);

/** True when the compiled worker module exists (not when running from TypeScript sources). */
export function workersAvailable(): boolean {
  return WORKER_URL.protocol === 'file:' && existsSync(fileURLToPath(WORKER_URL));
}

export class ExtractPool {
  private readonly slots: Slot[] = [];
  private readonly queue: { job: Job; resolve: (r: JobResult) => void; reject: (e: Error) => void }[] = [];

  constructor(size: number) {
    for (let i = 0; i < size; i++) this.spawn();
  }

  get size(): number {
    return this.slots.filter((s) => !s.dead).length;
  }

  private spawn(): void {
    const worker = new Worker(WORKER_URL);
    const slot: Slot = { worker, job: null, resolve: null, reject: null, dead: false };
    worker.on('message', (m: Reply) => {
      const { resolve, reject } = slot;
      slot.job = slot.resolve = slot.reject = null;
      if (m.ok) resolve?.(m.result);
      else reject?.(new Error(m.error));
      this.pump();
    });
    const die = (e: Error) => {
      if (slot.dead) return;
      slot.dead = true;
      const { job, resolve, reject } = slot;
      slot.job = slot.resolve = slot.reject = null;
      // The job goes back to the calling thread rather than being lost.
      if (job && resolve && reject) runJob(job).then(resolve, reject);
      else void e;
      if (this.size === 0) for (const q of this.queue.splice(0)) runJob(q.job).then(q.resolve, q.reject);
      this.pump();
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`extraction worker exited with code ${code}`)));
    this.slots.push(slot);
  }

  private pump(): void {
    for (const s of this.slots) {
      if (s.dead || s.job || !this.queue.length) continue;
      const q = this.queue.shift()!;
      s.job = q.job;
      s.resolve = q.resolve;
      s.reject = q.reject;
      s.worker.postMessage(q.job);
    }
  }

  run(job: Job): Promise<JobResult> {
    if (this.size === 0) return runJob(job);
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    const live = this.slots.filter((s) => !s.dead);
    for (const s of live) s.dead = true;
    await Promise.all(live.map((s) => s.worker.terminate()));
  }
}
