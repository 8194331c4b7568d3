// `tx-usage import cursor-usage` end to end through the compiled CLI: every
// header generation reaches the reports with its hand-computed totals; the
// same file, an overlapping later export and a re-downloaded copy never count
// a row twice; copies survive --rebuild; --list and --remove manage them (and
// removing takes the rows); bad files are refused whole with file, line and
// column (exit 2); and the `cursor` section lines billed days up with local chats.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badCsvs } from '../../fixtures/cursor-usage/bad.js';
import {
  EXPECTED,
  GENERATIONS,
  ROWS,
  usageCsv,
  type Generation,
  type UsageRow,
} from '../../fixtures/cursor-usage/build.js';
import { buildCursorHome, type CursorFixture } from '../../fixtures/cursor-agent/home.js';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { CLI, cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-11-01', '--until', '2026-11-30'];
const homes: string[] = [];

function home(prefix: string): {
  home: string;
  env: NodeJS.ProcessEnv;
  importDir: string;
  file: (name: string, bytes: Buffer) => string;
} {
  const h = tempDir(`txu-import-${prefix}-`);
  homes.push(h);
  mkdirSync(join(h, 'Downloads'));
  return {
    home: h,
    env: cleanEnv(h),
    importDir: join(h, '.cache', 'tx-usage', 'imports', 'cursor-usage'),
    file: (name, bytes) => {
      const p = join(h, 'Downloads', name);
      writeFileSync(p, bytes);
      return p;
    },
  };
}

function importJson(args: string[], env: NodeJS.ProcessEnv): any {
  const r = runCli(['import', ...args, '--format', 'json'], env);
  if (r.status !== 0) throw new Error(`import exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const cursorTotals = (env: NodeJS.ProcessEnv, extra: string[] = []) =>
  reportJson([...RANGE, '--by', 'day', '--harness', 'cursor-agent', ...extra], env);

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build first: ${CLI} missing`);
});

afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

describe('every header generation', () => {
  for (const g of Object.keys(GENERATIONS) as Generation[]) {
    it(`${g}: imported, then reported per day with the hand-computed totals`, () => {
      const t = home(g);
      const src = t.file(`usage-events-${g}.csv`, usageCsv(g));
      const j = importJson(['cursor-usage', src], t.env);
      expect(j.errors).toEqual([]);
      expect(j.imports).toMatchObject([
        {
          file: src,
          status: 'imported',
          rows: 6,
          billed_rows: 5,
          rows_without_usage: 1,
          first_day: '2026-11-03',
          last_day: '2026-11-05',
          billed_events: 5,
          also_in_other_imports: 0,
        },
      ]);
      const e = EXPECTED[g];
      const r = cursorTotals(t.env);
      expect(r.rows.map((x: any) => [x.day, x.requests])).toEqual(Object.entries(e.perDay));
      expect(r.totals).toMatchObject({
        requests: e.billed,
        input_tokens: e.input,
        cache_write_tokens: e.cacheWrite,
        cache_read_tokens: e.cacheRead,
        output_tokens: e.output,
        total_tokens: e.input + e.cacheWrite + e.cacheRead + e.output,
        recorded_cost_usd: e.recordedCost,
      });
      // composer-1 has no price: where the export states no cost for it either (v3's "Included", no Cost
      // column), it is named and its cost is unknown rather than $0.
      if (g === 'v3' || g === 'requests') expect(r.warnings.join('\n')).toMatch(/composer-1/);
    });
  }
});

