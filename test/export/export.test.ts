// Team roll-ups: three machines export to one folder (alice twice, and once
// more for part of the period), `report --from` must equal the sum of the
// three local reports exactly, every copy counted once.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { migratedLaptop } from '../../fixtures/team.js';
import {
  additive,
  buildTeamFixture,
  envOf,
  exportJson,
  localReport,
  RANGE,
  rollupReport,
  sumRows,
  tree,
  type Team,
} from '../helpers/export-helpers.js';

let team: Team;
let out: string;
let again: string;

beforeAll(() => {
  team = buildTeamFixture();
  out = join(team.base, 'exports');
  again = join(team.base, 'exports-again');
  for (const m of team.machines) exportJson(m, out);
  const [alice] = team.machines;
  // alice again, into another folder: every one of her rows now exists twice.
  exportJson(alice!, again);
  // ... and a partial period into the shared folder: a second, overlapping
  // October file beside the first (it supersedes nothing: it holds fewer rows).
  const partial = exportJson(alice!, out, ['--since', '2026-10-15', '--until', '2026-10-31', '--tz', 'UTC']);
  // Sessions go whole: the partial period's sessions file is the full export's (same bytes).
  expect(partial.files.map((f: any) => [f.dataset, f.month, f.status, f.superseded])).toEqual([
    ['events', '2026-10', 'written', []],
    ['sessions', '2026-11', 'unchanged', []],
  ]);
});

const FROM = () => [out, again];

describe('export layout', () => {
  it('writes Hive month partitions of part-<machine>-<hash>.parquet: events at the top, the side datasets in _context/, _estimates/ and _sessions/', () => {
    const files = [...tree(out).keys()];
    for (const f of files)
      expect(f).toMatch(
        /^((_context|_estimates|_sessions)\/)?month=(\d{4}-\d{2}|undated)\/part-(alice|bob|carol)-[0-9a-f]{16}\.parquet$/,
      );
    // Only these folders at the top: DIR/month=* is the events dataset, nothing else beside it.
    const top = new Set(files.map((f) => f.split('/')[0]!));
    expect([...top].filter((d) => !d.startsWith('month=')).sort()).toEqual(['_context', '_estimates', '_sessions']);
    // Claude Code in Sept-Nov 2026 and Codex in Jan 2026 for alice: month folders as the data falls.
    const aliceEvents = files
      .filter((f) => f.startsWith('month=') && f.includes('part-alice-'))
      .map((f) => f.split('/')[0]);
    expect(new Set(aliceEvents)).toEqual(new Set(['month=2026-01', 'month=2026-09', 'month=2026-10', 'month=2026-11']));
    // October has alice's full export and her partial one.
    expect(aliceEvents.filter((m) => m === 'month=2026-10')).toHaveLength(2);
    // Cursor chats (bob) are their own dataset; Claude estimates theirs.
    expect(files.some((f) => f.startsWith('_context/') && f.includes('part-bob-'))).toBe(true);
    expect(files.some((f) => f.startsWith('_estimates/') && f.includes('part-alice-'))).toBe(true);
  });
});

