// usage_rows written as data chunks (store/usage-rows.ts): every value comes
// back exactly as given — NULLs where given, 64-bit values past 2^53 and
// negative ones, rows on both sides of a chunk boundary — and a value that
// does not fit its column is refused instead of being stored wrong.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/store.js';
import { UsageRowWriter, USAGE_ROW_COLUMNS, type UsageRow } from '../src/store/usage-rows.js';

const dir = mkdtempSync(join(tmpdir(), 'txu-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Row i of a deterministic set: NULLs in each nullable column on its own period, large and negative values here and there. */
function rowOf(i: number): UsageRow {
  const big = 2n ** 62n + BigInt(i); // past Number's exact range
  return {
    attr_id: (i % 5) + 1,
    ts_ms: 1_764_000_000_000 + i * 977,
    dedupe_key: `msg:${i.toString(36)}${i % 3 === 0 ? '-é-日本' : ''}`,
    dedupe_rank: i % 2,
    requests: i % 11 === 0 ? 0 : 1,
    input_tokens: i * 13,
    cache_read_tokens: i % 7 === 0 ? 2 ** 53 - 1 - i : i * 1_000_003,
    cache_write_tokens: i % 4,
    cache_write_5m_tokens: i % 3 === 0 ? null : i,
    cache_write_1h_tokens: i % 5 === 0 ? null : 2 ** 40 + i,
    output_tokens: i * 7,
    reasoning_tokens: i % 9,
    recorded_cost_e10: i % 4 === 0 ? null : i % 13 === 0 ? -big : BigInt(i) * 10_000_000_000n,
    computed_cost_e10: i % 6 === 0 ? null : i % 10 === 0 ? big : BigInt(-i * 3),
    source_line: i % 8 === 0 ? null : i + 1,
  };
}

describe('UsageRowWriter', () => {
  it('stores every value exactly, across chunks and NULLs', async () => {
    const store = await openStore(join(dir, 'rows.duckdb'));
    try {
      const n = 2048 * 2 + 301;
      await store.conn.run('BEGIN TRANSACTION');
      const app = await store.conn.createAppender('usage_rows');
      const w = new UsageRowWriter(app);
      for (let i = 0; i < n; i++) w.add(rowOf(i));
      w.close();
      app.closeSync();
      await store.conn.run('COMMIT');
      expect(w.rows).toBe(n);

      const cols = USAGE_ROW_COLUMNS.map((c) => `${c}::VARCHAR AS ${c}`).join(', ');
      const got = (await store.conn.runAndReadAll(`SELECT ${cols} FROM usage_rows ORDER BY ts_ms`)).getRowObjectsJson() as Record<string, string | null>[];
      expect(got.length).toBe(n);
      const text = (v: unknown) => (v === null ? null : String(v));
      for (let i = 0; i < n; i++) {
        const want = rowOf(i);
        for (const c of USAGE_ROW_COLUMNS) expect([i, c, got[i]![c]]).toEqual([i, c, text(want[c as keyof UsageRow])]);
      }
    } finally {
      await store.close();
    }
  });

  it('refuses values its columns cannot hold', async () => {
    const store = await openStore(':memory:');
    try {
      const app = await store.conn.createAppender('usage_rows');
      const w = new UsageRowWriter(app);
      expect(() => w.add({ ...rowOf(1), input_tokens: 1.5 })).toThrow(RangeError);
      expect(() => w.add({ ...rowOf(1), output_tokens: 2 ** 53 + 2 })).toThrow(RangeError);
      expect(() => w.add({ ...rowOf(1), requests: 2 ** 31 })).toThrow(RangeError);
      expect(() => w.add({ ...rowOf(1), computed_cost_e10: 2n ** 63n })).toThrow(RangeError);
      expect(() => w.add({ ...rowOf(1), input_tokens: null as unknown as number })).toThrow();
    } finally {
      await store.close();
    }
  });
});
