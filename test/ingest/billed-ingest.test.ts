// Deduplication at write time through the real CLI (issue 29): after every
// ingest — split lines, forks, appends, rewritten files, files gone
// (retained) and back, every harness — billed_events must equal what the
// rule computes over usage_events: the audit query (store/billed.ts) returns
// no rows, and the reports' totals stay those of the ledger. The same holds
// for the units' kept marks and the session facts the ingest keeps (issue
// 37: KEPT_AUDIT, SESSION_STATS_AUDIT), and for the roll-ups every report
// reads (issue 41: ROLLUPS_AUDIT), also after a re-price and a migration.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome, pickMetrics, type AllHome } from '../../fixtures/all-harnesses.js';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { BILLED_AUDIT, KEPT_AUDIT } from '../../src/store/billed.js';
import { SESSION_STATS_AUDIT } from '../../src/store/session-stats.js';
import { ROLLUPS_AUDIT } from '../../src/store/rollups.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

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

/** Rows the units' and the session facts' audits return (both must be 0), in one run. */
function auditKept(db: string, env: NodeJS.ProcessEnv): { kept: number; stats: number } {
  const r = runCli(
    [
      'sql',
      `SELECT (SELECT count(*) FROM (${KEPT_AUDIT})) AS kept, (SELECT count(*) FROM (${SESSION_STATS_AUDIT})) AS stats`,
      '--format',
      'json',
      '--db',
      db,
    ],
    env,
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout)[0];
}

/** The roll-ups' audits (each must find no rows), as one SELECT list. */
const ROLLUPS = Object.entries(ROLLUPS_AUDIT)
  .map(([t, sql]) => `(SELECT count(*) FROM (${sql})) AS ${t}`)
  .join(', ');
const ROLLUPS_CLEAN = Object.fromEntries(Object.keys(ROLLUPS_AUDIT).map((t) => [t, 0]));

