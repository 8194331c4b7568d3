// `tx-usage explain` through the compiled CLI, on a home holding every
// harness's fixture files (fixtures/explain-home.ts): every file is
// explained, and what explain says each file, session and harness adds is
// what the report and the store say; the records a user asks about carry the
// labels and README rule names worked out by hand below; a window marks what
// is outside it; bad arguments are usage errors naming them; and the command
// knows no harness (it works through the registry for harnesses added later).
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_KEYS } from '../../fixtures/all-harnesses.js';
import { buildExplainHome, EXPLAINED_CWD, FORK_SESSION, type ExplainHome } from '../../fixtures/explain-home.js';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { HARNESS_IDS } from '../../src/core/types.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

/** Wider than every fixture's dates: the report counts all of it, as explain without a window does. */
const EVERYTHING = ['--since', '2020-01-01', '--until', '2030-12-31'];
const COST_FIELDS = ['cost_usd', 'computed_cost_usd', 'recorded_cost_usd'] as const;
const EXACT_FIELDS = [...METRIC_KEYS, 'unpriced_requests', 'unpriced_tokens'] as const;

let fx: ExplainHome;
let env: NodeJS.ProcessEnv;
/** `explain HOME --format json`: every source under the home. */
let all: any;
/** `sources --format json`. */
let sources: any;

