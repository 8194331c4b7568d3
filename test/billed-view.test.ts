// The billed_events view (store migration v2) must keep exactly the rows of
// the reference rule (v1's single window): per (harness, dedupe key), the
// largest usage, then the lowest rank, then source order. Audit style: rows
// in, the difference with the reference out, which must be empty.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/store.js';
import { storeWideRows } from '../src/store/write.js';

const dir = mkdtempSync(join(tmpdir(), 'txu-billed-'));
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
      await storeWideRows(store.conn, `
        SELECT 'src-' || (i % 7), CASE WHEN i % 5 = 0 THEN 'codex' ELSE 'claude-code' END, 's' || (i % 40), NULL, 'm', NULL,
               1764000000000 + i, 'k' || (hash(i) % 1200), (i % 3 = 0)::INTEGER, 1,
               (hash(i * 7) % 4)::BIGINT, 0, 0, NULL, NULL, (hash(i * 13) % 3)::BIGINT, 0, NULL, i, 'file-' || (i % 11), i % 17
        FROM range(3000) t(i)`);
      const count = async (sql: string) => Number((await store.conn.runAndReadAll(sql)).getRowObjectsJson()[0]!.n);
      const dupKeys = await count(`SELECT count(*) AS n FROM (SELECT harness, dedupe_key FROM usage_events GROUP BY ALL HAVING count(*) > 1)`);
      expect(dupKeys).toBeGreaterThan(500);
      expect(await count(`SELECT count(*) AS n FROM billed_events`)).toBe(await count(`SELECT count(*) AS n FROM (${REFERENCE})`));
      expect(await count(`SELECT count(*) AS n FROM ((SELECT * FROM billed_events EXCEPT ALL ${REFERENCE}) UNION ALL (${REFERENCE} EXCEPT ALL SELECT * FROM billed_events))`)).toBe(0);
      // same columns, same order, as usage_events (reports select * from it)
      const cols = async (rel: string) => (await store.conn.runAndReadAll(`SELECT * FROM ${rel} LIMIT 0`)).columnNames();
      expect(await cols('billed_events')).toEqual(await cols('usage_events'));

    } finally {
      store.close();
    }
  });
});