describe('roll-up equals the sum of the local reports', () => {
  for (const by of ['machine', 'machine,harness,day', 'machine,session', 'machine,model,project', 'machine,month']) {
    it(`--by ${by}: the three local reports' rows, exactly`, () => {
      const locals = team.machines.map((m) => localReport(m, [...RANGE, '--by', by]));
      const roll = rollupReport(team, FROM(), [...RANGE, '--by', by]);
      // Rows keyed by machine first: the roll-up is the local rows side by side
      // (every field: tokens, costs, cost_source, session estimates).
      expect(roll.rows).toEqual(locals.flatMap((l) => l.rows));
      expect(roll.rows.length).toBeGreaterThan(2);
      expect(roll.group_by).toEqual(by.split(','));
      expect(Object.keys(roll).sort()).toEqual([
        'context',
        'group_by',
        'rows',
        'since',
        'timezone',
        'totals',
        'until',
        'warnings',
      ]);
      // Cursor chats (bob's): the same entries, in the report's order (harness, project, session).
      const ctx = locals.flatMap((l) => l.context ?? []);
      expect(ctx.length).toBeGreaterThan(0);
      const order = (c: any) => JSON.stringify([c.harness, c.project, c.session]);
      expect(roll.context).toEqual(ctx.sort((x: any, y: any) => (order(x) < order(y) ? -1 : 1)));
      const keys: string[] = [];
      expect(additive(roll.totals, keys)).toEqual(
        sumRows(
          locals.map((l) => [l.totals]),
          keys,
        )[0],
      );
    });
  }

  for (const by of ['model', 'project,harness', 'day']) {
    it(`--by ${by}: per key, the sum over machines`, () => {
      const keys = by.split(',');
      const locals = team.machines.map((m) => localReport(m, [...RANGE, '--by', by]));
      const roll = rollupReport(team, FROM(), [...RANGE, '--by', by]);
      expect(roll.rows.map((r: any) => additive(r, keys))).toEqual(
        sumRows(
          locals.map((l) => l.rows),
          keys,
        ),
      );
    });
  }

  it('compare per unit of work: prompts, turns and tool calls are the sum over machines; a harness of one machine has its figures', () => {
    const locals = team.machines.map((m) => localReport(m, ['compare', ...RANGE]));
    const roll = rollupReport(team, FROM(), ['compare', ...RANGE]);
    for (const h of roll.harnesses) {
      const mine = locals.flatMap((l) => l.harnesses.filter((x: any) => x.harness === h.harness));
      for (const f of ['prompts', 'turns', 'tool_calls', 'subagent_tasks', 'priced_prompts']) {
        expect(h[f], `${h.harness} ${f}`).toBe(mine.reduce((n: number, x: any) => n + x[f], 0));
      }
      if (mine.length === 1) {
        for (const f of [
          'requests_per_prompt_median',
          'tokens_per_prompt_p90',
          'cost_per_prompt_usd_mean',
          'tool_calls_per_prompt_mean',
          'active_hours',
          'cost_per_active_hour_usd_median',
        ]) {
          expect(h[f], `${h.harness} ${f}`).toBeCloseTo(mine[0][f], 9);
        }
      }
    }
    expect(roll.harnesses.reduce((n: number, h: any) => n + h.prompts, 0)).toBeGreaterThan(10);
  });

  it("the same project path on two machines is two machines' usage, both in the project row", () => {
    const roll = rollupReport(team, FROM(), [...RANGE, '--by', 'project,machine']);
    const shared = roll.rows.filter((r: any) => r.project === '/home/dev/shared-repo');
    expect(shared.map((r: any) => r.machine)).toEqual(['alice', 'bob']);
    const byProject = rollupReport(team, FROM(), [...RANGE, '--by', 'project']).rows.find(
      (r: any) => r.project === '/home/dev/shared-repo',
    );
    expect(byProject.requests).toBe(shared[0].requests + shared[1].requests);
    expect(roll.warnings.filter((w: string) => /exported by each of the machines/.test(w))).toEqual([]);
  });

  it('the same transcripts on two machines (a migrated laptop) are billed once, under the first machine by name', () => {
    const [alice] = team.machines;
    const laptop = migratedLaptop(alice!, team.base);
    const dir = join(team.base, 'laptop-exports');
    exportJson(laptop, dir);
    const local = (m: typeof laptop) => localReport(m, [...RANGE, '--by', 'machine,model']);
    const a = local(alice!);
    const l = local(laptop);
    // Locally the laptop holds every one of alice's responses plus its own.
    expect(l.totals.requests).toBe(a.totals.requests + 1);
    const roll = rollupReport(team, [out, dir], [...RANGE, '--by', 'machine,model', '--harness', 'claude-code,codex']);
    const mine = roll.rows.filter((r: any) => r.machine.startsWith('alice'));
    expect(mine.filter((r: any) => r.machine === 'alice')).toEqual(a.rows);
    expect(mine.filter((r: any) => r.machine === 'alice-new').map((r: any) => r.requests)).toEqual([1]);
    const copies = a.totals.requests;
    expect(roll.warnings).toContain(
      `${copies} responses were exported by each of the machines alice, alice-new (the same transcripts on several machines: synced, copied or migrated); each is counted once, under alice`,
    );
  });

  it('alice was exported three times over: without deduplication her figures would be inflated', () => {
    const byMachine = (from: string[]) =>
      rollupReport(team, from, [...RANGE, '--by', 'machine']).rows.find((r: any) => r.machine === 'alice');
    const once = byMachine([out]);
    expect(byMachine([out, again])).toEqual(once);
    // Also its events alone again: a glob of month folders, and one month folder as a DIR.
    expect(byMachine([out, out, again, join(again, 'month=*'), join(again, 'month=2026-10')])).toEqual(once);
    // The duplicates are really in the files: alice's October events are in three files.
    const octFiles = [out, again].flatMap((d) =>
      readdirSync(join(d, 'month=2026-10')).filter((f) => f.startsWith('part-alice-')),
    );
    expect(octFiles).toHaveLength(3);
    expect(once).toEqual(localReport(team.machines[0]!, [...RANGE, '--by', 'machine']).rows[0]);
  });

  it('--from takes globs of files or folders', () => {
    const all = rollupReport(team, FROM(), [...RANGE, '--by', 'machine']);
    expect(rollupReport(team, [join(team.base, 'exports*')], [...RANGE, '--by', 'machine'])).toEqual(all);
    // Globs of files: the events' month folders plus the underscore datasets' ones, or one recursive glob.
    const whole = rollupReport(team, [out], [...RANGE, '--by', 'machine']);
    expect(
      rollupReport(
        team,
        [join(out, 'month=*', '*.parquet'), join(out, '_*', 'month=*', '*.parquet')],
        [...RANGE, '--by', 'machine'],
      ),
    ).toEqual(whole);
    expect(rollupReport(team, [join(out, '**', '*.parquet')], [...RANGE, '--by', 'machine'])).toEqual(whole);
    // Only bob's files.
    const bob = rollupReport(team, [join(out, '**', 'part-bob-*.parquet')], [...RANGE, '--by', 'machine']);
    expect(bob.rows.map((r: any) => r.machine)).toEqual(['bob']);
    expect(bob.totals).toEqual(localReport(team.machines[1]!, [...RANGE, '--by', 'machine']).totals);
  });

  it('a range, a harness filter and a time zone apply to the roll-up as to the local store', () => {
    const args = [
      '--since',
      '2026-10-01',
      '--until',
      '2026-10-31',
      '--tz',
      'America/New_York',
      '--harness',
      'claude-code,opencode',
      '--by',
      'machine,day',
    ];
    const locals = team.machines.map((m) => localReport(m, args));
    expect(rollupReport(team, FROM(), args).rows).toEqual(locals.flatMap((l) => l.rows));
  });
});

