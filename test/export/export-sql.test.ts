// The exported Parquet read with plain DuckDB SQL, no tx-usage code: the
// queries published in docs/team.md, run verbatim (only the folder path
// replaced) over three machines' exports with duplicates, must give what
// `tx-usage report --from` gives.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedLaptop } from '../../fixtures/team.js';
import { COLUMNS } from '../../src/export/schema.js';
import { buildTeamFixture, e10, exportJson, rollupReport, type Team } from '../helpers/export-helpers.js';

const DOC = readFileSync(resolve(__dirname, '../../docs/team.md'), 'utf8');
const RANGE = ['--since', '2026-09-01', '--until', '2026-11-30', '--tz', 'UTC'];

/** The ```sql block after `<!-- tested: NAME -->` in docs/team.md. */
function docQuery(name: string): string {
  const m = new RegExp(`<!-- tested: ${name} -->\\s*\`\`\`sql\\n([\\s\\S]*?)\`\`\``).exec(DOC);
  if (!m) throw new Error(`docs/team.md has no tested query ${name}`);
  return m[1]!;
}

/** DECIMAL as DuckDB prints it ("12.3400000000") to integer 1e-10 units. */
function decimalE10(s: string | null): bigint | null {
  if (s === null) return null;
  const neg = s.startsWith('-');
  const [i, f = ''] = s.replace('-', '').split('.');
  const v = BigInt(i!) * 10_000_000_000n + BigInt(f.padEnd(10, '0').slice(0, 10));
  return neg ? -v : v;
}

let team: Team;
let out: string;
let inst: DuckDBInstance;
let conn: DuckDBConnection;

async function run(name: string): Promise<Record<string, any>[]> {
  const sql = docQuery(name).split(`'exports/`).join(`'${out}/`);
  expect(sql).toContain(out);
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, any>[];
}

beforeAll(async () => {
  team = buildTeamFixture();
  out = join(team.base, 'exports');
  for (const m of team.machines) exportJson(m, out);
  // An overlapping export of alice in the same folder, and her new laptop
  // holding copies of her transcripts: the queries must count each response once.
  exportJson(team.machines[0]!, out, ['--since', '2026-10-15', '--until', '2026-11-30', '--tz', 'UTC']);
  exportJson(migratedLaptop(team.machines[0]!, team.base), out);
  inst = await DuckDBInstance.create(':memory:');
  conn = await inst.connect();
});

afterAll(() => {
  conn?.closeSync();
  inst?.closeSync();
});

const TOKENS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
];

