// SIGKILL `tx-usage ingest` at random (seeded) points, sometimes twice in a
// row (killing the run that recovers from the first kill): the next complete
// run must report exactly what an uninterrupted run reports, and what the
// builders wrote. Ingest commits each batch together with its bookkeeping, so
// a kill can only lose a whole uncommitted batch, which the next run redoes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, pickMetrics } from '../../fixtures/all-harnesses.js';
import { buildBulkHome, type BulkHome } from '../../fixtures/bulk-home.js';
import { prng } from '../../fixtures/demo.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { cleanEnv, CLI, tempDir } from '../helpers/cli.js';

const ROUNDS = 24;
const SEED = 20261202;
const REPORT = ['report', ...ALL_RANGE, '--by', 'harness,model,day', '--format', 'json'];

let fx: BulkHome;
let work: string;
let tmp: string;

beforeAll(() => {
  fx = buildBulkHome(tempDir('txu-kill-'));
  fx.close(); // plain database files: the fault is the kill, not a live writer
  work = tempDir('txu-kill-work-');
  tmp = join(work, 'tmp');
  mkdirSync(tmp);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const envFor = () => cleanEnv(fx.home, { XDG_CACHE_HOME: join(work, 'cache'), TMPDIR: tmp });

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
): { status: number | null; stdout: string; stderr: string; ms: number } {
  const t = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t };
}

/** Starts `ingest` and SIGKILLs it after `delayMs`; says whether it was still running when killed, and how long it ran. */
function killedIngest(db: string, delayMs: number): Promise<{ outcome: 'killed' | 'finished'; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, 'ingest', '--db', db], { env: envFor(), stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const outcome =
        signal === 'SIGKILL'
          ? 'killed'
          : code === 0
            ? 'finished'
            : (() => {
                throw new Error(`ingest exited ${code}`);
              })();
      resolve({ outcome, ms: Date.now() - started });
    });
  });
}

/** How many sources the interrupted store holds bookkeeping for (null: no store file yet; -1: not openable read-only). */
async function sourcesBooked(db: string): Promise<number | null> {
  if (!existsSync(db)) return null;
  try {
    const inst = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
    const conn = await inst.connect();
    try {
      const t = await conn.runAndReadAll(
        `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'sources'`,
      );
      if (Number(t.getRowObjectsJson()[0]!.n) === 0) return 0;
      return Number((await conn.runAndReadAll('SELECT count(*)::INTEGER AS n FROM sources')).getRowObjectsJson()[0]!.n);
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
  } catch {
    return -1;
  }
}

describe('SIGKILL during ingest', () => {
  it(`${ROUNDS} seeded kills: the next run's report equals an uninterrupted run's, exactly`, async () => {
    // The uninterrupted reference, in its own store.
    const refDb = join(work, 'reference.duckdb');
    const first = run(['ingest', '--db', refDb], envFor());
    expect(first.status, first.stderr).toBe(0);
    const total = Number(/^(\d+) sources/.exec(first.stdout)?.[1]);
    expect(total).toBeGreaterThan(1000); // several write batches
    const ref = run([...REPORT, '--db', refDb], envFor());
    expect(ref.status, ref.stderr).toBe(0);
    const refJson = JSON.parse(ref.stdout);
    expect(pickMetrics(refJson.totals)).toEqual(fx.total);
    // Kill delays are fractions of an uninterrupted run's time. The machine's
    // speed changes while the test runs (other work on it): a run that
    // finishes before its kill makes that the new estimate, and rounds go on
    // (up to twice as many) until half the planned number of kills landed.
    let fullMs = first.ms;

    const rnd = prng(SEED);
    const outcomes = {
      killed: 0,
      finished: 0,
      noStore: 0,
      emptyStore: 0,
      partial: 0,
      complete: 0,
      unopenable: 0,
      doubleKills: 0,
    };
    for (let round = 0; round < ROUNDS || (outcomes.killed < ROUNDS / 2 && round < 2 * ROUNDS); round++) {
      const db = join(work, `round-${round}.duckdb`);
      const delay = Math.round(fullMs * (0.1 + 0.95 * rnd()));
      const o = await killedIngest(db, delay);
      outcomes[o.outcome]++;
      if (o.outcome === 'finished') fullMs = Math.min(fullMs, o.ms);
      const booked = await sourcesBooked(db);
      if (booked === null) outcomes.noStore++;
      else if (booked === -1) outcomes.unopenable++;
      else if (booked === 0) outcomes.emptyStore++;
      else if (booked < total) outcomes.partial++;
      else outcomes.complete++;
      // Every other round, kill the recovering run too.
      if (round % 2 === 1) {
        const o2 = await killedIngest(db, Math.round(fullMs * (0.1 + 0.9 * rnd())));
        if (o2.outcome === 'killed') outcomes.doubleKills++;
      }
      const next = run([...REPORT, '--db', db], envFor());
      expect(next.status, `round ${round} (kill at ${delay} ms): ${next.stderr}`).toBe(0);
      expect(next.stderr).not.toMatch(/\n\s+at /);
      const j = JSON.parse(next.stdout);
      expect(j.rows, `round ${round}, killed at ${delay} ms`).toEqual(refJson.rows);
      expect(j.totals).toEqual(refJson.totals);
      rmSync(db, { force: true });
      rmSync(db + '.wal', { force: true });
    }
    // The kills must have landed mid-ingest often enough for the test to mean something.
    expect(outcomes.killed).toBeGreaterThanOrEqual(ROUNDS / 2);
    expect(outcomes.partial + outcomes.emptyStore + outcomes.unopenable).toBeGreaterThan(0);
    // Killed runs cannot clean up their work dir (it may hold private copies of user databases).
    const leftovers = readdirSync(tmp, { recursive: true, encoding: 'utf8' }).filter((n) =>
      /(^|\/)tx-usage-\d+$/.test(n),
    ).length;
    const leftoverFiles = readdirSync(tmp, { recursive: true, encoding: 'utf8' }).filter((n) =>
      /\.db(-wal|-journal)?$/.test(n),
    ).length;
    console.log(
      `faults: ${outcomes.killed + outcomes.finished} SIGKILLs (seed ${SEED}, uninterrupted ingest ${first.ms} ms, ${fullMs} ms at the end, ${total} sources): ${outcomes.killed} killed mid-run, ${outcomes.finished} finished first; ` +
        `store after the kill: ${outcomes.noStore} none yet, ${outcomes.emptyStore} empty, ${outcomes.partial} partial, ${outcomes.complete} complete, ${outcomes.unopenable} needing recovery; ` +
        `${outcomes.doubleKills} recovering runs killed again; every next run exact. ${leftovers} work dirs (${leftoverFiles} database copies) left in TMPDIR by killed runs`,
    );
  }, 900_000);
});