/**
 * Averages of ratios (e.g. Cursor occupancy) are float sums whose last bit
 * depends on row order, which differs between the store and the files.
 */
function roundFloats(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? v : Number(v.toPrecision(12));
  if (Array.isArray(v)) return v.map(roundFloats);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, roundFloats(x)]));
  return v;
}

describe('every report, in every format, over one machine exported equals its local report', () => {
  const reports = () => {
    const r = runCli(['report', 'no-such-report'], team.nobody);
    return /available: (.*)$/m.exec(r.stderr)![1]!.split(', ');
  };
  it('lists its reports', () => {
    expect(reports()).toContain('summary');
  });
  for (const format of ['json', 'csv', 'table', 'html']) {
    it(`--format ${format}`, () => {
      // JSON on every machine; the text formats on bob's (Claude Code, OpenCode and Cursor chats), to keep the run short.
      for (const m of team.machines.filter((x) => format === 'json' || x.name === 'bob')) {
        const single = join(team.base, `single-${m.name}`);
        cpSync(out, single, {
          recursive: true,
          filter: (src) => !/part-/.test(src) || src.includes(`part-${m.name}-`),
        });
        for (const name of reports()) {
          const args = ['report', name, ...RANGE, '--format', format];
          // One "now" for both (report blocks shows it, and the active block's time left).
          const now = { TX_USAGE_NOW: '2026-12-01T12:00:00Z' };
          const local = runCli([...args, '--machine', m.name], { ...envOf(m), ...now });
          const roll = runCli([...args, '--from', single], { ...team.nobody, ...now });
          expect(local.status, local.stderr).toBe(0);
          expect(roll.status, roll.stderr).toBe(0);
          if (format === 'json') {
            // Warnings differ by design: the local one names files with unreadable lines.
            const strip = (s: string) => roundFloats({ ...JSON.parse(s), warnings: undefined });
            expect(strip(roll.stdout)).toEqual(strip(local.stdout));
          } else if (format === 'html') {
            const strip = (s: string) =>
              s
                .replace(/<section class="notice warn">.*?<\/section>/s, '')
                .replace(
                  /(data-v="|"[a-z_]+":)(-?\d+\.\d+(?:e-?\d+)?)/g,
                  (_, pre, n) => pre + Number(Number(n).toPrecision(12)),
                );
            expect(strip(roll.stdout)).toBe(strip(local.stdout));
          } else expect(roll.stdout).toBe(local.stdout);
        }
      }
    });
  }
});

describe('--by machine on the local store and errors', () => {
  it('local rows carry --machine, else config "machine", else the host name', () => {
    const [alice] = team.machines;
    expect(localReport(alice!, [...RANGE, '--by', 'machine']).rows.map((r: any) => r.machine)).toEqual(['alice']);
  });

  it('clear usage errors', () => {
    const bad = (args: string[], re: RegExp) => {
      const r = runCli(args, team.nobody);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(re);
    };
    bad(['report', '--from', join(team.base, 'nowhere')], /--from .*nowhere.*: no such file or folder/);
    bad(['report', '--from', join(team.base, 'nowhere-*')], /no Parquet files found/);
    bad(['report', '--from', out, '--machine', 'x'], /--machine names the local store/);
    // The dataset is told by the folder: a context file moved among the events is refused, as is a file outside any month= folder.
    const ctxFile = [...tree(out).keys()].find((k) => k.startsWith('_context/'))!;
    const misplaced = join(team.base, 'misplaced', 'month=2026-10');
    mkdirSync(misplaced, { recursive: true });
    cpSync(join(out, ctxFile), join(misplaced, 'part-bob-0000000000000000.parquet'));
    cpSync(
      join(
        out,
        [...tree(out).keys()].find((k) => k.startsWith('month=2026-10/'))!,
      ),
      join(misplaced, 'part-alice-0000000000000000.parquet'),
    );
    bad(
      ['report', '--from', join(team.base, 'misplaced')],
      /part-bob-0{16}\.parquet: in a month=… folder of the export root, so read as events, but its rows lack the identity of events rows \(harness, dedupe_key\)/,
    );
    const loose = join(team.base, 'loose');
    mkdirSync(loose, { recursive: true });
    cpSync(join(out, ctxFile), join(loose, 'context.parquet'));
    bad(
      ['report', '--from', join(loose, 'context.parquet')],
      /context\.parquet: not in a month=YYYY-MM folder of a tx-usage export/,
    );
    bad(['report', '--by', 'machine', '--machine', 'bad name!'], /--machine "bad name!"/);
    bad(['export', '--out', join(team.base, 'x'), '--salt', 's'], /--salt is only used with --anonymize/);
    bad(['export', '--out', join(team.base, 'x'), '--anonymize'], /--anonymize needs a salt/);
  });
});