/** Rows the roll-ups' audits return (each must be 0), in one run. */
function auditRollups(db: string, env: NodeJS.ProcessEnv, args: string[] = []): Record<string, number> {
  const r = runCli(['sql', `SELECT ${ROLLUPS}`, '--format', 'json', '--db', db, ...args], env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout)[0];
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
      s1.user(`2026-10-1${i}T09:59:00.000Z`);
      ids.push(
        s1.response({
          ts: `2026-10-1${i}T10:00:00.000Z`,
          splits: 1 + (i % 3),
          usage: { input: 10 + i, output: 20 + i, cacheRead: 100 * i },
        }),
      );
    }
    // A split response whose early lines carry placeholder usage (the largest usage wins).
    ids.push(
      s1.response({
        ts: '2026-10-17T10:00:00.000Z',
        splits: 3,
        placeholder: { input: 1, output: 1 },
        usage: { input: 500, output: 600 },
      }),
    );
    // /branch: a second session file copying four responses.
    const fork = s1.fork('feedbeef-0000-4000-8000-000000000001', ids.slice(0, 4));
    fork.response({ ts: '2026-10-18T10:00:00.000Z', usage: { input: 3, output: 4 } });
    // One run per step: every audit (each must find no rows) and the counts.
    const step = (label: string, responses: number) => {
      const ing = runCli(['ingest', '--db', db], env);
      expect(ing.status, ing.stderr).toBe(0);
      const r = runCli(
        [
          'sql',
          `SELECT (SELECT count(*) FROM (${BILLED_AUDIT})) AS billed, (SELECT count(*) FROM (${KEPT_AUDIT})) AS kept,
                        (SELECT count(*) FROM (${SESSION_STATS_AUDIT})) AS stats, (SELECT count(*) FROM billed_events) AS responses,
                        (SELECT count(*) FROM (SELECT DISTINCT harness, dedupe_key FROM usage_events)) AS keys, ${ROLLUPS}`,
          '--format',
          'json',
          '--db',
          db,
        ],
        env,
      );
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)[0], label).toEqual({
        billed: 0,
        kept: 0,
        stats: 0,
        responses,
        keys: responses,
        ...ROLLUPS_CLEAN,
      });
    };
    step('first ingest', 8);
    expect(count(db, env, 'SELECT count(*) FROM usage_events')).toBeGreaterThan(8); // the fork's copies are there, not billed
    // The fork's copies of tool calls are unit rows too, not kept.
    expect(count(db, env, 'SELECT count(*) FROM unit_rows')).toBeGreaterThan(
      count(db, env, 'SELECT count(*) FROM work_units'),
    );
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
    // Back, cut after its third response: the responses counted from it
    // before stay counted (issue 47: a truncated transcript keeps its history),
    // each still billed once.
    const lines = original.split('\n');
    const cut = lines.findIndex((l) => l.includes(ids[3]!));
    writeFileSync(s1.file, lines.slice(0, cut).join('\n') + '\n');
    step('original back, changed', 9);
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
      expect(auditKept(db, env)).toEqual({ kept: 0, stats: 0 });
      expect(count(db, env, 'SELECT count(*) FROM usage_events')).toBeGreaterThan(
        count(db, env, 'SELECT count(*) FROM billed_events'),
      );
      // The slots keep the grain apart: Droid's, Goose's and Hermes' session totals in slots of their own, the rest of grain response.
      expect(
        count(
          db,
          env,
          `SELECT count(*) FROM usage_slots WHERE grain = 'session' AND harness NOT IN ('droid', 'goose', 'hermes')`,
        ),
      ).toBe(0);
      expect(count(db, env, `SELECT sum(events) FROM usage_slots WHERE grain = 'session'`)).toBe(
        count(db, env, `SELECT count(*) FROM billed_events WHERE grain = 'session'`),
      );
      expect(count(db, env, `SELECT count(*) FROM billed_events WHERE grain = 'session'`)).toBeGreaterThan(
        count(db, env, `SELECT count(*) FROM billed_events WHERE harness = 'droid'`),
      );
      expect(count(db, env, `SELECT count(*) FROM billed_events WHERE harness = 'droid'`)).toBeGreaterThan(0);
      // The roll-ups, then re-priced (an override of a model the store holds, then back): they follow the computed costs.
      const state = (args: string[] = []) => {
        const r = runCli(
          [
            'sql',
            `SELECT ${ROLLUPS}, (SELECT sum(computed_cost_e10)::BIGINT FROM usage_slots) AS cost, (SELECT count(*) FROM prompt_stats) AS prompts,
                                 (SELECT min(model) FROM billed_events WHERE computed_cost_e10 > 0) AS model`,
            '--format',
            'json',
            '--db',
            db,
            ...args,
          ],
          env,
        );
        expect(r.status, r.stderr).toBe(0);
        const { cost, prompts, model, ...audits } = JSON.parse(r.stdout)[0];
        expect(audits).toEqual(ROLLUPS_CLEAN);
        expect(prompts).toBeGreaterThan(0);
        return { cost: Number(cost), model: String(model) };
      };
      const before = state();
      const prices = join(fx.home, 'prices.json');
      writeFileSync(
        prices,
        JSON.stringify({ [before.model]: { input_cost_per_token: 1e-3, output_cost_per_token: 2e-3 } }),
      );
      expect(state(['--prices', prices]).cost).not.toBe(before.cost);
      expect(state().cost).toBe(before.cost);
    } finally {
      rmSync(fx.home, { recursive: true, force: true });
    }
  });
});

