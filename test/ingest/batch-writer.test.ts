// How an ingest's batches reach the store (src/store/write.ts BatchWriter)
// and how the store settles (src/store/store.ts): several batches in one
// transaction, committed together; a failed batch takes the uncommitted
// ones with it and nothing committed before; the checkpoint runs while the
// caller reads, and close() waits for it. Real DuckDB files throughout.
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { BatchWriter, committedWrites, storeIdentity, storeWideRows } from '../../src/store/write.js';
import { sourceWrite } from '../helpers/source-write.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('txu-writer-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cost = () => 7n;

async function counts(store: Store): Promise<{ events: number; sources: number }> {
  const r = await store.conn.runAndReadAll(
    `SELECT (SELECT count(*) FROM usage_events)::INTEGER AS events, (SELECT count(*) FROM sources)::INTEGER AS sources`,
  );
  return r.getRowObjectsJson()[0] as { events: number; sources: number };
}

/** The counts a fresh open of the file sees: what reached the disk. */
async function countsReopened(path: string): Promise<{ events: number; sources: number }> {
  const store = await openStore(path);
  try {
    return await counts(store);
  } finally {
    await store.close();
  }
}

describe('BatchWriter', () => {
  it('puts batches into one transaction, read by its connection at once, committed together: one generation per commit', async () => {
    const path = join(dir, 'one.duckdb');
    const store = await openStore(path);
    try {
      const before = await storeIdentity(store.conn);
      const writes0 = committedWrites.count;
      const w = new BatchWriter(store.conn, cost);
      await w.write([sourceWrite('a', 3), sourceWrite('b', 2)]);
      await w.write([sourceWrite('c', 4)]);
      // The writer's connection reads its own rows before the commit.
      expect(await counts(store)).toEqual({ events: 9, sources: 3 });
      expect(committedWrites.count).toBe(writes0);
      await w.commit();
      expect(committedWrites.count).toBe(writes0 + 1);
      const after = await storeIdentity(store.conn);
      expect(after.generation).toBe(before.generation + 1);
      expect(after.storeId).not.toBeNull();
      // Costs come from the cost function, per event.
      const c = await store.conn.runAndReadAll(`SELECT sum(computed_cost_e10)::BIGINT AS c FROM usage_events`);
      expect(Number((c.getRowObjectsJson()[0] as { c: string }).c)).toBe(9 * 7);
      await w.commit(); // nothing open: nothing happens
      expect(committedWrites.count).toBe(writes0 + 1);
    } finally {
      await store.close();
    }
    // Committed means on disk: a fresh open sees everything.
    expect(await countsReopened(path)).toEqual({ events: 9, sources: 3 });
  });

  it('commits on its own once the transaction has been open commitEveryMs, and at commit()', async () => {
    const store = await openStore(join(dir, 'every.duckdb'));
    // The writer's clock (performance.now) is the test's: how long the
    // transaction has been open is set here, not by how long each write
    // happens to take on a loaded machine.
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const writes0 = committedWrites.count;
      const w = new BatchWriter(store.conn, cost, 30);
      await w.write([sourceWrite('a', 2)]);
      expect(committedWrites.count).toBe(writes0);
      vi.advanceTimersByTime(29);
      await w.write([sourceWrite('b', 2)]); // open 29 ms: not yet
      expect(committedWrites.count).toBe(writes0);
      vi.advanceTimersByTime(1);
      await w.write([sourceWrite('c', 2)]); // open 30 ms: committed after this batch, with it
      expect(committedWrites.count).toBe(writes0 + 1);
      expect(await counts(store)).toEqual({ events: 6, sources: 3 });
      vi.advanceTimersByTime(1000);
      await w.write([sourceWrite('d', 2)]); // a new transaction: the time before it opened does not count
      expect(committedWrites.count).toBe(writes0 + 1);
      await w.commit();
      expect(committedWrites.count).toBe(writes0 + 2);
      expect(await counts(store)).toEqual({ events: 8, sources: 4 });
    } finally {
      vi.useRealTimers();
      await store.close();
    }
  });

  it('a failed batch rolls back the open transaction, never what was committed before', async () => {
    const store = await openStore(join(dir, 'fail.duckdb'));
    try {
      const w = new BatchWriter(store.conn, cost);
      await w.write([sourceWrite('a', 2)]);
      await w.commit();
      await w.write([sourceWrite('b', 3)]);
      // session_id is NOT NULL in the store: this batch cannot be written.
      await expect(w.write([sourceWrite('c', 1, 10, null)])).rejects.toThrow();
      expect(await counts(store)).toEqual({ events: 2, sources: 1 });
      // The writer starts a new transaction after the failure.
      await w.write([sourceWrite('d', 1)]);
      await w.commit();
      expect(await counts(store)).toEqual({ events: 3, sources: 2 });
    } finally {
      await store.close();
    }
  });
});

