// A store created by openStore starts with the meta rows it was given (the
// pricing fingerprint: the rows an ingest then writes are priced by that
// pricer, so nothing needs re-pricing); a store that already exists keeps its
// own, or rows priced under older prices would never be re-priced.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import { tempDir } from '../helpers/cli.js';

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
    expect(await metaOf(path, { pricing_fingerprint: 'A' })).toEqual({
      app: 'tx-usage',
      pricing_fingerprint: 'A',
      schema_version: String(SCHEMA_VERSION),
    });
    expect(await metaOf(path, { pricing_fingerprint: 'B' })).toEqual({
      app: 'tx-usage',
      pricing_fingerprint: 'A',
      schema_version: String(SCHEMA_VERSION),
    });
    const bare = join(tempDir('txu-open-'), 'usage.duckdb');
    expect(await metaOf(bare, {})).toEqual({ app: 'tx-usage', schema_version: String(SCHEMA_VERSION) });
  });

  it('makes a new store beside PATH and renames it into place: what a killed run left half-made is removed, and only that', async () => {
    const dir = tempDir('txu-open-');
    const path = join(dir, 'usage.duckdb');
    // Left by runs killed while making the store (pid-named), and a file that only looks alike.
    writeFileSync(join(dir, 'usage.duckdb.creating-4242'), 'half-made');
    writeFileSync(join(dir, 'usage.duckdb.creating-4242.wal'), 'half-made');
    writeFileSync(join(dir, 'usage.duckdb.creating-notes'), "a file of the user's");
    expect(await metaOf(path, {})).toEqual({ app: 'tx-usage', schema_version: String(SCHEMA_VERSION) });
    expect(readdirSync(dir).sort()).toEqual(['usage.duckdb', 'usage.duckdb.creating-notes', 'usage.duckdb.lock']);
  });
});
