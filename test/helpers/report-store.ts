// A small in-memory store with known rows, for the report template tests.
// Rows are written as SQL literals from the test's own values (never from
// tx-usage code), so what a template returns can be checked against them.
import { labelLocalRows } from '../../src/export/local.js';
import { ensureUnitMacros } from '../../src/report/unit-macros.js';
import { openStore, type Store } from '../../src/store/store.js';
import { storeWideRows } from '../../src/store/write.js';

export interface TestEvent {
  harness: string;
  session: string;
  project?: string | null;
  model?: string | null;
  provider?: string | null;
  ts: string; // ISO
  key: string;
  rank?: number;
  requests?: number;
  input?: number;
  cache_read?: number;
  cache_write?: number;
  cache_write_5m?: number | null;
  cache_write_1h?: number | null;
  output?: number;
  reasoning?: number;
  recorded_e10?: number | null;
  computed_e10?: number | null;
  file?: string;
}

export interface TestContext {
  harness: string;
  session: string;
  project?: string | null;
  model?: string | null;
  turns: number;
  latest?: number | null;
  max?: number | null;
  peak?: number | null;
  first?: string | null;
  last?: string | null;
}

const lit = (v: string | number | null | undefined): string =>
  v === null || v === undefined ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`;

export async function memoryStore(events: TestEvent[], contexts: TestContext[] = []): Promise<Store> {
  const store = await openStore(':memory:');
  // Rows in usage_events' layout, stored the way the store keeps them (event_attrs + usage_rows).
  const TYPES = [
    'VARCHAR',
    'VARCHAR',
    'VARCHAR',
    'VARCHAR',
    'VARCHAR',
    'VARCHAR',
    'BIGINT',
    'VARCHAR',
    'INTEGER',
    'INTEGER',
    'BIGINT',
    'BIGINT',
    'BIGINT',
    'BIGINT',
    'BIGINT',
    'BIGINT',
    'BIGINT',
    'BIGINT',
    'BIGINT',
    'VARCHAR',
    'INTEGER',
  ];
  const tuples = events.map(
    (e) =>
      `(${[
        lit(`src:${e.file ?? e.session}`),
        lit(e.harness),
        lit(e.session),
        lit(e.project ?? null),
        lit(e.model ?? null),
        lit(e.provider ?? null),
        lit(Date.parse(e.ts)),
        lit(e.key),
        lit(e.rank ?? 0),
        lit(e.requests ?? 1),
        lit(e.input ?? 0),
        lit(e.cache_read ?? 0),
        lit(e.cache_write ?? 0),
        lit(e.cache_write_5m ?? null),
        lit(e.cache_write_1h ?? null),
        lit(e.output ?? 0),
        lit(e.reasoning ?? 0),
        lit(e.recorded_e10 ?? null),
        lit(e.computed_e10 ?? null),
        lit(e.file ?? `/fixture/${e.session}.jsonl`),
        lit(1),
      ]
        .map((v, i) => `CAST(${v} AS ${TYPES[i]})`)
        .join(', ')})`,
  );
  if (tuples.length) await storeWideRows(store.conn, `VALUES ${tuples.join(',\n')}`);
  for (const c of contexts) {
    await store.conn.run(
      `INSERT INTO context_rows (source_key, harness, session, project, model, turns, latest_used_tokens, max_tokens, peak_used_tokens,
        first_ts_ms, last_ts_ms) VALUES (${[
          lit(`src:${c.session}`),
          lit(c.harness),
          lit(c.session),
          lit(c.project ?? null),
          lit(c.model ?? null),
          lit(c.turns),
          lit(c.latest ?? null),
          lit(c.max ?? null),
          lit(c.peak ?? null),
          lit(c.first ? Date.parse(c.first) : null),
          lit(c.last ? Date.parse(c.last) : null),
        ].join(', ')})`,
    );
  }
  // As the CLI does: the rows get this machine's name (templates may read it).
  await labelLocalRows(store.conn, 'test-machine');
  await ensureUnitMacros(store.conn); // templates that read units of work (unit-macros.ts)
  return store;
}

export const ALL_HARNESSES = ['claude-code', 'codex', 'cursor-agent', 'opencode', 'pi'];
