// The extraction pool (src/ingest/pool.ts, compiled: it starts dist's
// worker bundle): two batches given to one pool at once — the early
// extraction's and the ingest's own — must each get exactly their own
// results, the second after the first; the jobs are shared between the
// workers, each run once.
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { tempDir } from '../helpers/cli.js';

type Pool = {
  runAll(
    jobs: { length: number; at(i: number): unknown },
    onResult: (r: { id: number; collected: { events: unknown[] } }) => Promise<void>,
  ): Promise<void>;
  close(): Promise<void>;
  size: number;
  ranHere: number;
  nearEnd: boolean;
  onNearEnd: (() => void) | null;
};

const poolClass = async () =>
  ((await import(resolve(__dirname, '../../dist/src/ingest/pool.js'))) as { ExtractPool: new (n: number) => Pool })
    .ExtractPool;

/** Jobs over `n` Claude Code transcripts in a fresh home: job i (from 1) reads a file of i responses. */
function claudeJobs(n: number) {
  const home = tempDir('txu-pool-');
  const claude = new ClaudeHome(join(home, '.claude'));
  return Array.from({ length: n }, (_, i) => {
    const s = claude.session({ cwd: `/w/p${i}` });
    for (let k = 0; k <= i; k++)
      s.response({ ts: new Date(Date.UTC(2026, 5, 1, 8, k)).toISOString(), usage: { input: 1, output: 10 } });
    return {
      id: i + 1,
      harness: 'claude-code',
      source: { harness: 'claude-code', key: s.file, path: s.file, kind: 'jsonl' },
      resume: null,
      tmpDir: home,
      knownProjects: new Set(),
    };
  });
}

describe('ExtractPool', () => {
  it('says once per batch when fewer than 64 of its jobs are left to claim, not before', async () => {
    const ExtractPool = await poolClass();
    const files = claudeJobs(12);
    const jobsOf = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ ...files[(from + i) % 12]!, id: 1 + from + i }));
    const pool = new ExtractPool(2);
    try {
      const seen: { results: number; near: boolean }[] = [];
      let calls = 0;
      let resultsAtCall = -1;
      pool.onNearEnd = () => {
        calls++;
        resultsAtCall = seen.length;
      };
      await pool.runAll(jobsOf(0, 600), async () => void seen.push({ results: seen.length, near: pool.nearEnd }));
      expect(seen).toHaveLength(600);
      expect(calls).toBe(1);
      // The first results came while far more than 64 jobs were left to claim.
      expect(seen[0]!.near).toBe(false);
      expect(resultsAtCall).toBeGreaterThan(0);
      expect(resultsAtCall).toBeLessThan(600);
      // The last ones once near the end.
      expect(seen[599]!.near).toBe(true);
      // A batch of fewer jobs than that is near its end from the start.
      const before = calls;
      await pool.runAll(jobsOf(600, 20), async () => void seen.push({ results: seen.length, near: pool.nearEnd }));
      expect(calls).toBe(before + 1);
      expect(seen).toHaveLength(620);
    } finally {
      await pool.close();
    }
  });

  it('a batch given while another runs waits for it, and each gets its own results', async () => {
    const ExtractPool = await poolClass();
    const jobs = claudeJobs(10);
    const pool = new ExtractPool(3);
    expect(pool.size).toBe(2); // three threads: two workers, and this one writing
    try {
      const got: { batch: number; id: number; events: number }[] = [];
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      // The first batch holds its first result until the second batch has been given.
      const first = pool.runAll(jobs.slice(0, 6), async (r) => {
        got.push({ batch: 1, id: r.id, events: r.collected.events.length });
        await gate;
      });
      const second = pool.runAll(
        jobs.slice(6),
        async (r) => void got.push({ batch: 2, id: r.id, events: r.collected.events.length }),
      );
      setTimeout(open, 100);
      const timeout = new Promise((_, reject) =>
        setTimeout(() => reject(new Error('the batches never finished')), 20_000),
      );
      await Promise.race([Promise.all([first, second]), timeout]);
      expect(
        got
          .filter((g) => g.batch === 1)
          .map((g) => g.id)
          .sort((a, b) => a - b),
      ).toEqual([1, 2, 3, 4, 5, 6]);
      expect(
        got
          .filter((g) => g.batch === 2)
          .map((g) => g.id)
          .sort((a, b) => a - b),
      ).toEqual([7, 8, 9, 10]);
      // Every result is its own job's: job i has i responses.
      for (const g of got) expect(g.events).toBe(g.id);
      // The workers ran every job: this thread runs only those a dead worker had taken.
      expect(pool.ranHere).toBe(0);
      // The second batch's results all came after the first batch's.
      const lastFirst = got.map((g) => g.batch).lastIndexOf(1);
      expect(got.slice(0, lastFirst + 1).every((g) => g.batch === 1)).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('gives the workers of an idle pool their jobs before runAll returns, not when the caller next yields', async () => {
    const ExtractPool = await poolClass();
    const jobs = claudeJobs(4);
    const pool = new ExtractPool(2);
    // What the pool posts to its worker, seen as it is posted.
    const worker = (pool as unknown as { slots: { worker: { postMessage: (m: unknown) => void } }[] }).slots[0]!.worker;
    const posted: unknown[] = [];
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (m: unknown) => {
      posted.push(m);
      post(m);
    };
    try {
      const ids: number[] = [];
      const first = pool.runAll(jobs.slice(0, 2), async (r) => void ids.push(r.id));
      expect(posted.length).toBe(1); // synchronously: the caller has not yielded yet
      // A batch given while one runs still waits for it.
      const second = pool.runAll(jobs.slice(2), async (r) => void ids.push(r.id));
      expect(posted.length).toBe(1);
      await first;
      await second;
      expect(posted.length).toBe(2);
      expect(ids.sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
      // Idle again: the next batch goes at once too.
      const third = pool.runAll(jobs.slice(0, 1), async () => undefined);
      expect(posted.length).toBe(3);
      await third;
    } finally {
      await pool.close();
    }
  });

  it('sends a worker its jobs a chunk at a time, each made when first asked for; every job runs once, with its own result', async () => {
    const ExtractPool = await poolClass();
    // 1 300 jobs over 13 files (job i reads file i % 13, which has 1 + i % 13 responses).
    const files = claudeJobs(13);
    const n = 1300;
    const made = new Set<number>();
    let madeTwice = 0;
    const jobs = {
      length: n,
      at(i: number) {
        if (made.has(i)) madeTwice++;
        made.add(i);
        return { ...files[i % 13]!, id: 1 + i };
      },
    };
    const pool = new ExtractPool(3);
    const worker = (pool as unknown as { slots: { worker: { postMessage: (m: unknown) => void } }[] }).slots[0]!.worker;
    const sent: number[] = [];
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (m: unknown) => {
      sent.push((m as { jobs: unknown[] }).jobs.length);
      post(m);
    };
    try {
      const got = new Map<number, number>();
      await pool.runAll(jobs, async (r) => {
        expect(got.has(r.id)).toBe(false);
        got.set(r.id, r.collected.events.length);
      });
      expect(got.size).toBe(n);
      for (const [id, events] of got) expect(events).toBe(1 + ((id - 1) % 13));
      // The first message carried one chunk, not the batch; more came as asked for.
      expect(sent[0]).toBeLessThan(n);
      expect(sent.length).toBeGreaterThan(1);
      expect(made.size).toBe(n);
    } finally {
      await pool.close();
    }
  }, 60_000);
});
