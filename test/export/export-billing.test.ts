// The export carries what a response was billed at beyond its tokens (the
// store's schema v11 columns): fast mode, web searches and advisor
// iterations, read back from the Parquet with DuckDB; and a roll-up reads
// files an older tx-usage wrote (without those columns) as null there.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBillingHome } from '../../fixtures/claude-code/billing.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { openRollup } from '../../src/export/rollup.js';
import { EXPORT_SCHEMA_VERSION } from '../../src/export/schema.js';

const NEW_COLUMNS = ['speed', 'web_search_requests', 'iteration'];

let base: string;
let out: string;
beforeAll(() => {
  base = tempDir('txu-export-billing-');
  const home = join(base, 'home');
  buildBillingHome(home);
  out = join(base, 'out');
  const r = runCli(['export', '--out', out, '--machine', 'm1', '--format', 'json'], cleanEnv(home));
  if (r.status !== 0) throw new Error(`export exited ${r.status}: ${r.stderr}`);
});

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

const ROWS_SQL = (from: string) => `
  SELECT model, speed, web_search_requests, iteration, requests, input_tokens::INTEGER AS input_tokens, output_tokens::INTEGER AS output_tokens, computed_cost_usd::DOUBLE AS cost
  FROM ${from} ORDER BY ts_ms, iteration NULLS FIRST, model, input_tokens`;

// What buildBillingHome wrote (fixtures/claude-code/billing.ts), response by
// response; the costs are test/claude-billing.test.ts's hand computations.
const EXPECTED = [
  // fast-mode session: Opus 4.6 fast (6× the standard rates), then the same tokens at standard speed
  {
    model: 'claude-opus-4-6',
    speed: 'fast',
    web_search_requests: null,
    iteration: null,
    requests: 1,
    input_tokens: 1000,
    output_tokens: 2000,
    cost: 0.37875,
  },
  {
    model: 'claude-opus-4-6',
    speed: null,
    web_search_requests: null,
    iteration: null,
    requests: 1,
    input_tokens: 1000,
    output_tokens: 2000,
    cost: 0.063125,
  },
  {
    model: 'claude-opus-4-8',
    speed: 'fast',
    web_search_requests: null,
    iteration: null,
    requests: 1,
    input_tokens: 200,
    output_tokens: 1000,
    cost: 0.058,
  },
  // no fast-mode price known: unknown, not the standard rate
  {
    model: 'claude-opus-5-5',
    speed: 'fast',
    web_search_requests: null,
    iteration: null,
    requests: 1,
    input_tokens: 10,
    output_tokens: 100,
    cost: null,
  },
  // the advisor turn: main-model iterations 0 and 2 (one request), the advisor's iteration 1 (the /branch copy not again)
  {
    model: 'claude-sonnet-4-5',
    speed: null,
    web_search_requests: null,
    iteration: 0,
    requests: 1,
    input_tokens: 2,
    output_tokens: 100,
    cost: 0.054006,
  },
  {
    model: 'claude-opus-4-7',
    speed: null,
    web_search_requests: null,
    iteration: 1,
    requests: 1,
    input_tokens: 151000,
    output_tokens: 800,
    cost: 0.775,
  },
  {
    model: 'claude-sonnet-4-5',
    speed: null,
    web_search_requests: null,
    iteration: 2,
    requests: 0,
    input_tokens: 3,
    output_tokens: 400,
    cost: 0.055359,
  },
  {
    model: 'claude-sonnet-4-5',
    speed: null,
    web_search_requests: null,
    iteration: null,
    requests: 1,
    input_tokens: 5000,
    output_tokens: 2000,
    cost: 0.264,
  },
  // three web searches, $0.01 each on top of the tokens
  {
    model: 'claude-sonnet-4-6',
    speed: null,
    web_search_requests: 3,
    iteration: null,
    requests: 1,
    input_tokens: 100,
    output_tokens: 200,
    cost: 0.0333,
  },
];

