// A store created by openStore starts with the meta rows it was given (the
// pricing fingerprint: the rows an ingest then writes are priced by that
// pricer, so nothing needs re-pricing); a store that already exists keeps its
// own, or rows priced under older prices would never be re-priced.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../src/store/store.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { lockStore } from '../src/store/lock.js';
import { DuckDBInstance } from '../src/store/duckdb.js';
import { NotAStoreError } from '../src/store/errors.js';
import { tempDir } from './helpers/cli.js';

async function metaOf(path: string, createdMeta: Record<string, string>): Promise<Record<string, string>> {
  const store = await openStore(path, { createdMeta });
  try {
    const r = await store.conn.runAndReadAll('SELECT key, value FROM meta ORDER BY key');
    return Object.fromEntries((r.getRowObjectsJson() as { key: string; value: string }[]).map((x) => [x.key, x.value]));
  } finally {
    await store.close();
  }
}

describe('openStore', () => {
  it('gives a store it creates the meta rows asked for, and never an existing one', async () => {
    const path = join(tempDir('txu-open-'), 'usage.duckdb');
    expect(await metaOf(path, { pricing_fingerprint: 'A' })).toEqual({ app: 'tx-usage', pricing_fingerprint: 'A', schema_version: String(SCHEMA_VERSION) });
    expect(await metaOf(path, { pricing_fingerprint: 'B' })).toEqual({ app: 'tx-usage', pricing_fingerprint: 'A', schema_version: String(SCHEMA_VERSION) });
    const bare = join(tempDir('txu-open-'), 'usage.duckdb');
    expect(await metaOf(bare, {})).toEqual({ app: 'tx-usage', schema_version: String(SCHEMA_VERSION) });
  });

  it('removes what runs of earlier builds, killed while making the store beside PATH, left there, and only that', async () => {
    const dir = tempDir('txu-open-');
    const path = join(dir, 'usage.duckdb');
    // Left by runs killed while making the store (pid-named), and a file that only looks alike.
    writeFileSync(join(dir, 'usage.duckdb.creating-4242'), 'half-made');
    writeFileSync(join(dir, 'usage.duckdb.creating-4242.wal'), 'half-made');
    writeFileSync(join(dir, 'usage.duckdb.creating-notes'), 'a file of the user\'s');
    expect(await metaOf(path, {})).toEqual({ app: 'tx-usage', schema_version: String(SCHEMA_VERSION) });
    // (The new store's WAL may stay until a later checkpoint.)
    expect(readdirSync(dir).filter((n) => n !== 'usage.duckdb.wal').sort()).toEqual(['usage.duckdb', 'usage.duckdb.creating-notes', 'usage.duckdb.lock']);
  });

  // A run killed after DuckDB created the file but before the lock recorded
  // it (the window the lock's 'new' record closes): the next run must take
  // the file as its own, not refuse it as another program's.
  it('takes as its own a store file a run killed while making it left, empty or half-written', async () => {
    const dir = tempDir('txu-open-');
    const path = join(dir, 'usage.duckdb');
    const killedWhileMaking = async (make: () => Promise<void>) => {
      const lock = await lockStore(path, 'exclusive');
      lock.expectNew();
      await make();
      lock.release(); // the kill: nothing after this ran
    };
    // DuckDB made the file; the schema's transaction never committed.
    await killedWhileMaking(async () => {
      const inst = await DuckDBInstance.create(path);
      inst.closeSync();
    });
    expect(await metaOf(path, {})).toEqual({ app: 'tx-usage', schema_version: String(SCHEMA_VERSION) });

    // Killed before DuckDB wrote a readable file: moved aside (never deleted), a new store made.
    const other = join(tempDir('txu-open-'), 'usage.duckdb');
    const lock = await lockStore(other, 'exclusive');
    lock.expectNew();
    writeFileSync(other, 'torn');
    lock.release();
    const store = await openStore(other, {});
    try {
      expect(store.notice).toMatch(/half-made by an interrupted run; moved aside to .*broken-/);
    } finally {
      await store.close();
    }
    const aside = readdirSync(join(other, '..')).filter((n) => n.includes('.broken-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(other, '..', aside[0]!), 'utf8')).toBe('torn');
  });

  it('without the record of a store being made, an empty DuckDB file at PATH is left alone as another program\'s', async () => {
    const path = join(tempDir('txu-open-'), 'usage.duckdb');
    const inst = await DuckDBInstance.create(path);
    inst.closeSync();
    const before = statSync(path);
    await expect(openStore(path, {})).rejects.toBeInstanceOf(NotAStoreError);
    expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
  });
});