describe('overlap, re-import, --list, --rebuild, --remove', () => {
  const t = home('overlap');
  const older = ROWS.slice(0, 4); // rows 1-4 (row 4 errored)
  const later = ROWS.slice(1); // rows 2-6: overlaps rows 2-4
  let a: string, b: string, c: string;
  const originals = new Map<string, string>();
  const snap = (p: string) => `${readFileSync(p).toString('base64')}:${statSync(p).mtimeMs}`;

  beforeAll(() => {
    a = t.file('usage-events-2026-11-04.csv', usageCsv('v2', older));
    b = t.file('usage-events-2026-11-06.csv', usageCsv('v3', later, { bom: true, eol: '\r\n' }));
    c = t.file('usage-events-2026-11-06 (1).csv', usageCsv('requests', ROWS, { quoteAll: false }));
    for (const p of [a, b, c]) originals.set(p, snap(p));
  });

  it('an export imported twice is kept once', () => {
    expect(importJson(['cursor-usage', a], t.env).imports[0]).toMatchObject({ status: 'imported', billed_events: 3 });
    expect(importJson(['cursor-usage', a], t.env).imports[0]).toMatchObject({
      status: 'already imported',
      billed_events: 3,
    });
    expect(readdirSync(t.importDir).filter((n) => n.endsWith('.csv'))).toHaveLength(1);
    expect(cursorTotals(t.env).totals.requests).toBe(3);
  });

  it('an overlapping later export adds only its new rows', () => {
    const j = importJson(['cursor-usage', b], t.env);
    // Rows 2, 3, 5, 6 are billed in it; 2 and 3 (identical to the millisecond) were imported with the older export.
    expect(j.imports[0]).toMatchObject({ status: 'imported', billed_events: 4, also_in_other_imports: 2 });
    const r = cursorTotals(t.env);
    expect(r.totals).toMatchObject({
      requests: 5,
      input_tokens: EXPECTED.v3.input,
      cache_read_tokens: EXPECTED.v3.cacheRead,
      cache_write_tokens: EXPECTED.v3.cacheWrite,
      output_tokens: EXPECTED.v3.output,
    });
    // The row stating a dollar cost wins over one saying "Included": 0.05 (row 1, older) + 0.42 + 0.42 + 3.75 = 4.64.
    expect(r.totals.recorded_cost_usd).toBe(4.64);
  });

  it('a re-downloaded copy in another generation (no Cost, unquoted) counts nothing twice', () => {
    const j = importJson(['cursor-usage', join(t.home, 'Downloads', '*(1).csv')], t.env);
    expect(j.imports[0]).toMatchObject({ file: c, status: 'imported', billed_events: 5, also_in_other_imports: 5 });
    const r = cursorTotals(t.env);
    expect(r.totals).toMatchObject({
      requests: 5,
      total_tokens: EXPECTED.v3.input + EXPECTED.v3.cacheRead + EXPECTED.v3.cacheWrite + EXPECTED.v3.output,
      recorded_cost_usd: 4.64,
    });
  });

  it('--list shows each import with its rows and days', () => {
    const l = importJson(['--list'], t.env).imports;
    expect(l.map((x: any) => [x.file, x.rows, x.first_day, x.last_day, x.problem])).toEqual([
      ['usage-events-2026-11-04.csv', 4, '2026-11-03', '2026-11-04', null],
      ['usage-events-2026-11-06.csv', 5, '2026-11-03', '2026-11-05', null],
      ['usage-events-2026-11-06 (1).csv', 6, '2026-11-03', '2026-11-05', null],
    ]);
    const text = runCli(['import', '--list'], t.env);
    expect(text.status).toBe(0);
    for (const x of l) expect(text.stdout).toContain(x.id);
  });

  it('--rebuild discards the store, not the imports', () => {
    expect(cursorTotals(t.env, ['--rebuild']).totals.requests).toBe(5);
    expect(readdirSync(t.importDir).filter((n) => n.endsWith('.csv'))).toHaveLength(3);
  });

  it('--remove takes an import and its rows (by id, or by the file imported)', async () => {
    const l = importJson(['--list'], t.env).imports;
    const idB = l.find((x: any) => x.file === 'usage-events-2026-11-06.csv').id;
    // Read straight from the store file: no command in between that could ingest (and drop rows of a gone source itself).
    const rowsOfB = async () => {
      const inst = await DuckDBInstance.create(join(t.home, '.cache', 'tx-usage', 'usage.duckdb'), {
        access_mode: 'READ_ONLY',
      });
      try {
        const conn = await inst.connect();
        const r = await conn.runAndReadAll(
          `SELECT count(*)::INTEGER AS n FROM usage_events WHERE source_key LIKE '%${idB}%'`,
        );
        conn.closeSync();
        return Number((r.getRowObjectsJson()[0] as { n: number }).n);
      } finally {
        inst.closeSync();
      }
    };
    expect(await rowsOfB()).toBe(4);
    const r1 = runCli(['import', '--remove', idB.slice(0, 6)], t.env);
    expect(r1.status).toBe(0);
    expect(r1.stdout).toContain(`removed ${idB}`);
    // The store no longer holds its rows, whether or not a later ingest would drop them.
    expect(await rowsOfB()).toBe(0);
    expect(cursorTotals(t.env).totals.requests).toBe(5); // the re-downloaded copy has them all

    expect(runCli(['import', '--remove', c], t.env).status).toBe(0);
    const r = cursorTotals(t.env);
    expect(r.totals).toMatchObject({ requests: 3, recorded_cost_usd: 0.89 }); // older export only: 0.05 + 0.42 + 0.42
    expect(importJson(['--list'], t.env).imports.map((x: any) => x.file)).toEqual(['usage-events-2026-11-04.csv']);
    expect(readdirSync(t.importDir).sort()).toEqual(
      l
        .filter((x: any) => x.file === 'usage-events-2026-11-04.csv')
        .flatMap((x: any) => [`${x.id}.csv`, `${x.id}.json`]),
    );
  });

  it('refuses to remove what is not an import (exit 2)', () => {
    expect(runCli(['import', '--remove', 'ffffffff'], t.env)).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/no such import/),
    });
    expect(runCli(['import', '--remove', b], t.env)).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/not imported/),
    });
  });

  it("never writes the user's files", () => {
    for (const [p, s] of originals) expect(snap(p)).toBe(s);
  });
});

