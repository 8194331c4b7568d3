// Extracting a phase's plans: results of sources already being read early
// (early.ts) are taken as full reads; the rest is read by the pool (workers
// with this thread helping, pool.ts) when there is enough of it, else here.
// Results are handed to `take` one at a time, in the order they come.
import { mark } from '../core/trace.js';
import { withMeta } from './discovery-record.js';
import type { EarlyRun } from './early.js';
import { runJob, type Job, type JobResult } from './job.js';
import type { Plan } from './plan.js';
import { ExtractPool, workersAvailable } from './pool.js';
import { workersWanted } from './worker-count.js';

/** Below this much to read, starting worker threads costs more than it saves. */
const PARALLEL_MIN_BYTES = 8 << 20;

export interface RunJobsContext {
  env: NodeJS.ProcessEnv;
  concurrency?: number;
  tmpDir: string;
  early: EarlyRun | null;
  /** The pool, once one runs (the early run's, or one started here): kept for later phases. */
  pool: ExtractPool | null;
  nextJobId: () => number;
  stats: { earlyUsed: number; workers: number };
}

/** The job that reads `p` (its resume point for an append; a whole document's prior state). */
export function jobOf(p: Plan, ctx: Pick<RunJobsContext, 'tmpDir' | 'nextJobId'>, knownProjects: ReadonlySet<string>): Job {
  return {
    id: ctx.nextJobId(),
    harness: p.harness.id,
    source: withMeta(p.src),
    resume:
      p.mode === 'append' && p.prev
        ? { offset: p.prev.resume_offset!, lines: p.prev.resume_lines ?? 0, state: p.prev.resume_state ? JSON.parse(p.prev.resume_state) : undefined }
        : null,
    // A whole document rewritten on every save is read in full, with what its last read remembered.
    prior: p.src.kind === 'json' && p.prev?.resume_state ? JSON.parse(p.prev.resume_state) : undefined,
    tmpDir: ctx.tmpDir,
    knownProjects,
  };
}

/** The plans the early run is already reading, taken out of `plans` (as full reads); the early run lets go of the others. */
function takeEarly(plans: Plan[], ctx: RunJobsContext): { plan: Plan; result: Promise<JobResult>; id: number }[] {
  const early = ctx.early;
  if (!early) return [];
  const out: { plan: Plan; result: Promise<JobResult>; id: number }[] = [];
  for (let i = plans.length - 1; i >= 0; i--) {
    const e = early.jobs.get(plans[i]!.src.key);
    if (!e) continue;
    out.push({ plan: { ...plans[i]!, mode: 'full' }, result: e.result, id: e.job.id });
    ctx.stats.earlyUsed++;
    early.jobs.delete(plans[i]!.src.key);
    plans.splice(i, 1);
  }
  // The rest were read for nothing (the store has them unchanged): let them go.
  for (const e of early.jobs.values()) early.release(e.job.id);
  return out;
}

/**
 * Reads every plan and hands each result to `take` (one call at a time, the
 * next after the previous has settled). `onPool` is told of the pool when
 * one runs, before its first result.
 */
export async function runPlans(plans: Plan[], knownProjects: ReadonlySet<string>, ctx: RunJobsContext, take: (p: Plan, r: JobResult) => Promise<void>, onPool: (pool: ExtractPool) => void): Promise<void> {
  const fromEarly = takeEarly(plans, ctx);
  const bytes = plans.reduce((n, p) => n + p.bytes, 0);
  const want = workersWanted(ctx.env, ctx.concurrency);
  if (!ctx.pool && want > 1 && plans.length > 1 && bytes >= PARALLEL_MIN_BYTES && workersAvailable()) {
    ctx.pool = new ExtractPool(Math.min(want, plans.length));
    ctx.stats.workers = ctx.pool.size;
  }
  const pool = ctx.pool;
  if (pool) onPool(pool);
  // Largest first, so one big file does not start last and run alone.
  plans.sort((a, b) => b.bytes - a.bytes);
  // One result is taken at a time, early ones and the others alike.
  let taking: Promise<void> = Promise.resolve();
  const takeOne = (p: Plan, r: JobResult) => (taking = taking.then(() => take(p, r)));
  // An early read that failed (its worker died...) is simply done again here.
  // (Each early result is let go once taken: nothing here holds it after.)
  const earlyTaken = Promise.all(
    fromEarly.map(({ plan, result, id }) =>
      result
        .catch(() => runJob(jobOf(plan, ctx, knownProjects)))
        .then((r) => takeOne(plan, r))
        .finally(() => ctx.early?.release(id)),
    ),
  );
  fromEarly.length = 0;
  if (pool && plans.length > 1) {
    const jobs = plans.map((p) => jobOf(p, ctx, knownProjects));
    const byId = new Map(jobs.map((j, i) => [j.id, plans[i]!]));
    await pool.runAll(jobs, (r) => {
      const p = byId.get(r.id)!;
      byId.delete(r.id);
      return takeOne(p, r);
    });
  } else {
    for (const p of plans) await takeOne(p, await runJob(jobOf(p, ctx, knownProjects)));
  }
  await earlyTaken;
  await taking;
  mark('ingest: phase extracted');
}
