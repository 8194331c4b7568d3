// Many small transcripts (issue 47): what the ingest's writing thread holds
// does not grow with the number of sources. Measured by the ingest's own
// counter (TX_USAGE_STATS peakHeldResults: sources' results taken from the
// extraction and not yet written), in the CLI's process, not by a timer or
// a peak RSS, which at a test's size is the heap's start-up reservation.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pickMetrics } from '../../fixtures/all-harnesses.js';
import { buildManyFiles } from '../../fixtures/many-files.js';
import { BATCH_SOURCES } from '../../src/ingest/phase-writer.js';
import { withIngestMemoryLimit } from '../../src/store/memory-limit.js';
import { openStore } from '../../src/store/store.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const FILES = 1500;

describe('a first ingest of many small files', () => {
  const home = tempDir('txu-many-');
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('holds a bounded number of results before writing them, and counts every response', () => {
    const built = buildManyFiles(home, FILES, 40);
    const statsFile = join(home, 'stats.json');
    const env = cleanEnv(home);
    const r = runCli(['ingest'], { ...env, TX_USAGE_STATS: statsFile });
    expect(r.status, r.stderr).toBe(0);
    const stats = JSON.parse(readFileSync(statsFile, 'utf8'));
    expect(stats.rewritten).toBe(FILES);
    // The batch being filled and the two being written, whatever the number of files.
    expect(stats.peakHeldResults).toBeGreaterThan(0);
    expect(stats.peakHeldResults).toBeLessThanOrEqual(3 * BATCH_SOURCES);
    expect(stats.peakHeldResults).toBeLessThan(FILES / 2);
    const got = reportJson(['--since', '2026-09-01', '--until', '2026-09-30'], env);
    expect(pickMetrics(got.totals)).toEqual(built.expected);
  }, 180_000);
});

describe("DuckDB's memory while an ingest writes", () => {
  it("is limited to 256 MB, and the command line's limit is back after, a failure included", async () => {
    const store = await openStore(':memory:');
    const limit = async () =>
      (await store.conn.runAndReadAll(`SELECT current_setting('memory_limit') AS m`)).getRowObjectsJson()[0]!.m;
    try {
      const before = await limit();
      expect(before).toMatch(/^48\d\.\d MiB$/); // 512 MB (store.ts CLI_DUCKDB)
      expect(await withIngestMemoryLimit(store.conn, limit)).toBe('244.1 MiB');
      expect(await limit()).toBe(before);
      await expect(withIngestMemoryLimit(store.conn, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      expect(await limit()).toBe(before);
    } finally {
      await store.close();
    }
  });
});
