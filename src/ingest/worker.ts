// Worker-thread entry: runs extraction jobs one at a time and posts results
// back (structured clone). Harness modules are loaded from the registry here.
import { parentPort } from 'node:worker_threads';
import { runJob, type Job } from './job.js';

const port = parentPort;
if (!port) throw new Error('src/ingest/worker.js must run as a worker thread');
port.on('message', (job: Job) => {
  runJob(job).then(
    (result) => port.postMessage({ ok: true, result }),
    (e: unknown) => port.postMessage({ ok: false, id: job.id, error: (e as Error)?.message ?? String(e) }),
  );
});
