// The delta base's tables may be made ahead, while the ingest's commit runs
// (DeltaBaseKeeper.prepare, src/ingest/delta-base.ts): the base written must
// still describe every write noted, including writes noted after prepare()
// (a later ingest phase).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UsageEvent } from '../src/core/types.js';
import { DeltaBaseKeeper } from '../src/ingest/delta-base.js';
import { hasKey, keyHash, readBase } from '../src/ingest/delta-state.js';
import type { SourceWrite } from '../src/store/write.js';
import { openStore } from '../src/store/store.js';
import { tempDir } from './helpers/cli.js';

function write(key: string, dedupeKeys: string[]): SourceWrite {
  const events = dedupeKeys.map(
    (k, i): UsageEvent => ({
      harness: 'claude-code',
      session_id: 's',
      project: '/w',
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
      ts: Date.UTC(2026, 10, 1) + i,
      dedupe_key: k,
      dedupe_rank: 0,
      requests: 1,
      input_tokens: 1,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cache_write_5m_tokens: null,
      cache_write_1h_tokens: null,
      output_tokens: 1,
      reasoning_tokens: 0,
      recorded_cost_usd: null,
      source_file: key,
      source_line: i + 1,
    }),
  );
  return {
    collected: { source: { harness: 'claude-code', key, path: key, kind: 'jsonl' }, events, estimates: [], contexts: [], warnings: [], tailWarnings: [], skips: [], counts: {}, resume: { offset: 10, lines: 1 }, failed: false },
    book: { source_key: key, harness: 'claude-code', path: key, kind: 'jsonl', fingerprint: `fp-${key}`, size: 10, ino: '1', resume_offset: 10, resume_lines: 1, resume_state: null, tail_hash: 'h' },
    mode: 'full',
  };
}

describe('delta base made ahead', () => {
  it('describes the writes noted after prepare(), not only those before', async () => {
    const dir = tempDir('txu-dbprep-');
    const dbPath = join(dir, 'usage.duckdb');
    const store = await openStore(dbPath);
    try {
      await store.conn.run(`INSERT INTO meta VALUES ('store_id', 'test-store')`);
      const keeper = new DeltaBaseKeeper(store.conn, { dbPath, prices: () => null });
      await keeper.start(new Map()); // an empty store
      keeper.noted(write('/a.jsonl', ['msg:a1', 'msg:a2']));
      keeper.prepare();
      // A later phase writes more, and is made ahead again; then one more write.
      keeper.noted(write('/b.jsonl', ['msg:b1']));
      keeper.prepare();
      keeper.noted(write('/c.jsonl', ['msg:c1']));
      const keep = await keeper.finish({ digest: 'd', shape: () => 's', keys: ['/a.jsonl', '/b.jsonl', '/c.jsonl'] }, new Map());
      expect(keep).not.toBeNull();
      keep!();
      const base = readBase(dbPath)!;
      expect(base.storeId).toBe('test-store');
      for (const k of ['msg:a1', 'msg:a2', 'msg:b1', 'msg:c1']) expect(hasKey(base.keys, keyHash('claude-code', k)), k).toBe(true);
      const books = base.books.raw();
      expect([...books.keys()].sort()).toEqual(['/a.jsonl', '/b.jsonl', '/c.jsonl']);
      expect(hasKey(base.keys, keyHash('claude-code', 'msg:never'))).toBe(false);
    } finally {
      await store.close();
    }
  });
});