describe('usage_events over usage_rows and event_attrs', () => {
  it('gives every response its own strings when a source mixes sessions, projects, models and NULLs', async () => {
    const store = await openStore(join(dir, 'combos.duckdb'));
    try {
      const w = new BatchWriter(store.conn, cost);
      // One database-like source: 40 responses cycling through 5 combinations
      // (two sessions, a NULL project, a NULL model, a provider), out of order.
      const a = sourceWrite('db', 40);
      const combos = [
        { session_id: 's1', project: '/p', model: 'claude-sonnet-4-5', provider: null },
        { session_id: 's2', project: '/p', model: 'claude-sonnet-4-5', provider: null },
        { session_id: 's1', project: null, model: 'claude-sonnet-4-5', provider: null },
        { session_id: 's2', project: '/q', model: null, provider: null },
        { session_id: 's1', project: '/p', model: 'claude-sonnet-4-5', provider: 'anthropic' },
      ];
      a.collected.events.forEach((e, i) => Object.assign(e, combos[(i * 7) % 5]!));
      const b = sourceWrite('other', 3);
      await w.write([a, b]);
      // The same combination written again later (an append of the same source) gets a new id of its own.
      const again = sourceWrite('db', 2);
      again.mode = 'append';
      again.fresh = false;
      again.collected.events.forEach((e, i) => Object.assign(e, combos[i]!, { dedupe_key: `db:more${i}` }));
      await w.write([again]);
      await w.commit();
      const got = (
        await store.conn.runAndReadAll(
          `SELECT dedupe_key, source_key, session_id, project, model, provider FROM usage_events ORDER BY dedupe_key`,
        )
      ).getRowObjectsJson();
      const want = [...a.collected.events, ...b.collected.events, ...again.collected.events]
        .map((e) => ({
          dedupe_key: e.dedupe_key,
          source_key: e.source_file,
          session_id: e.session_id,
          project: e.project,
          model: e.model,
          provider: e.provider,
        }))
        .sort((x, y) => (x.dedupe_key < y.dedupe_key ? -1 : 1));
      expect(got).toEqual(want);
      // One row per combination and write: 5 + 1 for the first write, 2 for the append.
      const attrs = (
        await store.conn.runAndReadAll(
          `SELECT count(*)::INTEGER AS n, count(DISTINCT attr_id)::INTEGER AS ids FROM event_attrs`,
        )
      ).getRowObjectsJson()[0];
      expect(attrs).toEqual({ n: 8, ids: 8 });
    } finally {
      await store.close();
    }
  });
});

describe('storeWideRows', () => {
  it("adds rows in usage_events' layout, a second time with the same strings too", async () => {
    const store = await openStore(':memory:');
    try {
      const wide = (first: number) => `
        SELECT 'src-' || (i % 2), 'claude-code', 's' || (i % 3), CASE WHEN i % 4 = 0 THEN NULL ELSE '/p' END, 'm', NULL,
               1764000000000 + i, 'k' || i, 0, 1, i, 0, 0, NULL, NULL, 1, 0, NULL, NULL, 'file-' || (i % 2), i
        FROM range(${first}, ${first + 12}) t(i)`;
      await storeWideRows(store.conn, wide(0));
      await storeWideRows(store.conn, wide(12)); // the same combinations again: joined to the new ids only
      const got = (
        await store.conn.runAndReadAll(
          `SELECT dedupe_key, source_key, session_id, project, input_tokens::INTEGER AS n FROM usage_events ORDER BY input_tokens`,
        )
      ).getRowObjectsJson();
      expect(got).toEqual(
        Array.from({ length: 24 }, (_, i) => ({
          dedupe_key: `k${i}`,
          source_key: `src-${i % 2}`,
          session_id: `s${i % 3}`,
          project: i % 4 === 0 ? null : '/p',
          n: i,
        })),
      );
    } finally {
      await store.close();
    }
  });
});

describe('Store.settle', () => {
  it('checkpoints while the caller reads; close() waits for it and the WAL is folded into the store', async () => {
    const path = join(dir, 'settle.duckdb');
    const store = await openStore(path);
    const w = new BatchWriter(store.conn, cost);
    // ~40 000 events: a WAL well past the size at which settle() checkpoints (1 MB).
    for (let i = 0; i < 20; i++) await w.write([sourceWrite(`f${i}`, 2000, i + 1)]);
    await w.commit();
    const wal = `${path}.wal`;
    expect(statSync(wal).size).toBeGreaterThan(1 << 20);
    store.settle();
    // Reads go on meanwhile and see everything.
    const r = await store.conn.runAndReadAll(
      `SELECT count(*)::INTEGER AS n, sum(input_tokens)::BIGINT AS t FROM usage_events`,
    );
    expect(r.getRowObjectsJson()[0]).toEqual({ n: 40_000, t: String(2000 * ((20 * 21) / 2)) });
    await store.close();
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
    expect(await countsReopened(path)).toEqual({ events: 40_000, sources: 20 });
  });

  it('does nothing for a small WAL (left for the next open to replay)', async () => {
    const path = join(dir, 'small.duckdb');
    const store = await openStore(path);
    const w = new BatchWriter(store.conn, cost);
    await w.write([sourceWrite('a', 5)]);
    await w.commit();
    const wal = `${path}.wal`;
    const size = statSync(wal).size;
    expect(size).toBeGreaterThan(0);
    store.settle();
    await store.close();
    expect(statSync(wal).size).toBe(size);
    expect(await countsReopened(path)).toEqual({ events: 5, sources: 1 });
  });
});
