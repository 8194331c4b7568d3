// One task at a time: what a long-running process (`serve`, `mcp`) runs
// against the store goes through one queue, so that two ingests, or an
// ingest and a report, never run at once in it (the store's lock would make
// the second wait on the first from the same process).

/** A queue: each call runs `task` after every task queued before it has settled. */
export function serial(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
