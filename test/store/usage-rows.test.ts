// usage_rows written as data chunks (store/usage-rows.ts): every value comes
// back exactly as given — NULLs where given, 64-bit values past 2^53 and
// negative ones, rows on both sides of a chunk boundary — and a value that
// does not fit its column is refused instead of being stored wrong.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { UsageRowWriter, USAGE_ROW_COLUMNS, type UsageRowEvent } from '../../src/store/usage-rows.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('txu-rows-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  attr_id: number;
  event: UsageRowEvent;
  recorded: bigint | null;
  computed: bigint | null;
}

/** Row i of a deterministic set: NULLs in each nullable column on its own period, large and negative values here and there. */
function rowOf(i: number): Row {
  const big = 2n ** 62n + BigInt(i); // past Number's exact range
  return {
    attr_id: (i % 5) + 1,
    event: {
      ts: 1_764_000_000_000 + i * 977 + 0.4, // rounded to the millisecond
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
      source_line: i % 8 === 0 ? null : i + 1,
      // Cursor's request units (fractional), stored in millionths; null for every other source.
      request_units: i % 3 === 1 ? null : i % 3 === 2 ? 17.3 + i : i / 4,
      // Web searches billed with the response, and the sampling iteration a row holds (schema v11).
      web_search_requests: i % 4 === 0 ? null : i % 4,
      iteration: i % 5 === 0 ? i % 3 : null,
    },
    recorded: i % 4 === 0 ? null : i % 13 === 0 ? -big : BigInt(i) * 10_000_000_000n,
    computed: i % 6 === 0 ? null : i % 10 === 0 ? big : BigInt(-i * 3),
  };
}

/** The row as usage_rows' columns, as text (NULL as null). */
function columnsOf(r: Row): Record<string, string | null> {
  const t = (v: number | bigint | string | null) => (v === null ? null : String(v));
  const e = r.event;
  return {
    attr_id: t(r.attr_id),
    ts_ms: t(Math.round(e.ts)),
    dedupe_key: e.dedupe_key,
    dedupe_rank: t(e.dedupe_rank),
    requests: t(e.requests),
    input_tokens: t(e.input_tokens),
    cache_read_tokens: t(e.cache_read_tokens),
    cache_write_tokens: t(e.cache_write_tokens),
    cache_write_5m_tokens: t(e.cache_write_5m_tokens),
    cache_write_1h_tokens: t(e.cache_write_1h_tokens),
    output_tokens: t(e.output_tokens),
    reasoning_tokens: t(e.reasoning_tokens),
    recorded_cost_e10: t(r.recorded),
    computed_cost_e10: t(r.computed),
    source_line: t(e.source_line),
    billed: 'true', // written as its key's winner (store/billed.ts corrects keys with several rows)
    request_units_e6: t(e.request_units == null ? null : Math.round(e.request_units * 1e6)),
    web_search_requests: t(e.web_search_requests ?? null),
    iteration: t(e.iteration ?? null),
  };
}

const add = (w: UsageRowWriter, r: Row) => w.add(r.attr_id, r.event, r.recorded, r.computed);

describe('UsageRowWriter', () => {
  it('stores every value exactly, across chunks and NULLs', async () => {
    const store = await openStore(join(dir, 'rows.duckdb'));
    try {
      const n = 2048 * 2 + 301;
      await store.conn.run('BEGIN TRANSACTION');
      const app = await store.conn.createAppender('usage_rows');
      const w = new UsageRowWriter(app);
      for (let i = 0; i < n; i++) add(w, rowOf(i));
      w.close();
      app.closeSync();
      await store.conn.run('COMMIT');

      const cols = USAGE_ROW_COLUMNS.map((c) => `${c}::VARCHAR AS ${c}`).join(', ');
      const got = (
        await store.conn.runAndReadAll(`SELECT ${cols} FROM usage_rows ORDER BY ts_ms`)
      ).getRowObjectsJson() as Record<string, string | null>[];
      expect(got.length).toBe(n);
      expect(Object.keys(columnsOf(rowOf(0)))).toEqual(USAGE_ROW_COLUMNS);
      for (let i = 0; i < n; i++) {
        const want = columnsOf(rowOf(i));
        for (const c of USAGE_ROW_COLUMNS) expect([i, c, got[i]![c]]).toEqual([i, c, want[c]]);
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
      const r = rowOf(1);
      const bad =
        (e: Partial<UsageRowEvent>, computed = r.computed) =>
        () =>
          w.add(r.attr_id, { ...r.event, ...e }, r.recorded, computed);
      expect(bad({ input_tokens: 1.5 })).toThrow(RangeError);
      expect(bad({ output_tokens: 2 ** 53 + 2 })).toThrow(RangeError);
      expect(bad({ requests: 2 ** 31 })).toThrow(RangeError);
      expect(bad({}, 2n ** 63n)).toThrow(RangeError);
      expect(bad({ input_tokens: null as unknown as number })).toThrow();
      // Refused after a NULL was marked: the slot is used again by the next row, which must not inherit it.
      expect(bad({ cache_write_5m_tokens: null, cache_write_1h_tokens: null, output_tokens: 2 ** 53 + 2 })).toThrow(
        RangeError,
      );
      expect(r.event.cache_write_5m_tokens).not.toBeNull();
      add(w, r);
      w.close();
      app.closeSync();
      const cols = USAGE_ROW_COLUMNS.map((c) => `${c}::VARCHAR AS ${c}`).join(', ');
      const got = (await store.conn.runAndReadAll(`SELECT ${cols} FROM usage_rows`)).getRowObjectsJson();
      expect(got).toEqual([columnsOf(r)]);
    } finally {
      await store.close();
    }
  });
});