describe('bad input', () => {
  const t = home('bad');

  for (const bad of badCsvs()) {
    it(`${bad.name}: exit 2 naming ${'file:line:column'}, nothing imported`, () => {
      const p = t.file(`${bad.name.replace(/[^a-z0-9]+/gi, '-')}.csv`, bad.bytes);
      const r = runCli(['import', 'cursor-usage', p], t.env);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`${p}:${bad.line}:${bad.column}: `);
      expect(r.stderr).toMatch(bad.message);
      expect(r.stderr).toMatch(/nothing imported from this file/);
      expect(existsSync(t.importDir) ? readdirSync(t.importDir) : []).toEqual([]);
    });
  }

  it('a good file beside a bad one is imported; the bad one is not (exit 2)', () => {
    const good = t.file('good.csv', usageCsv('v3'));
    const bad = t.file('bad.csv', badCsvs()[0]!.bytes);
    const r = runCli(['import', 'cursor-usage', good, bad], t.env);
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/^imported .*good\.csv as [0-9a-f]{16}: 6 rows/);
    expect(r.stderr).toContain(`${bad}:1:`);
    expect(cursorTotals(t.env).totals.requests).toBe(5);
    expect(readdirSync(t.importDir).filter((n) => n.endsWith('.csv'))).toHaveLength(1);
  });

  it('usage errors: no kind, an unknown kind, no file, a missing file, a glob matching nothing', () => {
    for (const args of [
      ['import'],
      ['import', 'claude-usage', 'x.csv'],
      ['import', 'cursor-usage'],
      ['import', 'cursor-usage', join(t.home, 'nope.csv')],
      ['import', 'cursor-usage', join(t.home, '*.nothing')],
    ]) {
      const r = runCli(args, t.env);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^tx-usage: /);
    }
  });
});

