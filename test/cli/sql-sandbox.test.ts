// `tx-usage sql` is read-only for real (issue 25): files, the network,
// extensions, other databases and the configuration are out of its reach,
// each refused with exit 2 and nothing written. Its JSON prints integers as
// numbers; the `usage` view holds one row per billed response; every example
// in docs/sql.md runs.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome, type AllHome } from '../../fixtures/all-harnesses.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let fx: AllHome;
let work: string;
let db: string;
const env = () => cleanEnv(fx.home, { XDG_CACHE_HOME: join(work, 'cache') });
const sql = (q: string, format = 'json') => runCli(['sql', q, '--format', format, '--db', db], env());

beforeAll(() => {
  fx = buildAllHome(tempDir('txu-sql-home-'));
  fx.close();
  work = tempDir('txu-sql-');
  db = join(work, 'store.duckdb');
  expect(runCli(['ingest', '--db', db], env()).status).toBe(0);
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(fx.home, { recursive: true, force: true });
});

/** The store and everything beside it, by name, size and mtime. */
function storeFiles(): string {
  return readdirSync(work)
    .filter((f) => f.startsWith('store.duckdb'))
    .sort()
    .map((f) => {
      const st = statSync(join(work, f));
      return `${f} ${st.size} ${st.mtimeMs}`;
    })
    .join('\n');
}

describe('tx-usage sql refuses everything but reading the store', () => {
  it('COPY, file readers, INSTALL/LOAD, SET/RESET, ATTACH, EXPORT, writes: exit 2 each, nothing written anywhere', () => {
    const out = join(work, 'x.csv');
    const attached = join(work, 'other.duckdb');
    const exported = join(work, 'exported');
    const statements = [
      `COPY (SELECT 1) TO '${out}'`,
      `COPY (SELECT * FROM usage) TO '${out}' (FORMAT csv)`,
      `SELECT * FROM read_csv('/etc/passwd')`,
      `SELECT * FROM read_text('/etc/passwd')`,
      `SELECT * FROM glob('/etc/*')`,
      `SELECT * FROM '/etc/passwd'`,
      `SELECT * FROM read_parquet('https://example.com/x.parquet')`,
      'INSTALL httpfs',
      'LOAD httpfs',
      'SET enable_external_access = true',
      'RESET enable_external_access',
      'SET lock_configuration = false',
      'SET autoinstall_known_extensions = true',
      `ATTACH '${attached}' AS other`,
      `EXPORT DATABASE '${exported}'`,
      'CREATE TABLE t AS SELECT 1 AS x',
      'DELETE FROM sources',
      "UPDATE meta SET value = 'x'",
      'DROP VIEW usage',
    ];
    const before = storeFiles();
    for (const q of statements) {
      const r = sql(q);
      expect(r.status, `${q}: ${r.stderr}`).toBe(2);
      // A statement that would change the store is said to be one (issue 44), the others refused as DuckDB says.
      expect(r.stderr, q).toMatch(
        /^(CREATE|DELETE|UPDATE|DROP)/.test(q)
          ? /^tx-usage: sql is read-only: (CREATE|DELETE|UPDATE|DROP) would change the store/
          : /^tx-usage: SQL error: /,
      );
      expect(r.stdout, q).toBe('');
    }
    expect(existsSync(out)).toBe(false);
    expect(existsSync(attached)).toBe(false);
    expect(existsSync(exported)).toBe(false);
    expect(existsSync(join(fx.home, '.duckdb'))).toBe(false); // no extension directory made
    expect(storeFiles()).toBe(before);
    // The store is intact and still answers.
    expect(JSON.parse(sql('SELECT count(*) AS n FROM sources').stdout)[0].n).toBeGreaterThan(0);
  });
});

