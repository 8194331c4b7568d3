// The command line as an audit found it wanting: an option that takes a
// value given none is exit 2 (a bare `--from` reported on the local store);
// a repeatable option takes one value per occurrence (`--root X report` lost
// its command); `--out r.csv` writes CSV; ccusage's habits (`report daily`,
// `blocks`, `--json`, `--since YYYYMMDD`) and misspelt options get a pointer;
// `completion --help`, `demo --help` and `explain --help` are help.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { cleanEnv, runCli, tempDir, type CliResult } from '../helpers/cli.js';

const dir = tempDir('txu-cli-args-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const home = join(dir, 'home');
const claudeDir = join(dir, 'elsewhere', '.claude');
{
  // Two responses under the default root, three under another one (given with --root).
  const claude = new ClaudeHome(join(home, '.claude'));
  for (const day of [3, 4]) {
    const s = claude.session({ cwd: `/w/p${day}` });
    s.user(`2026-06-0${day}T10:00:00.000Z`);
    s.response({
      ts: `2026-06-0${day}T10:01:00.000Z`,
      model: 'claude-sonnet-4-5-20250929',
      usage: { input: 10, output: 100, cacheRead: 1000 },
    });
  }
  const other = new ClaudeHome(claudeDir);
  const s = other.session({ cwd: '/w/other' });
  for (const day of [5, 6, 7]) {
    s.user(`2026-06-0${day}T10:00:00.000Z`);
    s.response({
      ts: `2026-06-0${day}T10:01:00.000Z`,
      model: 'claude-sonnet-4-5-20250929',
      usage: { input: 10, output: 100, cacheRead: 1000 },
    });
  }
}
const env = cleanEnv(home);
/**
 * A store of its own: the store keeps every source it has read, whichever
 * --root found it (README), so a run with another --root would add to the others' totals.
 */
const ownStore = (name: string) => cleanEnv(home, { XDG_CACHE_HOME: join(dir, `cache-${name}`) });
const JUNE = ['--since', '2026-06-01', '--until', '2026-06-30', '--tz', 'UTC'];

/** A usage error: exit 2, one line on stderr matching `re`, nothing on stdout. */
function usageError(r: CliResult, re: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(r.stderr).toMatch(re);
}

function json(r: CliResult): any {
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('an option that takes a value, given none', () => {
  it("`report --by machine --from` (an empty $DIR unquoted) is exit 2, not the local store's table", () => {
    usageError(runCli(['report', '--by', 'machine', '--from'], env), /^tx-usage: --from needs a value$/m);
    // Followed by another option: the same, not that option taken as the value.
    usageError(runCli(['report', '--from', '--by', 'machine'], env), /--from needs a value/);
    // Quoted empty: a value, refused as a path.
    usageError(runCli(['report', '--from', ''], env), /--from "": no such file or folder/);
  });

  it('is exit 2 for every option that takes a value, global or of a command', () => {
    const cases: [string[], string][] = [
      [['report', '--root'], '--root'],
      [['--root'], '--root'],
      [['report', '--prices'], '--prices'],
      [['report', '--db'], '--db'],
      [['report', '--out'], '--out'],
      [['report', '--since'], '--since'],
      [['report', '--until'], '--until'],
      [['report', '--tz'], '--tz'],
      [['report', '--format'], '--format'],
      [['report', '--machine'], '--machine'],
      [['report', '--token-limit'], '--token-limit'],
      [['demo', '--out'], '--out'],
      [['limits', '--tz'], '--tz'],
      [['limits', '--out'], '--out'],
      [['export', '--out'], '--out'],
      [['export', '--out', join(dir, 'x'), '--salt'], '--salt'],
      [['explain', 'x', '--cost'], '--cost'],
      [['import', '--remove'], '--remove'],
      [['sources', '--format'], '--format'],
      [['prices', 'show', 'm', '--at'], '--at'],
    ];
    for (const [args, flag] of cases)
      usageError(runCli(args, env), new RegExp(`^tx-usage: ${flag} needs a value$`, 'm'));
  });
});

describe('a repeatable option takes one value per occurrence', () => {
  it('`--root X report`: the command after a global --root is the command', () => {
    const j = json(
      runCli(['--root', `claude-code=${claudeDir}`, 'report', ...JUNE, '--format', 'json'], ownStore('global')),
    );
    expect(j.totals.requests).toBe(3);
  });

  it('`report --root X monthly`: the word after the value is the report, and --root given twice keeps both', () => {
    const j = json(
      runCli(
        ['report', '--root', `claude-code=${claudeDir}`, 'monthly', ...JUNE, '--format', 'json'],
        ownStore('monthly'),
      ),
    );
    // The monthly report's shape (README): months with their top sessions.
    expect(j.months.map((m: { month: string }) => m.month)).toEqual(['2026-06']);
    expect(j.totals.requests).toBe(3);
    const both = json(
      runCli(
        [
          'report',
          '--root',
          `claude-code=${claudeDir}`,
          '--root',
          `claude-code=${join(home, '.claude')}`,
          ...JUNE,
          '--format',
          'json',
        ],
        ownStore('both'),
      ),
    );
    expect(both.totals.requests).toBe(5);
  });

  it('`report --from DIR monthly` reads DIR and runs monthly; --from given twice reads both', () => {
    const a = join(dir, 'export-a');
    const b = join(dir, 'export-b');
    expect(runCli(['export', '--out', a, '--machine', 'alice'], env).status).toBe(0);
    expect(
      runCli(
        ['export', '--out', b, '--machine', 'bob', '--root', `claude-code=${claudeDir}`],
        cleanEnv(join(dir, 'nobody')),
      ).status,
    ).toBe(0);
    const nobody = cleanEnv(join(dir, 'nobody'));
    const monthly = json(runCli(['report', '--from', a, 'monthly', ...JUNE, '--format', 'json'], nobody));
    expect(monthly.months.map((m: { month: string }) => m.month)).toEqual(['2026-06']);
    expect(monthly.totals.requests).toBe(2);
    const both = json(
      runCli(['report', '--from', a, '--from', b, '--by', 'machine', ...JUNE, '--format', 'json'], nobody),
    );
    expect(
      Object.fromEntries(both.rows.map((r: { machine: string; requests: number }) => [r.machine, r.requests])),
    ).toEqual({ alice: 2, bob: 3 });
  });
});

describe('--out FILE without --format: the format its name ends in', () => {
  it('.csv is CSV, .json JSON, .html/.htm HTML; an explicit --format wins', () => {
    const run = (name: string, extra: string[] = []) => {
      const out = join(dir, name);
      const r = runCli(['report', ...JUNE, '--out', out, ...extra], env);
      expect(r.status, r.stderr).toBe(0);
      return readFileSync(out, 'utf8');
    };
    expect(run('r.csv').split('\n')[0]).toMatch(/^day,requests,/);
    expect(JSON.parse(run('r.json')).totals.requests).toBe(2);
    expect(JSON.parse(run('R.JSON')).totals.requests).toBe(2);
    expect(run('r.html')).toMatch(/^<!doctype html>/i);
    expect(run('r.htm')).toMatch(/^<!doctype html>/i);
    // The user said table: a table, whatever the name.
    expect(run('t.csv', ['--format', 'table'])).toMatch(/^Usage summary/);
    expect(run('t.json', ['--format', 'csv']).split('\n')[0]).toMatch(/^day,requests,/);
    // Any other name: the default, a table.
    expect(run('r.txt')).toMatch(/^Usage summary/);
  });

  it('for limits too; a name limits cannot write is exit 2, naming the file', () => {
    const out = join(dir, 'limits.json');
    const r = runCli(['limits', '--out', out], env);
    expect(r.status, r.stderr).toBe(0);
    expect(typeof JSON.parse(readFileSync(out, 'utf8'))).toBe('object');
    usageError(
      runCli(['limits', '--out', join(dir, 'limits.html')], env),
      /--out .*limits\.html: limits writes no html; add --format/,
    );
  });
});

describe("ccusage's habits and misspelt options: the existing error, with a pointer (exit 2)", () => {
  it('report daily, session, weekly name the tx-usage way', () => {
    usageError(
      runCli(['report', 'daily'], env),
      /unknown report "daily" \(ccusage's daily is: tx-usage daily \(or report --by day\)\); available: .*summary/,
    );
    usageError(runCli(['report', 'session'], env), /ccusage's session is: tx-usage session \(or report --by session\)/);
    usageError(runCli(['report', 'weekly'], env), /ccusage's weekly is: tx-usage weekly \(or report --by week\)/);
    usageError(runCli(['report', 'bogus'], env), /^tx-usage: unknown report "bogus"; available: /m);
  });

  it('a second path after --from (an unquoted glob the shell expanded) says to repeat the flag', () => {
    usageError(
      runCli(['report', '--from', join(dir, 'a.parquet'), join(dir, 'b.parquet')], env),
      /unknown report ".*b\.parquet" \(--from and --root take one path each: repeat the flag for every path, or quote a glob\)/,
    );
  });

  it('blocks, daily, monthly, session, weekly are commands (test/ccusage-compat.test.ts); an unknown one says where the list is', () => {
    for (const c of ['blocks', 'daily', 'monthly', 'session', 'weekly']) {
      const r = runCli([c, '--json', '--since', '20260603', '--until', '20260604'], env);
      expect(r.status, `${c}: ${r.stderr}`).toBe(0);
      expect(Object.keys(JSON.parse(r.stdout))[0]).toBe(c);
    }
    usageError(runCli(['bogus'], env), /^tx-usage: unknown command "bogus" \(tx-usage --help lists the commands\)$/m);
  });

  it('--json, -j, --timezone get the tx-usage spelling; --sinse the nearest option', () => {
    usageError(
      runCli(['report', '--json'], env),
      /^tx-usage: unknown option --json: use --format json \(tx-usage report --help lists the options\)$/m,
    );
    usageError(runCli(['report', '-j'], env), /unknown option -j: use --format json/);
    usageError(runCli(['report', '--timezone', 'UTC'], env), /unknown option --timezone: use --tz/);
    usageError(
      runCli(['report', '--sinse', '7d'], env),
      /^tx-usage: unknown option --sinse: did you mean --since\? \(tx-usage report --help lists the options\)$/m,
    );
    usageError(runCli(['limits', '--harnes', 'codex'], env), /unknown option --harnes: did you mean --harness\?/);
    // Nothing within two edits: no guess.
    usageError(
      runCli(['report', '--bogusoption'], env),
      /^tx-usage: unknown option --bogusoption \(tx-usage report --help lists the options\)$/m,
    );
  });

  it("--since/--until YYYYMMDD (ccusage's form) is that day; an 8-digit number that is no date stays an error", () => {
    const j = json(
      runCli(['report', '--since', '20260603', '--until', '20260604', '--tz', 'UTC', '--format', 'json'], env),
    );
    expect({ since: j.since, until: j.until, requests: j.totals.requests }).toEqual({
      since: '2026-06-03',
      until: '2026-06-04',
      requests: 2,
    });
    usageError(runCli(['report', '--since', '20261301'], env), /--since "20261301": not a calendar date/);
    usageError(runCli(['report', '--until', '20260230'], env), /--until "20260230": not a calendar date/);
    usageError(runCli(['report', '--since', '12345678'], env), /--since "12345678": not a calendar date/);
  });
});

describe('help', () => {
  it('`completion --help` is help, not the script', () => {
    const r = runCli(['completion', '--help'], env);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^tx-usage completion\n/);
    expect(r.stdout).toContain('completion script');
    expect(r.stdout).not.toContain('--get-yargs-completions');
  });

  it('`demo --help` lists no --demo nor --from, and `demo --from X` is an unknown option (no "--demo" the user never typed)', () => {
    const h = runCli(['demo', '--help'], env);
    expect(h.status).toBe(0);
    expect(h.stdout).toContain('--since');
    expect(h.stdout).not.toMatch(/--demo\b|--from\b/);
    const r = runCli(['demo', '--from', dir], env);
    usageError(r, /unknown option --from \(tx-usage demo --help/);
    expect(r.stderr).not.toContain('--demo');
  });

  it('`explain --help` shows no "[default: []]" for its paths', () => {
    const h = runCli(['explain', '--help'], env);
    expect(h.status).toBe(0);
    expect(h.stdout).toMatch(/paths/);
    expect(h.stdout).not.toContain('[default: []]');
  });
});
