// Extracting a phase's plans: results of sources already being read early
// (early.ts) are taken as full reads; the rest is read by the pool (workers
// with this thread helping, pool.ts) when there is enough of it, else here.
// Results are handed to `take` one at a time, in the order they come.
import { mark } from '../core/trace.js';
import { withMeta } from './discovery-record.js';
import type { EarlyRun } from './early.js';
import { runJob, type Job, type JobResult } from './job.js';
import type { Plan } from './plan.js';
import { ExtractPool, workersAvailable, type JobList } from './pool.js';
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
  /** The last job id given out (ids are unique within the run). */
  jobIds: { last: number };
  stats: { earlyUsed: number; workers: number };
}

/** The job that reads `p` (its resume point for an append; a whole document's prior state). */
export function jobOf(p: Plan, id: number, tmpDir: string, knownProjects: ReadonlySet<string>): Job {
  return {
    id,
    harness: p.harness.id,
    source: withMeta(p.src),
    resume:
      p.mode === 'append' && p.prev
        ? {
            offset: p.prev.resume_offset!,
            lines: p.prev.resume_lines ?? 0,
            state: p.prev.resume_state ? JSON.parse(p.prev.resume_state) : undefined,
          }
        : null,
    // A whole document rewritten on every save is read in full, with what its last read remembered.
    prior:
      (p.src.kind === 'json' || p.src.kind === 'sqlite') && p.prev?.resume_state
        ? JSON.parse(p.prev.resume_state)
        : undefined,
    tmpDir,
    knownProjects,
  };
}

/**
 * The plans' jobs, made when first asked for (pool.ts JobList) and let go
 * once their result is taken (taken()): job i has id `base + i`.
 */
function lazyJobs(
  plans: Plan[],
  ctx: RunJobsContext,
  knownProjects: ReadonlySet<string>,
): JobList & { base: number; taken(id: number): Plan } {
  const base = ctx.jobIds.last + 1;
  ctx.jobIds.last += plans.length;
  const made = new Map<number, Job>();
  return {
    base,
    length: plans.length,
    at(i) {
      let j = made.get(i);
      if (!j && i >= 0 && i < plans.length) made.set(i, (j = jobOf(plans[i]!, base + i, ctx.tmpDir, knownProjects)));
      return j;
    },
    taken(id) {
      made.delete(id - base);
      return plans[id - base]!;
    },
  };
}

/** A job of its own (ids after every one given out). */
function oneJob(p: Plan, ctx: RunJobsContext, knownProjects: ReadonlySet<string>): Job {
  return jobOf(p, ++ctx.jobIds.last, ctx.tmpDir, knownProjects);
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
export async function runPlans(
  plans: Plan[],
  knownProjects: ReadonlySet<string>,
  ctx: RunJobsContext,
  take: (p: Plan, r: JobResult) => Promise<void>,
  onPool: (pool: ExtractPool) => void,
): Promise<void> {
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
        .catch(() => runJob(oneJob(plan, ctx, knownProjects)))
        .then((r) => takeOne(plan, r))
        .finally(() => ctx.early?.release(id)),
    ),
  );
  fromEarly.length = 0;
  if (pool && plans.length > 1) {
    const jobs = lazyJobs(plans, ctx, knownProjects);
    await pool.runAll(jobs, (r) => takeOne(jobs.taken(r.id), r));
  } else {
    for (const p of plans) await takeOne(p, await runJob(oneJob(p, ctx, knownProjects)));
  }
  await earlyTaken;
  await taking;
  mark('ingest: phase extracted');
}
