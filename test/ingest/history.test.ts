// History outlives the transcripts (issue 25): Claude Code deletes
// transcripts after 30 days and other harnesses prune too, but last month's
// spend must not shrink when they do. A source whose file is gone keeps its
// rows (retained); they are replaced only when the same source reappears
// changed; --rebuild, which would drop them, needs --yes.
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const OCT = ['--since', '2026-10-01', '--until', '2026-10-31'];
let home: string;
let claude: ClaudeHome;
const env = () => cleanEnv(home);
const tokens = (t: any) => t.input_tokens + t.output_tokens + t.cache_read_tokens + t.cache_write_tokens;

beforeAll(() => {
  home = tempDir('txu-history-');
  claude = new ClaudeHome(join(home, '.claude'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** A JSON report; `by` varies so that each call opens the store (a repeated report may come from its memo). */
function report(args: string[], by: string, db: string) {
  const r = runCli(['report', ...args, '--by', by, '--format', 'json', '--db', db], env());
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

function sources(db: string) {
  const r = runCli(['sources', '--format', 'json', '--db', db], env());
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout).harnesses.find((h: any) => h.harness === 'claude-code');
}

describe('a transcript deleted by its harness', () => {
  it('keeps its rows (retained, listed by sources); reappearing changed replaces them; --rebuild needs --yes', () => {
    const db = join(home, 'store.duckdb');
    const old = claude.session({ cwd: '/home/u/old-project' });
    old.response({ ts: '2026-10-03T10:00:00.000Z', usage: { input: 100, output: 50, cacheRead: 1000 } });
    old.response({ ts: '2026-10-04T10:00:00.000Z', splits: 3, usage: { input: 7, output: 70, cacheRead: 500 } });
    const keep = claude.session({ cwd: '/home/u/kept' });
    keep.response({ ts: '2026-10-05T10:00:00.000Z', usage: { input: 1, output: 2 } });
    keep.response({ ts: '2026-11-05T10:00:00.000Z', usage: { input: 3, output: 4 } });
    const empty = claude.session({ cwd: '/home/u/empty' });
    empty.apiError('2026-10-06T10:00:00.000Z');

    const before = report(OCT, 'project', db);
    expect(before.totals.requests).toBe(3);
    const oldBytes = readFileSync(old.file);

    // The harness prunes the old transcript (and the one that billed nothing).
    rmSync(old.file);
    rmSync(empty.file);
    const ing = runCli(['ingest', '--db', db], env());
    expect(ing.status, ing.stderr).toBe(0);
    expect(ing.stdout).toMatch(
      /2 no longer found in the searched folders \(their rows are kept as history\); 1 retained in all/,
    );
    const after = report(OCT, 'model', db);
    expect(after.totals.requests).toBe(before.totals.requests);
    expect(tokens(after.totals)).toBe(tokens(before.totals));
    expect(after.totals.cost_usd).toBe(before.totals.cost_usd);
    expect(
      report(OCT, 'project', db)
        .rows.map((r: any) => r.project)
        .sort(),
    ).toEqual(['/home/u/kept', '/home/u/old-project']);

    // `sources` lists it as retained; the source that held nothing is not kept.
    const s = sources(db);
    expect(s.files).toBe(1);
    expect(s.retained_files).toBe(1);
    const listed = s.sources.find((x: any) => x.path === old.file);
    expect(listed).toMatchObject({ retained: true, events: 2, billed_events: 2 });
    expect(listed.retained_since).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(s.sources.some((x: any) => x.path === empty.file)).toBe(false);
    const table = runCli(['sources', '--db', db], env());
    expect(table.stdout).toMatch(
      /1 source \(\+ 1 retained: files no longer found in the searched folders, rows kept\)/,
    );
    expect(table.stdout).toContain(`${old.file}: 2 events (retained: no longer found in the searched folders since `);

    // Another ingest changes nothing; the mark stays.
    expect(runCli(['ingest', '--db', db], env()).stdout).toMatch(
      /^1 source: 0 read, 0 appended, 1 unchanged; 1 retained in all/,
    );

    // --rebuild would drop that history: refused without --yes, the store untouched.
    const storeBefore = readFileSync(db);
    const refused = runCli(['report', ...OCT, '--by', 'day', '--rebuild', '--db', db], env());
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      /^tx-usage: --rebuild would drop history it cannot read again: 1 source no longer found in the searched folders \(2 responses\) is kept in .*; add --yes to rebuild anyway/,
    );
    expect(refused.stdout).toBe('');
    expect(readFileSync(db).equals(storeBefore)).toBe(true);

    // The transcript reappears, changed (a response's usage rewritten): its rows are replaced, not added to.
    old.rewindTo(null);
    writeFileSync(old.file, oldBytes.toString('utf8').replace('"output_tokens":50', '"output_tokens":51'));
    const back = report(OCT, 'harness', db);
    expect(back.totals.requests).toBe(before.totals.requests);
    expect(back.totals.output_tokens).toBe(before.totals.output_tokens + 1);
    expect(sources(db).retained_files).toBe(0);

    // Gone again, then --rebuild --yes: the history is dropped as asked.
    rmSync(old.file);
    expect(runCli(['ingest', '--db', db], env()).status).toBe(0);
    const rebuilt = runCli(
      ['report', ...OCT, '--by', 'session', '--format', 'json', '--rebuild', '--yes', '--db', db],
      env(),
    );
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toMatch(
      /rebuilt from the sources \(--rebuild\); the history of 1 source no longer found in the searched folders was dropped \(--yes\)/,
    );
    expect(JSON.parse(rebuilt.stdout).totals.requests).toBe(1);
  });
});

describe('a store of schema v3 (before retained history)', () => {
  it('is migrated in place: rows of a transcript gone since its last run are kept as history', async () => {
    const h = tempDir('txu-history-v3-');
    try {
      const c = new ClaudeHome(join(h, '.claude'));
      const s = c.session({ cwd: '/home/u/here' });
      s.response({ ts: '2026-10-10T10:00:00.000Z', usage: { input: 10, output: 20 } });
      const db = join(h, 'v3.duckdb');
      const inst = await DuckDBInstance.create(db);
      const conn = await inst.connect();
      for (const ddl of MIGRATIONS.slice(0, 3)) await conn.run(ddl);
      await conn.run("INSERT INTO meta VALUES ('schema_version', '3')");
      // What a v3 tx-usage left: a transcript it read, deleted since.
      const gone = join(h, '.claude/projects/-home-u-gone/0000.jsonl');
      await conn.run(
        `INSERT INTO sources VALUES ('claude-code:${gone}', 'claude-code', '${gone}', 'jsonl', '1:1:1', 1, '1:1', NULL, NULL, NULL, NULL, 0)`,
      );
      // (v3's tables as they were: no helper of today's writer applies to them)
      await conn.run(
        `INSERT INTO event_attrs VALUES (1, 'claude-code:${gone}', 'claude-code', 'sess-gone', '/home/u/gone', 'claude-opus-5-5', NULL, '${gone}')`,
      );
      await conn.run(
        `INSERT INTO usage_rows VALUES (1, 1760090000000, 'msg_gone', 0, 1, 1000, 0, 0, NULL, NULL, 500, 0, NULL, 123, 1)`,
      );
      conn.closeSync();
      inst.closeSync();
      expect(existsSync(gone)).toBe(false);
      const r = runCli(
        ['report', '--since', '2025-10-01', '--until', '2026-12-31', '--by', 'project', '--format', 'json', '--db', db],
        cleanEnv(h),
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/moved aside|rebuilt/);
      const rows = JSON.parse(r.stdout).rows;
      expect(rows.map((x: any) => x.project).sort()).toEqual(['/home/u/gone', '/home/u/here']);
      expect(rows.find((x: any) => x.project === '/home/u/gone').input_tokens).toBe(1000);
      const src = runCli(['sources', '--format', 'json', '--db', db], cleanEnv(h));
      expect(JSON.parse(src.stdout).harnesses.find((x: any) => x.harness === 'claude-code').retained_files).toBe(1);
      expect(statSync(db).size).toBeGreaterThan(0);
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });
});
