// The billed_events view (store migration v2) must keep exactly the rows of
// the reference rule (v1's single window): per (harness, dedupe key), the
// largest usage, then the lowest rank, then source order. Audit style: rows
// in, the difference with the reference out, which must be empty.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { storeWideRows } from '../../src/store/write.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('txu-billed-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REFERENCE = `
  SELECT * FROM usage_events
  QUALIFY row_number() OVER (
    PARTITION BY harness, dedupe_key
    ORDER BY input_tokens + cache_read_tokens + cache_write_tokens + output_tokens DESC,
             dedupe_rank, source_file, source_line
  ) = 1`;

describe('billed_events', () => {
  it('keeps the same rows as the single-window rule, duplicates of every kind included', async () => {
    const store = await openStore(join(dir, 's.duckdb'));
    try {
      // 3000 rows over 1200 keys in two harnesses: unique keys, split lines
      // (growing usage), copies with a higher rank, ties broken by file and line,
      // the same key in two harnesses (not duplicates of each other).
      await storeWideRows(
        store.conn,
        `
        SELECT 'src-' || (i % 7), CASE WHEN i % 5 = 0 THEN 'codex' ELSE 'claude-code' END, 's' || (i % 40), NULL, 'm', NULL,
               1764000000000 + i, 'k' || (hash(i) % 1200), (i % 3 = 0)::INTEGER, 1,
               (hash(i * 7) % 4)::BIGINT, 0, 0, NULL, NULL, (hash(i * 13) % 3)::BIGINT, 0, NULL, i, 'file-' || (i % 11), i % 17
        FROM range(3000) t(i)`,
      );
      const count = async (sql: string) => Number((await store.conn.runAndReadAll(sql)).getRowObjectsJson()[0]!.n);
      const dupKeys = await count(
        `SELECT count(*) AS n FROM (SELECT harness, dedupe_key FROM usage_events GROUP BY ALL HAVING count(*) > 1)`,
      );
      expect(dupKeys).toBeGreaterThan(500);
      expect(await count(`SELECT count(*) AS n FROM billed_events`)).toBe(
        await count(`SELECT count(*) AS n FROM (${REFERENCE})`),
      );
      expect(
        await count(
          `SELECT count(*) AS n FROM ((SELECT * FROM billed_events EXCEPT ALL ${REFERENCE}) UNION ALL (${REFERENCE} EXCEPT ALL SELECT * FROM billed_events))`,
        ),
      ).toBe(0);
      // same columns, same order, as usage_events (reports select * from it)
      const cols = async (rel: string) =>
        (await store.conn.runAndReadAll(`SELECT * FROM ${rel} LIMIT 0`)).columnNames();
      expect(await cols('billed_events')).toEqual(await cols('usage_events'));
    } finally {
      store.close();
    }
  });
});

describe('billed marks maintained at write time', () => {
  it('equals the rule over usage_events after every commit: new, rewritten, appended, shrunk and retained sources, repricing', async () => {
    const { BatchWriter, markRetained } = await import('../../src/store/write.js');
    const { BILLED_AUDIT } = await import('../../src/store/billed.js');
    const { sourceWrite } = await import('../helpers/source-write.js');
    const { prng } = await import('../../fixtures/demo.js');
    const rnd = prng(29);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const store = await openStore(join(dir, 'maintained.duckdb'));
    try {
      const audit = async () => (await store.conn.runAndReadAll(BILLED_AUDIT)).getRowObjectsJson();
      const one = async (sql: string) =>
        Number(Object.values((await store.conn.runAndReadAll(sql)).getRowObjectsJson()[0]!)[0]);
      /** A source's write whose responses share keys with other sources' (a pool of 30 keys in two harnesses). */
      const write = (name: string, n: number, mode: 'full' | 'append', fresh: boolean, lineFrom = 1) => {
        const w = sourceWrite(name, n);
        w.mode = mode;
        w.fresh = fresh;
        w.collected.events = w.collected.events.map((e, i) => ({
          ...e,
          harness: rnd() < 0.3 ? 'codex' : 'claude-code',
          dedupe_key: `k${Math.floor(rnd() * 30)}`,
          dedupe_rank: rnd() < 0.3 ? 1 : 0,
          input_tokens: Math.floor(rnd() * 5),
          output_tokens: Math.floor(rnd() * 3),
          source_line: lineFrom + i,
        }));
        return w;
      };
      const known = new Map<string, number>(); // source -> lines written
      const w = new BatchWriter(store.conn, () => 5n);
      let commits = 0;
      let checked = 0;
      for (let round = 0; round < 40; round++) {
        const batch: ReturnType<typeof write>[] = [];
        for (let k = 0; k < 1 + Math.floor(rnd() * 3); k++) {
          const op = known.size < 3 ? 'new' : pick(['new', 'rewrite', 'rewrite', 'append', 'shrink']);
          const name = op === 'new' ? `src${round}-${k}` : pick([...known.keys()]);
          if (batch.some((b) => b.book.source_key === `/h/${name}.jsonl`)) continue;
          if (op === 'new') {
            const n = 1 + Math.floor(rnd() * 12);
            batch.push(write(name, n, 'full', true));
            known.set(name, n);
          } else if (op === 'append') {
            const n = 1 + Math.floor(rnd() * 4);
            batch.push(write(name, n, 'append', false, known.get(name)! + 1));
            known.set(name, known.get(name)! + n);
          } else {
            // Rewritten (other responses), or cut back to fewer lines (e.g. a rewind): its old rows replaced.
            const n = op === 'shrink' ? Math.floor(rnd() * 3) : 1 + Math.floor(rnd() * 10);
            batch.push(write(name, n, 'full', false));
            known.set(name, n);
          }
        }
        await w.write(batch);
        if (rnd() < 0.4) {
          await w.commit();
          commits++;
          expect(await audit(), `round ${round}`).toEqual([]);
          checked++;
        }
        if (rnd() < 0.15) {
          // Files gone: rows kept (no change to the marks, and none needed).
          await w.commit();
          await markRetained(store.conn, [`/h/${pick([...known.keys()])}.jsonl`], []);
          expect(await audit()).toEqual([]);
        }
      }
      await w.commit();
      expect(await audit()).toEqual([]);
      const keys = await one(`SELECT count(*) FROM (SELECT DISTINCT harness, dedupe_key FROM usage_events)`);
      expect(await one(`SELECT count(*) FROM billed_events`)).toBe(keys);
      // plenty of duplicates
      expect(
        await one(
          `SELECT count(*) FROM (SELECT harness, dedupe_key FROM usage_events GROUP BY ALL HAVING count(*) > 1)`,
        ),
      ).toBeGreaterThan(10);
      expect(commits).toBeGreaterThan(5);
      expect(checked).toBeGreaterThan(5);
      // Costs changed everywhere (re-pricing): the marks do not depend on them.
      await store.conn.run(`UPDATE usage_rows SET computed_cost_e10 = computed_cost_e10 * 3 + dedupe_rank`);
      expect(await audit()).toEqual([]);
      // A wrong mark is caught.
      await store.conn.run(
        `UPDATE usage_rows SET billed = NOT billed WHERE rowid = (SELECT min(rowid) FROM usage_rows)`,
      );
      expect((await audit()).length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});

describe('marks and session facts settled once per ingest (issue 37)', () => {
  it('a deferring writer leaves its work pending, committed with its rows; settlePending (and the next ingest of the CLI) settles it', async () => {
    const { BatchWriter, settlePending } = await import('../../src/store/write.js');
    const { BILLED_AUDIT, KEPT_AUDIT } = await import('../../src/store/billed.js');
    const { SESSION_STATS_AUDIT } = await import('../../src/store/session-stats.js');
    const { sourceWrite } = await import('../helpers/source-write.js');
    const { cleanEnv, runCli } = await import('../helpers/cli.js');
    const { prng } = await import('../../fixtures/demo.js');
    const rnd = prng(37);
    const path = join(dir, 'deferred.duckdb');
    /** Responses and units sharing keys across sources, in a few sessions with two models. */
    const write = (name: string, n: number, fresh: boolean) => {
      const w = sourceWrite(name, n);
      w.fresh = fresh;
      w.collected.events = w.collected.events.map((e, i) => ({
        ...e,
        session_id: `s${Math.floor(rnd() * 4)}`,
        model: rnd() < 0.5 ? 'm-a' : 'm-b',
        dedupe_key: `k${Math.floor(rnd() * 20)}`,
        dedupe_rank: rnd() < 0.3 ? 1 : 0,
        input_tokens: Math.floor(rnd() * 50),
        source_line: i + 1,
      }));
      for (let i = 0; i < n; i++) {
        w.collected.units.push({
          harness: 'claude-code',
          session_id: `s${Math.floor(rnd() * 4)}`,
          kind: rnd() < 0.5 ? 'prompt' : 'tool_call',
          dedupe_key: `u${Math.floor(rnd() * 15)}`,
          dedupe_rank: rnd() < 0.3 ? 1 : 0,
          ts: 1_764_000_000_000 + i,
          count: 1 + Math.floor(rnd() * 3),
        });
      }
      return w;
    };
    const audits = async (conn: import('@duckdb/node-api').DuckDBConnection) => {
      const n = async (sql: string) =>
        (await conn.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM (${sql})`)).getRowObjectsJson()[0]!.n;
      return { billed: await n(BILLED_AUDIT), kept: await n(KEPT_AUDIT), stats: await n(SESSION_STATS_AUDIT) };
    };
    const pending = async (conn: import('@duckdb/node-api').DuckDBConnection) =>
      (
        await conn.runAndReadAll(`SELECT (SELECT count(*) FROM meta WHERE key LIKE '%_pending_from')::INTEGER AS m, (SELECT count(*) FROM billed_pending)::INTEGER AS b,
                                        (SELECT count(*) FROM kept_pending)::INTEGER AS k, (SELECT count(*) FROM sessions_pending)::INTEGER AS s`)
      ).getRowObjectsJson()[0];
    let store = await openStore(path);
    try {
      const w = new BatchWriter(store.conn, () => 5n, 0, true);
      await w.write([write('a', 12, true), write('b', 9, true)]);
      await w.commit();
      await w.write([write('c', 10, true), write('a', 7, false)]); // a rewritten: its old rows' keys are pending
      await w.commit();
      // Committed, not settled: duplicates are all still marked, no session has facts yet.
      expect(await audits(store.conn)).not.toEqual({ billed: 0, kept: 0, stats: 0 });
      expect(await pending(store.conn)).toMatchObject({ m: 2 });
      expect((await pending(store.conn))!.b).toBeGreaterThan(0);
    } finally {
      await store.close(); // as a run killed after those commits leaves the store
    }
    store = await openStore(path);
    try {
      expect(await pending(store.conn)).toMatchObject({ m: 2 });
      await settlePending(store.conn);
      expect(await audits(store.conn)).toEqual({ billed: 0, kept: 0, stats: 0 });
      expect(await pending(store.conn)).toEqual({ m: 0, b: 0, k: 0, s: 0 });
      // Pending again, then left for the CLI: its ingest (nothing to read in an empty home) settles it before any report.
      const w = new BatchWriter(store.conn, () => 5n, 0, true);
      await w.write([write('d', 11, true), write('b', 4, false)]);
      await w.commit();
      expect(await audits(store.conn)).not.toEqual({ billed: 0, kept: 0, stats: 0 });
    } finally {
      await store.close();
    }
    const home = tempDir('txu-settle-home-');
    try {
      const env = cleanEnv(home);
      const r = runCli(
        [
          'sql',
          `SELECT (SELECT count(*) FROM (${BILLED_AUDIT})) AS billed, (SELECT count(*) FROM (${KEPT_AUDIT})) AS kept, (SELECT count(*) FROM (${SESSION_STATS_AUDIT})) AS stats, (SELECT count(*) FROM sessions_pending) AS pending`,
          '--format',
          'json',
          '--db',
          path,
        ],
        env,
      );
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([{ billed: 0, kept: 0, stats: 0, pending: 0 }]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
