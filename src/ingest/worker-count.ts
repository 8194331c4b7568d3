// How many threads a run extracts in: TX_USAGE_WORKERS when set (1 = the
// calling thread alone; N > 1 = N - 1 worker threads and the calling thread,
// see pool.ts), else the caller's figure, else one per core and at most four.
// One rule for the ingest and the early start (which must agree on whether
// workers will run).
import { availableParallelism } from 'node:os';

const MAX_WORKERS = 4;

export function workersWanted(env: NodeJS.ProcessEnv, concurrency?: number): number {
  const v = Number(env.TX_USAGE_WORKERS ?? process.env.TX_USAGE_WORKERS);
  if (Number.isInteger(v) && v >= 1) return v;
  return Math.max(1, concurrency ?? Math.min(MAX_WORKERS, availableParallelism()));
}