function cli(args: string[]): string {
  const r = runCli(args, env);
  if (r.status !== 0) throw new Error(`tx-usage ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}
const explainJson = (args: string[]) => JSON.parse(cli(['explain', ...args, '--format', 'json']));

/** Sums sections' totals: counts exactly, costs as numbers (each section's own are exact). */
function sumTotals(list: any[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of [...EXACT_FIELDS, ...COST_FIELDS]) out[k] = list.reduce((n, s) => n + (s.totals[k] ?? 0), 0);
  return out;
}

function expectSameMetrics(got: Record<string, number>, want: Record<string, any>, label: string): void {
  for (const k of EXACT_FIELDS) expect(got[k], `${label}: ${k}`).toBe(want[k]);
  for (const k of COST_FIELDS) expect(got[k], `${label}: ${k}`).toBeCloseTo(want[k] ?? 0, 9);
}

beforeAll(() => {
  const outside = tempDir('txu-explain-out-');
  fx = buildExplainHome(tempDir('txu-explain-'), outside);
  env = cleanEnv(fx.home);
  cli(['import', 'cursor-usage', fx.cursorCsv]);
  sources = JSON.parse(cli(['sources', '--format', 'json']));
  all = explainJson([fx.home]);
});

afterAll(() => fx?.close());

describe('every fixture file of every harness', () => {
  it('explains every source tx-usage reads, of all five harnesses', () => {
    const files = sources.harnesses.flatMap((h: any) => h.sources.map((s: any) => s.path)).sort();
    expect(all.sources.map((s: any) => s.path).sort()).toEqual(files);
    expect(new Set(all.sources.map((s: any) => s.harness))).toEqual(new Set(HARNESS_IDS));
    // The imported Cursor usage export is among them: five billed rows; the errored row without
    // usage (the third event, newest first as the dashboard writes them: line 4) is not counted.
    const csv = all.sources.find((s: any) => s.kind === 'csv');
    expect(csv.totals.requests).toBe(5);
    expect(csv.records.filter((r: any) => r.record === 'skipped').map((r: any) => r.line)).toEqual([4]);
  });

  it("each file's totals are the store's billed rows of that file", () => {
    const rows = JSON.parse(
      cli([
        'sql',
        `SELECT source_file, sum(requests) AS requests, sum(input_tokens) AS input_tokens, sum(cache_read_tokens) AS cache_read_tokens,
                sum(cache_write_tokens) AS cache_write_tokens, sum(output_tokens) AS output_tokens, sum(reasoning_tokens) AS reasoning_tokens,
                sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens) AS total_tokens,
                sum(coalesce(recorded_cost_e10, computed_cost_e10)) AS cost_e10
         FROM billed_events GROUP BY source_file`,
        '--format',
        'json',
      ]),
    ) as any[];
    const byFile = new Map(rows.map((r) => [r.source_file, r]));
    let withUsage = 0;
    for (const s of all.sources) {
      const want = byFile.get(s.path);
      if (!want) {
        // No billed row in the store: nothing added (Cursor chats, Codex thread names, files whose every response is counted elsewhere).
        expect(s.totals.total_tokens, s.path).toBe(0);
        expect(s.totals.requests, s.path).toBe(0);
        continue;
      }
      withUsage++;
      for (const k of METRIC_KEYS) expect(s.totals[k], `${s.path}: ${k}`).toBe(Number(want[k]));
      expect(s.totals.cost_usd, s.path).toBeCloseTo(Number(want.cost_e10) / 1e10, 10);
    }
    expect(withUsage).toBe(rows.length);
  });

  it("the sum over a harness's files is the report's row for that harness, and the sum of all is the report's total", () => {
    const report = reportJson([...EVERYTHING, '--by', 'harness'], env);
    for (const row of report.rows) {
      const of = all.sources.filter((s: any) => s.harness === row.harness);
      expectSameMetrics(sumTotals(of), row, row.harness);
    }
    // Every harness tx-usage reads has fixture files in this home (fixtures/all-harnesses.ts), so every one is explained.
    expect(report.rows.map((r: any) => r.harness).sort()).toEqual([...HARNESS_IDS].sort());
    // explain's own total is summed as the report sums it: every field the same.
    expect(all.totals).toEqual(report.totals);
  });

  it("explaining a session id gives that session's row of report --by session", () => {
    const report = reportJson([...EVERYTHING, '--by', 'session'], env);
    // Every session's row is there (rows once went missing where a Cursor chat's context row stood, report/session-view.ts).
    expect(report.rows.reduce((n: number, r: any) => n + r.requests, 0)).toBe(report.totals.requests);
    const sessions = report.rows.map((r: any) => r.session);
    expect(sessions.length).toBeGreaterThan(20);
    const doc = explainJson(sessions);
    for (const row of report.rows) {
      const of = doc.sources.filter((s: any) => s.session_id === row.session);
      expect(of.length, row.session).toBeGreaterThan(0);
      expectSameMetrics(sumTotals(of), row, `session ${row.session}`);
    }
    expect(doc.totals).toEqual(report.totals);
  });
});

describe('what a record was counted as, by hand', () => {
  const section = (file: string) => all.sources.find((s: any) => s.path === file);
  const at = (file: string, line: number) => section(file).records.filter((r: any) => r.line === line);

  it('split lines, the largest one counted, a synthetic error, an unparsable line', () => {
    const f = fx.claude.file;
    // Lines 2 and 3 carry the placeholder usage (1 input + 1 output); line 4 the final 40 + 2000 + 60.
    expect(at(f, 2)).toMatchObject([
      {
        record: 'split line',
        counted: false,
        counted_as: 'split line of line 4',
        rule: 'Largest usage wins',
        record_tokens: 2,
        total_tokens: 0,
        key: `msg:${fx.claude.response}`,
      },
    ]);
    expect(at(f, 3)).toMatchObject([
      {
        record: 'split line',
        counted: false,
        counted_as: 'split line of line 4',
        rule: 'One response, one count',
        record_tokens: 2,
      },
    ]);
    expect(at(f, 4)).toMatchObject([
      {
        record: 'usage',
        counted: true,
        counted_as: 'response of claude-opus-5-5',
        rule: 'One response, one count',
        requests: 1,
        input_tokens: 40,
        cache_read_tokens: 2000,
        output_tokens: 60,
        total_tokens: 2100,
      },
    ]);
    expect(at(f, 5)).toMatchObject([
      {
        record: 'skipped',
        counted: false,
        counted_as: 'not counted',
        rule: 'synthetic API-error message (not billed)',
      },
    ]);
    // Once, as the record at its line: not again as the reader's per-file count ("1 unparsable line skipped").
    expect(at(f, 6)).toMatchObject([
      { record: 'unparsable', counted: false, counted_as: 'unparsable', rule: 'Bad input' },
    ]);
    expect(at(f, 7)).toMatchObject([
      { record: 'usage', counted: true, total_tokens: 11, key: `msg:${fx.claude.late}` },
    ]);
    // Two responses: 2100 + 11 tokens.
    expect(section(f).totals).toMatchObject({
      requests: 2,
      total_tokens: 2111,
      input_tokens: 45,
      output_tokens: 66,
      cache_read_tokens: 2000,
    });
  });

  it("a /branch copy is the original session's response, counted in the original file", () => {
    expect(at(fx.fork.file, 1)).toMatchObject([
      {
        record: 'usage',
        counted: false,
        rule: 'Forks',
        counted_as: `copy of ${fx.claude.session}'s response, counted in ${basename(fx.claude.file)}:4`,
        counted_at: { path: fx.claude.file, line: 4, session_id: fx.claude.session },
        record_tokens: 2100,
        total_tokens: 0,
        cost_usd: 0,
        cost_source: null,
      },
    ]);
    expect(at(fx.fork.file, 2)).toMatchObject([{ counted: true, total_tokens: 15, session_id: FORK_SESSION }]);
    expect(section(fx.fork.file).totals).toMatchObject({ requests: 1, total_tokens: 15 });
  });

  it('a window marks what is outside it, and its totals are the same window of the report', () => {
    const doc = explainJson([fx.claude.file, fx.fork.file, '--since', '2026-10-06', '--until', '2026-10-06']);
    expect(doc.since).toBe('2026-10-06');
    const records = doc.sources[0].records;
    expect(records.find((r: any) => r.line === 4)).toMatchObject({
      counted: false,
      counted_as: 'outside the window (2026-10-05)',
      total_tokens: 0,
    });
    expect(records.find((r: any) => r.line === 7)).toMatchObject({ counted: true, total_tokens: 11 });
    expect(doc.sources[1].records.find((r: any) => r.line === 2)).toMatchObject({
      counted: false,
      counted_as: 'outside the window (2026-10-07)',
    });
    const report = reportJson(
      ['--since', '2026-10-06', '--until', '2026-10-06', '--harness', 'claude-code', '--project', EXPLAINED_CWD],
      env,
    );
    expect(doc.totals).toEqual(report.totals);
    expect(doc.totals.total_tokens).toBe(11);
  });

  it('--cost as in report: computed prices instead of the costs Pi and OpenCode recorded', () => {
    const dirs = [join(fx.home, '.pi'), join(fx.home, '.local/share/opencode')];
    const doc = explainJson([...dirs, '--cost', 'computed']);
    expect(doc.cost_mode).toBe('computed');
    const report = reportJson([...EVERYTHING, '--cost', 'computed', '--harness', 'pi,opencode'], env);
    expect(doc.totals).toEqual(report.totals);
    // Under auto the same records cost what the harnesses recorded: another sum.
    expect(doc.totals.cost_usd).not.toBeCloseTo(
      sumTotals(all.sources.filter((s: any) => s.harness === 'pi' || s.harness === 'opencode')).cost_usd,
      2,
    );
  });

  it('an unparsable line is listed once, in JSON and in the table; reports keep their warning for it', () => {
    const f = fx.claude.file;
    const doc = explainJson([f]);
    const bad = doc.sources[0].records.filter(
      (r: any) => r.line === 6 || /unparsable/.test(`${r.record} ${r.counted_as} ${r.rule}`),
    );
    expect(bad).toMatchObject([{ line: 6, record: 'unparsable', rule: 'Bad input' }]);
    expect(JSON.stringify(doc)).not.toMatch(/unparsable lines? skipped/);
    const table = cli(['explain', f]);
    expect(table.split('\n').filter((l) => /^6 /.test(l))).toEqual([
      expect.stringMatching(/^6 +unparsable: Bad input *$/),
    ]);
    expect(table.match(/unparsable/g)).toHaveLength(1);
    // The report path is unchanged: one warning per file with the count, naming file and line.
    expect(reportJson(EVERYTHING, env).warnings).toContain(`${f}:6: 1 unparsable line skipped (first at line 6)`);
  });

  it('a table and a CSV say the same', () => {
    const table = cli(['explain', fx.claude.file]);
    expect(table).toContain('split line of line 4');
    expect(table).toContain('synthetic API-error');
    expect(table).toMatch(/^Total .* 2\.11k /m);
    const csv = cli(['explain', fx.claude.file, '--format', 'csv']).trimEnd().split('\r\n');
    expect(csv[0]!.split(',').slice(0, 9)).toEqual([
      'path',
      'harness',
      'line',
      'row',
      'key',
      'record',
      'counted',
      'counted_as',
      'rule',
    ]);
    expect(csv.length - 1).toBe(section(fx.claude.file).records.length);
  });
});

