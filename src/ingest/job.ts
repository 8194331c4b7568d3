// One unit of extraction work: a source, how to read it (whole or resumed),
// and what comes back. The same function runs in a worker thread or, for
// small amounts of work, in the calling thread. The harness is looked up in
// the registry by id, so nothing here knows any format.
import type { HarnessId } from '../core/types.js';
import { harnessById } from '../harnesses/registry.js';
import type { ResumePoint, SourceRef } from '../harnesses/types.js';
import { lastSplitStats, readCounter } from '../io/jsonl.js';
import { collectSource, type Collected } from './collect.js';
import { tailHash } from './discover.js';

export interface Job {
  id: number;
  harness: HarnessId;
  source: SourceRef;
  resume: ResumePoint | null;
  /** ExtractOptions.prior: a `json` source's state from its last read. */
  prior?: unknown;
  tmpDir: string;
  knownProjects: ReadonlySet<string>;
}

export interface JobResult {
  id: number;
  collected: Collected;
  /** Hash of the bytes before the new resume point (plain JSONL only). */
  tailHash: string | null;
  /** Transcript bytes this job read (exact when jobs of one thread run one at a time). */
  bytesRead: number;
  /** Most bytes the line splitter held at once for one unfinished line (plain JSONL). */
  peakHeldBytes: number;
}

export async function runJob(job: Job): Promise<JobResult> {
  const harness = harnessById(job.harness);
  if (!harness) throw new Error(`no harness ${job.harness} in the registry`);
  const before = readCounter.bytes;
  lastSplitStats.peakHeldBytes = 0;
  const collected = await collectSource(harness, job.source, {
    resume: job.resume,
    prior: job.prior,
    tmpDir: job.tmpDir,
    knownProjects: job.knownProjects,
  });
  const rp = collected.resume;
  const th = rp && job.source.kind === 'jsonl' ? tailHash(job.source.path, rp.offset) : null;
  return {
    id: job.id,
    collected,
    tailHash: th,
    bytesRead: readCounter.bytes - before,
    peakHeldBytes: lastSplitStats.peakHeldBytes,
  };
}