describe('export: billing beyond tokens', () => {
  it('the events carry speed, web_search_requests and iteration, response by response', async () => {
    const rows = await query(ROWS_SQL(`read_parquet('${out}/month=*/part-*.parquet')`));
    expect(rows).toEqual(EXPECTED);
    // Additive: the schema version is unchanged, the new columns come last (then the grain, added after them).
    const cols = await query(
      `SELECT name FROM parquet_schema('${out}/month=2026-10/part-*.parquet') WHERE name <> 'duckdb_schema'`,
    );
    expect(cols.slice(-4).map((c) => c.name)).toEqual([...NEW_COLUMNS, 'grain']);
    const versions = await query(`SELECT DISTINCT schema_version FROM read_parquet('${out}/month=*/part-*.parquet')`);
    expect(versions).toEqual([{ schema_version: EXPORT_SCHEMA_VERSION }]);
  });

  it('a roll-up over them keeps the values in its billed_events', async () => {
    expect(await rolledUp([out])).toEqual(EXPECTED);
  });

  it('files an older tx-usage wrote (without the columns) still roll up, the columns null there; mixed with newer files too', async () => {
    // October's events as an older export wrote them: no billing columns; machine "m0".
    const month = 'month=2026-10';
    const src = join(
      out,
      month,
      readdirSync(join(out, month)).find((f) => f.endsWith('.parquet'))!,
    );
    const old = join(base, 'old');
    mkdirSync(join(old, month), { recursive: true });
    const oldFile = join(old, month, 'part-m0-0123456789abcdef.parquet');
    await query(
      `COPY (SELECT * EXCLUDE (${NEW_COLUMNS.join(', ')}) REPLACE ('m0' AS machine) FROM read_parquet('${src}')) TO '${oldFile}' (FORMAT parquet)`,
    );
    expect((await query(`SELECT name FROM parquet_schema('${oldFile}')`)).map((c) => c.name)).not.toContain('speed');

    const october = (e: (typeof EXPECTED)[number]) =>
      ['claude-opus-5-5', 'claude-sonnet-4-5', 'claude-opus-4-7', 'claude-sonnet-4-6'].includes(e.model);
    const nulled = (e: (typeof EXPECTED)[number]) => ({
      ...e,
      speed: null,
      web_search_requests: null,
      iteration: null,
    });
    // Old files alone: every figure, the billing columns null.
    expect(sorted(await rolledUp([old]))).toEqual(sorted(EXPECTED.filter(october).map(nulled)));
    // Every report reads them as before: the same rows as over the new files of that month.
    const nobody = cleanEnv(join(base, 'nobody'));
    const args = ['--since', '2026-10-01', '--until', '2026-10-31', '--by', 'model', '--sort', 'name'];
    const oldReport = reportJson([...args, '--from', old], nobody);
    expect(oldReport.rows.length).toBe(4);
    expect(oldReport.rows).toEqual(reportJson([...args, '--from', join(out, month)], nobody).rows);
    // Old and new together: October's responses once each, under the first machine by name (m0: null there), the other months' values kept.
    expect(sorted(await rolledUp([old, out]))).toEqual(sorted(EXPECTED.map((e) => (october(e) ? nulled(e) : e))));
  });
});

/** billed_events of a roll-up over `from`, in ROWS_SQL's shape. */
async function rolledUp(from: string[]): Promise<unknown[]> {
  const r = await openRollup(from);
  try {
    return (
      await r.conn.runAndReadAll(
        ROWS_SQL('billed_events').replace('computed_cost_usd::DOUBLE', 'computed_cost_e10 / 1e10'),
      )
    ).getRowObjectsJson();
  } finally {
    r.close();
  }
}

/** Rows in an order that does not depend on the columns under test. */
const sorted = (rows: any[]) =>
  [...rows].sort((a, b) => `${a.model} ${a.input_tokens}`.localeCompare(`${b.model} ${b.input_tokens}`));
