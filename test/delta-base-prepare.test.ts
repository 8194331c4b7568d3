// The delta base's tables may be made ahead, while the ingest's commit runs
// (DeltaBaseKeeper.prepare, src/ingest/delta-base.ts): the base written must
// still describe every write noted, including writes noted after prepare()
// (a later ingest phase).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeltaBaseKeeper } from '../src/ingest/delta-base.js';
import { hasKey, keyHash, readBase } from '../src/ingest/delta-state.js';
import { openStore } from '../src/store/store.js';
import { tempDir } from './helpers/cli.js';
import { sourceWrite } from './helpers/source-write.js';

describe('delta base made ahead', () => {
  it('describes the writes noted after prepare(), not only those before', async () => {
    const dir = tempDir('txu-dbprep-');
    const dbPath = join(dir, 'usage.duckdb');
    const store = await openStore(dbPath);
    try {
      await store.conn.run(`INSERT INTO meta VALUES ('store_id', 'test-store')`);
      const keeper = new DeltaBaseKeeper(store.conn, { dbPath, prices: () => null });
      await keeper.start(new Map()); // an empty store
      keeper.noted(sourceWrite('a', 2));
      keeper.prepare();
      // A later phase writes more, and is made ahead again; then one more write.
      keeper.noted(sourceWrite('b', 1));
      keeper.prepare();
      keeper.noted(sourceWrite('c', 1));
      const keep = await keeper.finish({ digest: 'd', shape: () => 's', keys: ['/h/a.jsonl', '/h/b.jsonl', '/h/c.jsonl'] }, new Map());
      expect(keep).not.toBeNull();
      keep!();
      const base = readBase(dbPath)!;
      expect(base.storeId).toBe('test-store');
      for (const k of ['a:0', 'a:1', 'b:0', 'c:0']) expect(hasKey(base.keys, keyHash('claude-code', k)), k).toBe(true);
      const books = base.books.raw();
      expect([...books.keys()].sort()).toEqual(['/h/a.jsonl', '/h/b.jsonl', '/h/c.jsonl']);
      expect(hasKey(base.keys, keyHash('claude-code', 'msg:never'))).toBe(false);
    } finally {
      await store.close();
    }
  });
});
