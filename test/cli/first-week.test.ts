// Issue 44's rough edges 1, 2, 3, 10, 11, 14 and 15, each as a user met it,
// through the real CLI on the all-harness fixture home (one store shared by
// the tests that only read it). Expected figures come from the same store
// asked another way (the whole range), never from a copy of the output.
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome, type AllHome } from '../../fixtures/all-harnesses.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const METRICS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'total_tokens',
  'cost_usd',
] as const;
const metrics = (r: Record<string, unknown>) => Object.fromEntries(METRICS.map((k) => [k, r[k]]));
const today = () => new Date().toISOString().slice(0, 10);
const daysBetween = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 86_400_000;

let all: AllHome;
let env: NodeJS.ProcessEnv;

function ok(args: string[], e = env) {
  const r = runCli(args, e);
  expect(r.status, `${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}

beforeAll(() => {
  all = buildAllHome(join(tempDir('txu-week1-'), 'home'));
  all.close();
  env = cleanEnv(all.home);
  ok(['ingest']);
});

describe('1. a period cut by the window', () => {
  it('a summary by month covers whole months, its row the month the whole range shows', () => {
    const whole = new Map(reportJson([...ALL_RANGE, '--by', 'month'], env).rows.map((r: any) => [r.month, r]));
    const j = reportJson(['--since', '2026-01-10', '--until', '2026-01-20', '--by', 'month'], env);
    expect([j.since, j.until]).toEqual(['2026-01-01', '2026-01-31']);
    expect(j.rows.map((r: any) => r.month)).toEqual(['2026-01']);
    expect(metrics(j.rows[0])).toEqual(metrics(whole.get('2026-01') as any));
  });

  it('by week: whole ISO weeks, Monday to Sunday', () => {
    const whole = new Map(reportJson([...ALL_RANGE, '--by', 'week'], env).rows.map((r: any) => [r.week, r]));
    const j = reportJson(['--since', '2026-01-08', '--until', '2026-01-08', '--by', 'week'], env);
    expect([j.since, j.until]).toEqual(['2026-01-05', '2026-01-11']);
    expect(metrics(j.rows[0])).toEqual(metrics(whole.get('2026-W02') as any));
    // By day the window stays as typed.
    const d = reportJson(['--since', '2026-01-08', '--until', '2026-01-08'], env);
    expect([d.since, d.until]).toEqual(['2026-01-08', '2026-01-08']);
  });
});

describe('10. windows and errors', () => {
  it('--since Nd is N calendar days ending today, today included', () => {
    const one = reportJson(['--since', '1d'], env);
    expect([one.since, one.until]).toEqual([today(), today()]);
    const month = reportJson(['--since', '30d'], env);
    expect(daysBetween(month.since, month.until) + 1).toBe(30);
    const def = reportJson([], env);
    expect([def.since, def.until]).toEqual([month.since, month.until]);
  });

  it('--until before the default window moves it (no complaint about a --since nobody typed)', () => {
    const j = reportJson(['--until', '2026-01-31'], env);
    expect([j.since, j.until]).toEqual(['2026-01-02', '2026-01-31']);
    const typed = runCli(['report', '--since', '2026-02-01', '--until', '2026-01-31'], env);
    expect(typed.status).toBe(2);
    expect(typed.stderr).toBe('tx-usage: --since 2026-02-01 is after --until 2026-01-31\n');
  });

  it('--project that no project matches is said so, with the near matches', () => {
    const none = runCli(['report', ...ALL_RANGE, '--project', 'nosuch'], env);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/^tx-usage: --project "nosuch": no project matches/);
    expect(none.stdout).toBe('');
    const typo = runCli(['report', ...ALL_RANGE, '--project', 'projct-a'], env);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('near: /home/user/project-a');
    // A project idle in the window still matches: an empty report, exit 0.
    expect(reportJson(['--since', '2020-01-01', '--until', '2020-01-31', '--project', 'project-a'], env).rows).toEqual(
      [],
    );
  });

  it('sql: a write is refused as read-only; JSON timestamps are ISO 8601', () => {
    for (const q of [
      'DELETE FROM usage',
      'delete from usage_rows',
      '/* c */ INSERT INTO meta VALUES (1, 2)',
      'DROP TABLE sources',
    ]) {
      const r = runCli(['sql', q], env);
      expect(r.status, q).toBe(2);
      expect(r.stderr, q).toMatch(/^tx-usage: sql is read-only: (DELETE|INSERT|DROP) would change the store/);
    }
    const j = JSON.parse(
      ok(['sql', '--format', 'json', 'SELECT ts, ts::TIMESTAMP AS naive FROM usage ORDER BY ts LIMIT 3']).stdout,
    );
    for (const row of j) {
      expect(row.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3,6}Z$/);
      expect(row.naive).toBe(row.ts.slice(0, -1));
      expect(new Date(row.ts).toISOString()).toBe(row.ts.replace(/(\.\d{3})\d*Z$/, '$1Z'));
    }
    // Tables keep DuckDB's own text.
    expect(ok(['sql', 'SELECT ts FROM usage ORDER BY ts LIMIT 1']).stdout).toMatch(/\d\d:\d\d:\d\d(\.\d+)?\+00/);
  });
});

describe('3. session ids', () => {
  it('piped tables keep ids whole; explain takes a unique prefix or a cut id, and names an ambiguous prefix`s matches', () => {
    const ids: string[] = reportJson([...ALL_RANGE, '--by', 'session'], env).rows.map((r: any) => r.session);
    const long = ids.filter((s) => s.length >= 36);
    expect(long.length).toBeGreaterThan(3);
    const table = ok(['report', ...ALL_RANGE, '--by', 'session']).stdout;
    for (const id of long) expect(table).toContain(id);

    // A prefix that only one session has, and one several have.
    const unique = long.map((id) => id.slice(0, 8)).find((p) => ids.filter((s) => s.startsWith(p)).length === 1)!;
    const full = ids.find((s) => s.startsWith(unique))!;
    const byId = ok(['explain', full, '--format', 'json']).stdout;
    expect(ok(['explain', unique, '--format', 'json']).stdout).toBe(byId);
    expect(ok(['explain', `${full.slice(0, 5)}…${full.slice(-5)}`, '--format', 'json']).stdout).toBe(byId);
    const shared = [...new Set(ids.map((s) => s.slice(0, 1)))].find(
      (p) => ids.filter((s) => s.startsWith(p)).length > 1,
    )!;
    const amb = runCli(['explain', shared], env);
    expect(amb.status).toBe(2);
    for (const id of ids.filter((s) => s.startsWith(shared)).slice(0, 10)) expect(amb.stderr).toContain(id);
    expect(amb.stderr).toMatch(/sessions match .*give more of the id/);
  });
});