/** The text of every table's Verdict column, read down the column (between its header and the next one), spaces squeezed. */
function verdictColumn(text: string): string {
  const cells: string[] = [];
  let at: [number, number] | null = null;
  for (const line of text.split('\n')) {
    const header = /Verdict +/.exec(line);
    if (header && /^\s*Line\b/.test(line)) {
      at = [header.index, header.index + header[0].length];
      continue;
    }
    if (at && /^[─\s]*$/.test(line) === false && !/^Total\b/.test(line)) cells.push(line.slice(at[0], at[1]));
  }
  return cells.join(' ').replace(/\s+/g, ' ');
}

describe('verdicts and prices (issue 44)', () => {
  it('at 80 columns a verdict is wrapped, never cut; every harness in one style, verdict first', () => {
    const table = cli(['explain', fx.fork.file]);
    expect(table).not.toContain('…');
    for (const l of table.split('\n').slice(1)) expect(l.length).toBeLessThanOrEqual(80); // (the title, a path, is never cut)
    // The copy's verdict, whole, over as many lines as it takes (read down its column: the other cells of
    // its row sit beside its first lines).
    const words = verdictColumn(table);
    expect(words).toContain(`copy of ${fx.claude.session}'s response,`);
    expect(words).toContain(`; rule "Forks"`);
    // Claude Code's rules and Codex's read the same way: the verdict, then the README's rule.
    const everything = verdictColumn(cli(['explain', fx.home]));
    expect(everything).toMatch(/response of \S+; rule "One response, one count"/);
    expect(everything).toMatch(/response of \S+; rule "(event_msg token_count|token_usage_record)"/);
  });

  it('JSON: a price breakdown per counted record, rate × tokens per category adding up to its computed cost', () => {
    const doc = explainJson([fx.claude.file, '--cost', 'computed']);
    const counted = doc.sources[0].records.filter((r: any) => r.counted && r.computed_cost_usd !== null);
    expect(counted.length).toBeGreaterThan(0);
    for (const r of counted) {
      const b = r.price_breakdown;
      expect(b, `line ${r.line}`).not.toBeNull();
      for (const c of b.categories) expect(c.usd).toBeCloseTo((c.tokens * c.usd_per_mtok) / 1e6, 10);
      const byCategory = Object.fromEntries(b.categories.map((c: any) => [c.category, c.tokens]));
      expect(byCategory.output ?? 0).toBe(r.output_tokens - (byCategory.output_reasoning ?? 0));
      expect(b.sum_usd).toBeCloseTo(r.computed_cost_usd, 9);
    }
    // Records that added nothing have none; the documented fields are unchanged (price_breakdown is added after them).
    for (const r of doc.sources[0].records.filter((x: any) => !x.counted)) expect(r.price_breakdown).toBeNull();
    expect(Object.keys(counted[0]).slice(0, 3)).toEqual(['line', 'row', 'key']);
    expect(Object.keys(counted[0]).at(-1)).toBe('price_breakdown');
  });
});