describe('the cursor section: billed days beside local chats', () => {
  const t = home('reconcile');
  let fx: CursorFixture;
  const row = (date: string): UsageRow => ({
    date,
    kind: 'On-Demand',
    model: 'gpt-5',
    maxMode: false,
    cacheWrite: 0,
    input: 10,
    cacheRead: 0,
    output: 5,
    cost: 0.01,
    requests: 1,
  });
  /** The fixture's chats active on `day`, and the turns of those last active that day (UTC), from the builder's own rows. */
  const local = (day: string) => {
    const rows = fx.chats.flatMap((c) => c.rows).filter((r) => (r.last_ts ?? r.first_ts) !== null);
    const d = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const active = rows.filter((r) => d((r.first_ts ?? r.last_ts)!) <= day && day <= d((r.last_ts ?? r.first_ts)!));
    return {
      chats: active.length,
      turns: active.filter((r) => d((r.last_ts ?? r.first_ts)!) === day).reduce((n, r) => n + r.turns, 0),
    };
  };

  beforeAll(() => {
    fx = buildCursorHome(t.home);
    t.env = cleanEnv(t.home);
  });

  it('local chats on a day no import covers are named as not imported', () => {
    importJson(['cursor-usage', t.file('nov-3-5.csv', usageCsv('v3'))], t.env);
    const c = reportJson(['compare', ...RANGE], t.env).cursor;
    const localDays = [
      ...new Set(
        fx.chats
          .flatMap((x) => x.rows)
          .flatMap((r) => [r.first_ts, r.last_ts])
          .filter((x): x is number => x !== null)
          .map((ms) => new Date(ms).toISOString().slice(0, 10)),
      ),
    ];
    expect(localDays).toEqual(['2026-11-20']); // the fixture's chats all live on one day
    expect(
      c.days.map((d: any) => [
        d.day,
        d.billed_rows,
        d.included_rows,
        d.usage_based_rows,
        d.local_chats,
        d.local_turns,
        d.status,
      ]),
    ).toEqual([
      ['2026-11-03', 3, 1, 2, 0, 0, 'billed, no local chats'],
      ['2026-11-05', 2, 1, 1, 0, 0, 'billed, no local chats'],
      ['2026-11-20', 0, 0, 0, local('2026-11-20').chats, local('2026-11-20').turns, 'local, not imported'],
    ]);
    expect(local('2026-11-20').turns).toBeGreaterThan(0);
    expect(c.days_not_imported).toEqual(['2026-11-20']);
    expect(c.notes.join('\n')).toMatch(/no import covers \(2026-11-20\)/);
  });

  it('a day inside an import with no billed rows, then a billed day with local chats', () => {
    importJson(
      [
        'cursor-usage',
        t.file('nov-19-21.csv', usageCsv('v3', [row('2026-11-19T10:00:00.000Z'), row('2026-11-21T10:00:00.000Z')])),
      ],
      t.env,
    );
    let c = reportJson(['compare', ...RANGE], t.env).cursor;
    expect(c.days.find((d: any) => d.day === '2026-11-20')).toMatchObject({
      billed_rows: 0,
      in_import: true,
      status: 'local, none billed',
    });
    expect(c.days_not_imported).toEqual([]);

    importJson(['cursor-usage', t.file('nov-20.csv', usageCsv('v3', [row('2026-11-20T12:00:00.000Z')]))], t.env);
    c = reportJson(['compare', ...RANGE], t.env).cursor;
    expect(c.days.find((d: any) => d.day === '2026-11-20')).toMatchObject({
      billed_rows: 1,
      cost_usd: 0.01,
      local_chats: local('2026-11-20').chats,
      status: 'billed',
    });

    // `sources` lines up the same days over the whole history.
    const s = JSON.parse(runCli(['sources', '--format', 'json'], t.env).stdout);
    expect(s.cursor.days.map((d: any) => [d.day, d.status])).toEqual(c.days.map((d: any) => [d.day, d.status]));
    const text = runCli(['sources'], t.env).stdout;
    expect(text).toMatch(
      /Cursor: billed usage \(imported\) beside local chats\n {2}billed days: 5 \(2026-11-03, 2026-11-05, 2026-11-19\.\.2026-11-21\), 8 billed rows/,
    );
  });

  it('report compare names the section in its table', () => {
    const r = runCli(['report', 'compare', ...RANGE], t.env);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Cursor: billed usage (imported) beside local chats, per day');
  });
});

describe('compare with only imported Cursor usage', () => {
  it('cursor-agent keeps its billed row; no per-prompt table of dashes, a note instead', () => {
    const t = home('only');
    importJson(['cursor-usage', t.file('usage.csv', usageCsv('v3'))], t.env);
    const j = reportJson(['compare', ...RANGE], t.env);
    expect(j.harnesses.map((h: any) => [h.harness, h.billed_usage, h.prompts])).toEqual([['cursor-agent', true, 0]]);
    const r = runCli(['report', 'compare', ...RANGE], t.env);
    expect(r.status, r.stderr).toBe(0);
    // No harness has prompts: no per-prompt tables (they would read "no usage"), the first table says why.
    expect(r.stdout).not.toContain('Per prompt, per harness');
    const first = r.stdout.slice(0, r.stdout.indexOf('\n\n'));
    expect(first).toContain('cursor-agent: no prompts recorded in this period, so no per-prompt figures.');
  });
});

describe('imports in the ingest', () => {
  it("a new project elsewhere re-reads Cursor's chats, not the imported CSVs (their rows name no project)", () => {
    const t = home('ingest');
    buildCursorHome(t.home);
    const claude = new ClaudeHome(join(t.home, '.claude'));
    const session = (cwd: string) => {
      const s = claude.session({ cwd });
      s.user('2026-11-20T08:00:00.000Z');
      s.response({ ts: '2026-11-20T08:00:05.000Z', usage: { input: 100, output: 50 } });
    };
    session('/home/user/first');
    importJson(['cursor-usage', t.file('u.csv', usageCsv('v3'))], t.env);
    const chats = readdirSync(join(t.home, '.cursor', 'chats'), { recursive: true }).filter((p) =>
      String(p).endsWith('store.db'),
    ).length;
    expect(chats).toBeGreaterThan(0);
    session('/home/user/second');
    const r = runCli(['ingest'], t.env);
    expect(r.status).toBe(0);
    // Read: the new transcript and the chat stores (their projects resolve through the new cwd); not the CSV.
    const [, read] = /(\d+) read/.exec(r.stdout)!;
    expect(Number(read)).toBe(1 + chats + acpStores(t.home));
  });
});

function acpStores(h: string): number {
  const dir = join(h, '.cursor', 'acp-sessions');
  return existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(join(dir, d, 'store.db'))).length : 0;
}