describe('2. warnings', () => {
  const FILE_WARNING = /unparsable line skipped/;
  const PRICE_NOTE = /has no price entry of its own|no price for model/;

  it('a window none of the warned files or models has responses in shows none of their warnings', () => {
    const wide = reportJson(ALL_RANGE, env).warnings.join('\n');
    expect(wide).toMatch(FILE_WARNING);
    expect(wide).toMatch(PRICE_NOTE);
    const empty = reportJson(['--since', '2020-01-01', '--until', '2020-01-31'], env).warnings.join('\n');
    expect(empty).not.toMatch(FILE_WARNING);
    expect(empty).not.toMatch(PRICE_NOTE);
    // The blocks report shows Claude Code's blocks: other harnesses' price notes are not its.
    const blocks = reportJson(['blocks', ...ALL_RANGE], env).warnings.join('\n');
    expect(blocks).not.toMatch(/\((qwen-code|cline|droid|antigravity)\)|antigravity response/);
  });

  it("a file's warning is said on stderr once, then only in sources (JSON and HTML keep it; HTML folds them)", () => {
    const own = cleanEnv(all.home, { XDG_CACHE_HOME: tempDir('txu-week1-cache-') });
    const first = ok(['report', ...ALL_RANGE], own).stderr;
    expect(first).toMatch(FILE_WARNING);
    for (const args of [[...ALL_RANGE], [...ALL_RANGE, '--by', 'model']]) {
      const again = ok(['report', ...args], own).stderr;
      expect(again).not.toMatch(FILE_WARNING);
      expect(again).toMatch(PRICE_NOTE); // not a file's: said every time
    }
    expect(reportJson([...ALL_RANGE, '--by', 'harness'], own).warnings.join('\n')).toMatch(FILE_WARNING);
    expect(ok(['sources'], own).stdout).toMatch(FILE_WARNING);
    const html = ok(['report', ...ALL_RANGE, '--format', 'html'], own).stdout;
    expect(html).toMatch(
      /<section class="notice warn"><details><summary><strong>\d+ warnings<\/strong>[^<]*<\/summary><ul><li>/,
    );
  });
});

describe('11, 14: the empty home, -v and -q', () => {
  it('an empty home: three lines on stderr, nothing on stdout, exit 0', () => {
    const home = join(tempDir('txu-week1-empty-'), 'home');
    mkdirSync(home);
    const r = runCli(['report'], cleanEnv(home));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^No harness data found/);
    expect(lines[1]).toContain('`tx-usage sources`');
    expect(lines[2]).toContain('--demo');
    expect(r.stderr).not.toMatch(/missing/);
  });

  it('-v and --version print the version; -q silences warnings before or after the command', () => {
    const version = JSON.parse(readFileSync(resolve(__dirname, '../..', 'package.json'), 'utf8')).version;
    for (const v of ['-v', '--version']) expect(ok([v]).stdout).toBe(`${version}\n`);
    const loud = ok(['report', ...ALL_RANGE]);
    expect(loud.stderr).toMatch(/warning: /);
    for (const args of [
      ['-q', 'report', ...ALL_RANGE],
      ['report', ...ALL_RANGE, '-q'],
    ]) {
      const quiet = ok(args);
      expect(quiet.stderr).toBe('');
      expect(quiet.stdout).toBe(loud.stdout);
    }
  });
});

describe('15. the sql example', () => {
  it("README's sql example sums requests, as the reports count them", () => {
    const readme = readFileSync(resolve(__dirname, '../..', 'README.md'), 'utf8');
    const example = /tx-usage sql "(SELECT harness, [^"]+)"/.exec(readme)![1]!;
    expect(example).toContain('sum(requests)');
    const rows = JSON.parse(ok(['sql', '--format', 'json', example]).stdout) as { harness: string; requests: number }[];
    const byHarness = reportJson([...ALL_RANGE, '--by', 'harness'], env).rows;
    for (const r of byHarness) expect(rows.find((x) => x.harness === r.harness)?.requests, r.harness).toBe(r.requests);
    // count(*) is what it said before: more than the requests where cost-only rows exist.
    const counted = JSON.parse(
      ok(['sql', '--format', 'json', "SELECT count(*) AS n, sum(requests) AS r FROM usage WHERE harness = 'opencode'"])
        .stdout,
    )[0];
    expect(counted.n).toBeGreaterThan(counted.r);
    expect(readFileSync(resolve(__dirname, '../..', 'docs/sql.md'), 'utf8')).toMatch(
      /\*\*What a row is\.\*\*[\s\S]*cost-only rows[\s\S]*`grain`/,
    );
  });
});