describe('a file that is gone', () => {
  it('lists the rows the store keeps of it (retained), counted as the report counts them', () => {
    const home = tempDir('txu-explain-gone-');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: '/home/user/gone' });
    s.user('2026-10-08T09:00:00.000Z');
    s.response({ ts: '2026-10-08T09:01:00.000Z', splits: 2, usage: { input: 3, output: 4, cacheRead: 100 } });
    const own = cleanEnv(home);
    expect(runCli(['ingest'], own).status).toBe(0);
    rmSync(s.file);
    const r = runCli(['explain', s.file, '--format', 'json'], own);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.sources).toHaveLength(1);
    // Not read again: the stored row of the response (the first split line, equal usage), without a rule name.
    expect(doc.sources[0]).toMatchObject({ retained: true, path: s.file });
    expect(doc.sources[0].records).toMatchObject([
      { record: 'stored', line: 2, counted: true, rule: null, total_tokens: 107 },
    ]);
    expect(doc.totals).toEqual(reportJson(EVERYTHING, own).totals);
  });
});

describe('usage errors', () => {
  it('names the argument that is no source and no session, and the bad flag (exit 2)', () => {
    const nothing = runCli(['explain', 'no-such-session'], env);
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toMatch(/^tx-usage: "no-such-session": neither a file nor a session id the store knows/);
    const other = runCli(['explain', fx.cursorCsv], env);
    expect(other.status).toBe(2);
    expect(other.stderr).toContain(`${fx.cursorCsv}: not a file tx-usage reads`);
    const format = runCli(['explain', fx.claude.file, '--format', 'html'], env);
    expect(format.status).toBe(2);
    expect(format.stderr).toContain('--format "html": expected table, json or csv');
    const none = runCli(['explain'], env);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('explain needs a transcript file');
  });
});

describe('nothing harness-specific', () => {
  it('the command and its module never name a harness: every one comes through the registry', () => {
    const root = join(__dirname, '../..');
    const files = [
      join(root, 'src/cli/explain.ts'),
      ...readdirSync(join(root, 'src/explain')).map((f) => join(root, 'src/explain', f)),
      join(root, 'queries/explain_rows.sql'),
      join(root, 'queries/explain_sources.sql'),
    ];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const id of HARNESS_IDS) expect(new RegExp(`['"\`]${id}['"\`]`).test(text), `${f} names ${id}`).toBe(false);
    }
  });
});