describe('docs/team.md DuckDB queries over the exported Parquet', () => {
  it('the files do hold duplicates (else deduplication would be untested)', async () => {
    const r = (
      await conn.runAndReadAll(`
      SELECT count(*) AS n, count(DISTINCT (harness, dedupe_key)) AS distinct_n,
             count(DISTINCT (machine, harness, dedupe_key)) AS per_machine
      FROM read_parquet('${out}/month=*/part-*.parquet')`)
    ).getRowObjectsJson()[0] as any;
    // Copies within one machine (alice's two October files) and across machines (the laptop).
    expect(Number(r.n)).toBeGreaterThan(Number(r.per_machine));
    expect(Number(r.per_machine)).toBeGreaterThan(Number(r.distinct_n));
  });

  it('DIR/month=* is the events dataset alone: one schema, the side datasets only in _context/ and _estimates/', async () => {
    const schemas = async (glob: string) =>
      (
        await conn.runAndReadAll(`
        SELECT DISTINCT list(name ORDER BY name) AS cols
        FROM parquet_schema('${out}/${glob}') WHERE name <> 'duckdb_schema' GROUP BY file_name`)
      )
        .getRowObjectsJson()
        .map((x: any) => x.cols.join(','));
    const events = await schemas('month=*/part-*.parquet');
    expect(events).toEqual([
      COLUMNS.events
        .map((c) => c.name)
        .sort()
        .join(','),
    ]);
    expect(await schemas('_context/month=*/part-*.parquet')).toEqual([
      COLUMNS.context
        .map((c) => c.name)
        .sort()
        .join(','),
    ]);
    expect(await schemas('_estimates/month=*/part-*.parquet')).toEqual([
      COLUMNS.estimates
        .map((c) => c.name)
        .sort()
        .join(','),
    ]);
  });

  it('summary: per machine and model, and the totals, as tx-usage reports them', async () => {
    const doc = await run('duckdb-summary');
    const tx = rollupReport(team, [out], [...RANGE, '--by', 'machine,model']);
    const key = (r: any) => `${r.machine}\u0000${r.model}`;
    const docRows = new Map(doc.map((r) => [key(r), r]));
    expect(doc.length).toBeGreaterThan(4);
    for (const t of tx.rows) {
      const d = docRows.get(key(t));
      if (!d) {
        // Only Cursor chats are listed by tx-usage without being billed usage.
        expect(t.requests + t.total_tokens).toBe(0);
        expect(t.cost_usd).toBeNull();
        continue;
      }
      for (const f of TOKENS) expect(Number(d[f]), `${key(t)} ${f}`).toBe(t[f]);
      for (const f of ['cost_usd', 'computed_cost_usd', 'recorded_cost_usd'])
        expect(decimalE10(d[f]), `${key(t)} ${f}`).toBe(e10(t[f]));
      docRows.delete(key(t));
    }
    expect([...docRows.keys()]).toEqual([]);
    // The same totals.
    for (const f of TOKENS) expect(doc.reduce((n, r) => n + Number(r[f]), 0)).toBe(tx.totals[f]);
    expect(doc.reduce((n, r) => n + (decimalE10(r.cost_usd) ?? 0n), 0n)).toBe(e10(tx.totals.cost_usd));
    expect(tx.totals.cost_usd).toBeGreaterThan(0);
  });

  it('monthly: per machine and month, with the previous month and the change', async () => {
    const byMonthMachine = (a: any, b: any) =>
      String(a.month).localeCompare(String(b.month)) || String(a.machine).localeCompare(String(b.machine));
    const doc = (await run('duckdb-monthly')).sort(byMonthMachine);
    const tx = rollupReport(team, [out], ['monthly', ...RANGE, '--by', 'machine']);
    // Compared in one order (month, machine), whatever order each lists them in.
    const txRows = tx.months
      .flatMap((m: any) => m.by_machine.map((r: any) => ({ month: m.month, ...r })))
      .sort(byMonthMachine);
    expect(txRows.length).toBeGreaterThan(4);
    expect(doc.map((r) => [r.month, r.machine])).toEqual(txRows.map((r: any) => [r.month, r.machine]));
    doc.forEach((d, i) => {
      const t = txRows[i];
      const at = `${t.month} ${t.machine}`;
      for (const f of ['requests', 'total_tokens', 'previous_total_tokens', 'total_tokens_change'])
        expect(Number(d[f]), `${at} ${f}`).toBe(t[f]);
      for (const f of ['cost_usd', 'previous_cost_usd', 'cost_change_usd'])
        expect(decimalE10(d[f]), `${at} ${f}`).toBe(e10(t[f]));
      if (t.cost_change_ratio === null) expect(d.cost_change_ratio).toBeNull();
      else expect(Number(d.cost_change_ratio)).toBeCloseTo(t.cost_change_ratio, 12);
    });
    // A machine without usage in a month after one with usage shows as zero (carol has none in September, bob none in November).
    expect(txRows.some((r: any) => r.requests === 0 && r.previous_requests > 0)).toBe(true);
  });

  it('compare: efficiency per harness', async () => {
    const doc = await run('duckdb-compare');
    const tx = rollupReport(team, [out], ['compare', ...RANGE]);
    const billed = tx.harnesses.filter((h: any) => h.billed_usage);
    expect(doc.map((r) => r.harness)).toEqual(billed.map((h: any) => h.harness));
    expect(billed.length).toBeGreaterThan(0);
    doc.forEach((d, i) => {
      const t = billed[i];
      for (const f of ['requests', 'sessions', 'active_days', 'total_tokens'])
        expect(Number(d[f]), `${t.harness} ${f}`).toBe(t[f]);
      expect(decimalE10(d.cost_usd)).toBe(e10(t.cost_usd));
      for (const f of [
        'cost_per_request_usd',
        'cost_per_session_usd',
        'tokens_per_request',
        'output_tokens_per_request',
        'cache_hit_rate',
        'cache_write_share',
        'reasoning_share',
      ]) {
        if (t[f] === null) expect(d[f], `${t.harness} ${f}`).toBeNull();
        else expect(Number(d[f]), `${t.harness} ${f}`).toBeCloseTo(t[f], 10);
      }
    });
  });
});