describe('one statement', () => {
  it('several statements are refused (exit 2) before any runs; one with a trailing semicolon is fine; none is refused', () => {
    for (const q of [
      'SELECT 1 AS a; SELECT 2 AS b',
      "SELECT count(*) AS n FROM usage; SELECT 'x' AS y;",
      'SELECT 1 AS a;\n-- two\nSELECT 2 AS b',
    ]) {
      for (const format of ['json', 'table', 'csv']) {
        const r = sql(q, format);
        expect(r.status, `${q}: ${r.stderr}`).toBe(2);
        expect(r.stdout, q).toBe('');
        expect(r.stderr, q).toMatch(
          /^tx-usage: sql runs one statement; this text has 2 \(run each on its own, or make one query of them with WITH or UNION ALL\)\n$/,
        );
      }
    }
    expect(JSON.parse(sql('SELECT 1 AS a;').stdout)).toEqual([{ a: 1 }]);
    for (const q of ['  ', '/* nothing */']) {
      const r = sql(q);
      expect(r.status, JSON.stringify(q)).toBe(2);
      expect(r.stderr).toBe('tx-usage: sql: no SQL statement given\n');
    }
    expect(sql('SELEC 1').stderr).toMatch(/^tx-usage: SQL error: Parser Error: syntax error at or near "SELEC"/);
  });
});

describe('output', () => {
  it('JSON prints integers and decimals as exact numbers, nested ones too', () => {
    const r =
      sql(`SELECT 1::TINYINT AS t, 9007199254740993::BIGINT AS big, 170141183460469231731687303715884105727::HUGEINT AS huge,
                          -1.2500::DECIMAL(10,4) AS d, [1, 2]::BIGINT[] AS l, {'n': 3::BIGINT} AS s, 'x' AS v, NULL::BIGINT AS z, DATE '2026-10-01' AS day`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('"big": 9007199254740993');
    expect(r.stdout).toContain('"huge": 170141183460469231731687303715884105727');
    expect(r.stdout).toContain('"d": -1.2500');
    const j = JSON.parse(r.stdout)[0];
    expect(j).toMatchObject({ t: 1, l: [1, 2], s: { n: 3 }, v: 'x', z: null, day: '2026-10-01' });
    expect(typeof j.big).toBe('number');
    const csv = sql('SELECT 9007199254740993::BIGINT AS big, [1,2] AS l', 'csv');
    expect(csv.stdout).toBe('big,l\r\n9007199254740993,"[1,2]"\r\n');
  });
});

describe('the usage view', () => {
  it("one row per billed response, costs in dollars equal to the report's, ts a TIMESTAMPTZ", () => {
    const n = JSON.parse(
      sql(
        'SELECT (SELECT count(*) FROM usage) AS u, (SELECT count(*) FROM billed_events) AS b, (SELECT count(*) FROM usage_events) AS e',
      ).stdout,
    )[0];
    expect(n.u).toBe(n.b);
    expect(n.e).toBeGreaterThan(n.b); // the fixture repeats responses (split lines, forks)
    const types = JSON.parse(
      sql(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'usage' AND column_name IN ('ts', 'cost_usd')  ORDER BY 1",
      ).stdout,
    );
    expect(types).toEqual([
      { column_name: 'cost_usd', data_type: 'DECIMAL(38,10)' },
      { column_name: 'ts', data_type: 'TIMESTAMP WITH TIME ZONE' },
    ]);
    const rep = runCli(
      ['report', ...ALL_RANGE, '--tz', 'UTC', '--by', 'harness', '--format', 'json', '--db', db],
      env(),
    );
    const totals = JSON.parse(rep.stdout).totals;
    const mine = JSON.parse(
      sql(`SELECT sum(requests) AS requests, sum(total_tokens) AS total_tokens, sum(cost_usd) AS cost_usd FROM usage
           WHERE CAST(timezone('UTC', ts) AS DATE) BETWEEN DATE '${ALL_RANGE[1]}' AND DATE '${ALL_RANGE[3]}'`).stdout,
    )[0];
    expect(mine.requests).toBe(totals.requests);
    expect(mine.total_tokens).toBe(totals.total_tokens);
    expect(mine.cost_usd).toBeCloseTo(totals.cost_usd, 8);
  });

  it('every example in docs/sql.md runs', () => {
    const doc = readFileSync(join(__dirname, '../../docs/sql.md'), 'utf8');
    const examples = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(examples.length).toBeGreaterThanOrEqual(5);
    for (const q of examples) {
      const r = sql(q);
      expect(r.status, `${q}\n${r.stderr}`).toBe(0);
      expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
    }
  });
});
