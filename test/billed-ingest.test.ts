// Deduplication at write time through the real CLI (issue 29): after every
// ingest — split lines, forks, appends, rewritten files, files gone
// (retained) and back, every harness — billed_events must equal what the
// rule computes over usage_events: the audit query (store/billed.ts) returns
// no rows, and the reports' totals stay those of the ledger.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome, pickMetrics, type AllHome } from '../fixtures/all-harnesses.js';
import { ClaudeHome } from '../fixtures/claude-code/build.js';
import { BILLED_AUDIT } from '../src/store/billed.js';
import { cleanEnv, runCli, tempDir } from './helpers/cli.js';

const RANGE = ['--since', '2026-01-01', '--until', '2026-12-31'];
let home: string;
beforeAll(() => {
  home = tempDir('txu-billed-');
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function audit(db: string, env: NodeJS.ProcessEnv): unknown[] {
  const r = runCli(['sql', BILLED_AUDIT, '--format', 'json', '--db', db], env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

function count(db: string, env: NodeJS.ProcessEnv, sql: string): number {
  const r = runCli(['sql', `SELECT (${sql}) AS n`, '--format', 'json', '--db', db], env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout)[0].n;
}

describe('billed_events after each kind of change', () => {
  it('split lines, forks, appends, a rewritten fork, the original gone (retained) and back changed', () => {
    const env = cleanEnv(home);
    const db = join(home, 'store.duckdb');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s1 = claude.session({ cwd: '/home/u/app' });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push(s1.response({ ts: `2026-10-1${i}T10:00:00.000Z`, splits: 1 + (i % 3), usage: { input: 10 + i, output: 20 + i, cacheRead: 100 * i } }));
    }
    // A split response whose early lines carry placeholder usage (the largest usage wins).
    ids.push(s1.response({ ts: '2026-10-17T10:00:00.000Z', splits: 3, placeholder: { input: 1, output: 1 }, usage: { input: 500, output: 600 } }));
    // /branch: a second session file copying four responses.
    const fork = s1.fork('feedbeef-0000-4000-8000-000000000001', ids.slice(0, 4));
    fork.response({ ts: '2026-10-18T10:00:00.000Z', usage: { input: 3, output: 4 } });
    const step = (label: string, responses: number) => {
      const ing = runCli(['ingest', '--db', db], env);
      expect(ing.status, ing.stderr).toBe(0);
      expect(audit(db, env), label).toEqual([]);
      expect(count(db, env, 'SELECT count(*) FROM billed_events'), label).toBe(responses);
      expect(count(db, env, 'SELECT count(*) FROM billed_events') , label).toBe(count(db, env, 'SELECT count(*) FROM (SELECT DISTINCT harness, dedupe_key FROM usage_events)'));
    };
    step('first ingest', 8);
    expect(count(db, env, 'SELECT count(*) FROM usage_events')).toBeGreaterThan(8); // the fork's copies are there, not billed
    s1.response({ ts: '2026-10-19T10:00:00.000Z', splits: 2, usage: { input: 7, output: 8 } });
    step('appended', 9);
    // The fork rewritten (its copy of the first response dropped): the original still bills it once.
    const forkLines = readFileSync(fork.file, 'utf8').split('\n');
    writeFileSync(fork.file, forkLines.slice(1).join('\n'));
    step('fork rewritten', 9);
    // The original gone: its rows are kept (retained), still billed once each.
    const original = readFileSync(s1.file, 'utf8');
    rmSync(s1.file);
    step('original gone', 9);
    // Back, cut after its third response: the rows of the rest are replaced;
    // the fork's copy of the fourth response now bills it.
    const lines = original.split('\n');
    const cut = lines.findIndex((l) => l.includes(ids[3]!));
    writeFileSync(s1.file, lines.slice(0, cut).join('\n') + '\n');
    step('original back, changed', 5);
  });

  it('every harness of the five-harness fixture', () => {
    const fx: AllHome = buildAllHome(tempDir('txu-billed-all-'));
    fx.close();
    try {
      const env = cleanEnv(fx.home);
      const db = join(fx.home, 'store.duckdb');
      const r = runCli(['report', ...ALL_RANGE, '--by', 'harness', '--format', 'json', '--db', db], env);
      expect(r.status, r.stderr).toBe(0);
      expect(pickMetrics(JSON.parse(r.stdout).totals)).toEqual(fx.total);
      expect(audit(db, env)).toEqual([]);
      expect(count(db, env, 'SELECT count(*) FROM usage_events')).toBeGreaterThan(count(db, env, 'SELECT count(*) FROM billed_events'));
    } finally {
      rmSync(fx.home, { recursive: true, force: true });
    }
  });
});

describe('a store migrated to write-time deduplication', () => {
  it('is marked by the migration as the view computed', async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const { MIGRATIONS } = await import('../src/store/schema.js');
    const db = join(home, 'v6.duckdb');
    const inst = await DuckDBInstance.create(db);
    const conn = await inst.connect();
    // A store of schema v6 (billed_events the deduplicating view) holding rows, duplicates among them.
    const v7 = MIGRATIONS.findIndex((m) => m.includes('ADD COLUMN billed'));
    for (const ddl of MIGRATIONS.slice(0, v7)) await conn.run(ddl);
    await conn.run(`INSERT INTO meta VALUES ('schema_version', '${v7}')`); // (v4 put the marker there)
    await conn.run(`INSERT INTO event_attrs SELECT i, 'src-' || i, 'claude-code', 's' || i, NULL, 'm', NULL, 'file-' || i FROM range(1, 6) t(i)`);
    await conn.run(`
      INSERT INTO usage_rows
      SELECT 1 + (i % 5), 1790000000000 + i, 'k' || (i % 40), (i % 2)::INTEGER, 1, i % 9, 0, 0, NULL, NULL, i % 4, 0, NULL, i, i
      FROM range(200) t(i)`);
    conn.closeSync();
    inst.closeSync();
    const empty = tempDir('txu-billed-v6-');
    try {
      const env = cleanEnv(empty);
      expect(audit(db, env)).toEqual([]);
      expect(count(db, env, 'SELECT count(*) FROM usage_rows WHERE billed')).toBe(40);
      expect(count(db, env, 'SELECT count(*) FROM usage_rows')).toBe(200);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