describe('a store migrated to write-time deduplication', () => {
  it('is marked by the migration as the view computed', async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const { MIGRATIONS } = await import('../../src/store/schema.js');
    const db = join(home, 'v6.duckdb');
    const inst = await DuckDBInstance.create(db);
    const conn = await inst.connect();
    // A store of schema v6 (billed_events the deduplicating view) holding rows, duplicates among them.
    const v7 = MIGRATIONS.findIndex((m) => m.includes('ADD COLUMN billed'));
    for (const ddl of MIGRATIONS.slice(0, v7)) await conn.run(ddl);
    await conn.run(`INSERT INTO meta VALUES ('schema_version', '${v7}')`); // (v4 put the marker there)
    await conn.run(
      `INSERT INTO event_attrs SELECT i, 'src-' || i, 'claude-code', 's' || i, NULL, 'm', NULL, 'file-' || i FROM range(1, 6) t(i)`,
    );
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

describe('a store migrated to units and session facts kept at write time (schema v12, issue 37)', () => {
  it("marks the units v10 deduplicated at query time and makes each session's facts as v10's queries did", async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const { MIGRATIONS } = await import('../../src/store/schema.js');
    const db = join(home, 'v10.duckdb');
    const inst = await DuckDBInstance.create(db);
    const conn = await inst.connect();
    const v11 = MIGRATIONS.findIndex((m) => m.includes('ADD COLUMN kept'));
    for (const ddl of MIGRATIONS.slice(0, v11)) await conn.run(ddl);
    await conn.run(`INSERT INTO meta VALUES ('schema_version', '${v11}')`);
    // Session s1: m1 100 tokens at t=1 in /p/a, m2 300 tokens (two responses) up to t=3 in /p/b; m3 300 tokens at t=2.
    // Main model: most tokens, then the name (m2 before m3); project: the latest response's (/p/b).
    // Session s2: one response without a model, in /p/c.
    // Columns named: the migrations before this one may add columns of their own (v11's speed).
    await conn.run(`INSERT INTO event_attrs (attr_id, source_key, harness, session_id, project, model, provider, source_file, billing_kind) VALUES
      (1, 'src-1', 'claude-code', 's1', '/p/a', 'm1', NULL, 'f1', NULL),
      (2, 'src-1', 'claude-code', 's1', '/p/b', 'm2', NULL, 'f1', NULL),
      (3, 'src-1', 'claude-code', 's1', '/p/a', 'm3', NULL, 'f1', NULL),
      (4, 'src-2', 'codex', 's2', '/p/c', NULL, NULL, 'f2', NULL)`);
    await conn.run(`INSERT INTO usage_rows (attr_id, ts_ms, dedupe_key, dedupe_rank, requests, input_tokens, cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens, billed) VALUES
      (1, 1, 'k1', 0, 1, 100, 0, 0, 0, 0, TRUE),
      (2, 2, 'k2', 0, 1, 100, 0, 0, 100, 0, TRUE),
      (2, 3, 'k3', 0, 1, 50, 50, 0, 0, 0, TRUE),
      (3, 2, 'k4', 0, 1, 0, 0, 300, 0, 0, TRUE),
      (4, 5, 'k5', 0, 1, 7, 0, 0, 0, 0, TRUE)`);
    // Units: key 9 three times (a fork copy of rank 1 and two originals of 2 and 5 units: 5 kept),
    // key 8 twice of rank 0 (the first source key wins), key 7 once.
    await conn.run(
      `INSERT INTO unit_attrs VALUES (1, 'src-1', 'claude-code', 's1'), (2, 'src-3', 'claude-code', 's3'), (3, 'src-2', 'codex', 's2')`,
    );
    await conn.run(`INSERT INTO unit_rows VALUES
      (2, 2, 9, 1, 10, 9), (1, 2, 9, 0, 11, 2), (1, 2, 9, 0, 12, 5),
      (2, 0, 8, 0, 20, 1), (1, 0, 8, 0, 21, 1),
      (3, 1, 7, 0, 30, 1)`);
    conn.closeSync();
    inst.closeSync();
    const empty = tempDir('txu-billed-v10-');
    try {
      const env = cleanEnv(empty);
      expect(auditKept(db, env)).toEqual({ kept: 0, stats: 0 });
      const q = (sql: string) => {
        const r = runCli(['sql', sql, '--format', 'json', '--db', db], env);
        expect(r.status, r.stderr).toBe(0);
        return JSON.parse(r.stdout);
      };
      expect(q(`SELECT kind, dedupe_key, session_id, ts_ms, n FROM work_units ORDER BY dedupe_key`)).toEqual([
        { kind: 'turn', dedupe_key: 7, session_id: 's2', ts_ms: 30, n: 1 },
        { kind: 'prompt', dedupe_key: 8, session_id: 's1', ts_ms: 21, n: 1 },
        { kind: 'tool_call', dedupe_key: 9, session_id: 's1', ts_ms: 12, n: 5 },
      ]);
      expect(q(`SELECT harness, session_id, project, model FROM session_stats ORDER BY session_id`)).toEqual([
        { harness: 'claude-code', session_id: 's1', project: '/p/b', model: 'm2' },
        { harness: 'codex', session_id: 's2', project: '/p/c', model: null },
      ]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('a store migrated to roll-ups kept by the ingest (schema v15, issue 41)', () => {
  it('is rolled up by the next ingest as the builders make it of its rows', async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const { MIGRATIONS } = await import('../../src/store/schema.js');
    const db = join(home, 'before-rollups.duckdb');
    const inst = await DuckDBInstance.create(db);
    const conn = await inst.connect();
    const rollups = MIGRATIONS.findIndex((m) => m.includes('TABLE usage_slots ('));
    for (const ddl of MIGRATIONS.slice(0, rollups)) await conn.run(ddl);
    await conn.run(`INSERT INTO meta VALUES ('schema_version', '${rollups}')`);
    // Two sessions, a sub-agent of the first (its responses answer the first's prompts), units of work.
    await conn.run(`INSERT INTO event_attrs (attr_id, source_key, harness, session_id, project, model, provider, source_file) VALUES
      (1, 'src-1', 'codex', 's1', '/p/a', 'm1', 'openai', 'f1'), (2, 'src-2', 'codex', 's2', '/p/a', 'm2', 'openai', 'f2')`);
    await conn.run(`INSERT INTO usage_rows (attr_id, ts_ms, dedupe_key, dedupe_rank, requests, input_tokens, cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens, recorded_cost_e10, computed_cost_e10, billed)
      SELECT 1 + (i % 2), 1790000000000 + i * 97000, 'k' || i, 0, 1, i, 2 * i, 0, 10, 1, NULL, CASE WHEN i % 5 = 0 THEN NULL ELSE 100 * i END, TRUE FROM range(60) t(i)`);
    await conn.run(`INSERT INTO unit_attrs VALUES (1, 'src-1', 'codex', 's1'), (2, 'src-2', 'codex', 's2')`);
    await conn.run(`INSERT INTO unit_rows (unit_attr_id, kind, dedupe_key, dedupe_rank, ts_ms, n, kept)
      SELECT 1 + (i % 2), i % 3, i, 0, 1790000000000 + i * 233000, 1, TRUE FROM range(20) t(i)`);
    await conn.run(`INSERT INTO session_fact_rows VALUES ('src-2', 'codex', 's2', NULL, 0, 's1', 1)`);
    conn.closeSync();
    inst.closeSync();
    const empty = tempDir('txu-billed-pre-rollups-');
    try {
      const env = cleanEnv(empty);
      expect(auditRollups(db, env)).toEqual(ROLLUPS_CLEAN);
      expect(count(db, env, 'SELECT count(*) FROM session_links')).toBe(1);
      expect(count(db, env, 'SELECT sum(events) FROM usage_slots')).toBe(60);
      expect(count(db, env, `SELECT count(DISTINCT root_session_id) FROM prompt_stats`)).toBe(1);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('a store of roll-ups migrated to the grain (schema v16, issue 43)', () => {
  it('keeps its slots, each of grain response, equal to what the builder makes of its rows', async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const { MIGRATIONS } = await import('../../src/store/schema.js');
    const { usageSlotsSelect } = await import('../../src/store/rollups.js');
    const db = join(home, 'before-grain.duckdb');
    const inst = await DuckDBInstance.create(db);
    const conn = await inst.connect();
    const grain = MIGRATIONS.findIndex((m) => m.includes('ADD COLUMN IF NOT EXISTS grain'));
    expect(grain).toBeGreaterThan(MIGRATIONS.findIndex((m) => m.includes('TABLE usage_slots (')));
    for (const ddl of MIGRATIONS.slice(0, grain)) await conn.run(ddl);
    await conn.run(`INSERT INTO meta VALUES ('schema_version', '${grain}')`);
    await conn.run(`INSERT INTO event_attrs (attr_id, source_key, harness, session_id, project, model, provider, source_file) VALUES
      (1, 'src-1', 'codex', 's1', '/p/a', 'm1', 'openai', 'f1'), (2, 'src-2', 'claude-code', 's2', '/p/b', 'm2', 'anthropic', 'f2')`);
    await conn.run(`INSERT INTO usage_rows (attr_id, ts_ms, dedupe_key, dedupe_rank, requests, input_tokens, cache_read_tokens, cache_write_tokens, output_tokens, reasoning_tokens, recorded_cost_e10, computed_cost_e10, billed)
      SELECT 1 + (i % 2), 1790000000000 + i * 131000, 'k' || i, 0, 1, i, 3 * i, 0, 10, 1, NULL, 100 * i, TRUE FROM range(40) t(i)`);
    // The slots as the roll-ups' build made them before the grain (its columns, the store's rows; nothing pending).
    const rows = `(SELECT attr_id, ts_ms, dedupe_key, requests, input_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens,
                          output_tokens, reasoning_tokens, recorded_cost_e10, computed_cost_e10 FROM usage_rows WHERE billed)`;
    await conn.run(
      `INSERT INTO usage_slots SELECT * EXCLUDE (grain) FROM (${usageSlotsSelect(rows, '(SELECT *, NULL AS grain FROM event_attrs)')})`,
    );
    const before = Number(
      (await conn.runAndReadAll('SELECT count(*) AS n FROM usage_slots')).getRowObjectsJson()[0]!.n,
    );
    expect(before).toBeGreaterThan(2);
    conn.closeSync();
    inst.closeSync();
    const empty = tempDir('txu-billed-pre-grain-');
    try {
      const env = cleanEnv(empty);
      expect(auditRollups(db, env)).toEqual(ROLLUPS_CLEAN);
      expect(count(db, env, `SELECT count(*) FROM usage_slots WHERE grain = 'response'`)).toBe(before);
      expect(count(db, env, 'SELECT sum(events) FROM usage_slots')).toBe(40);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
