// Issue 25, "clear errors for every wrong usage": exit 2, one line on stderr
// naming the flag or path and what is wrong, no stack trace; a repeated
// option takes its last value; the help lists every command and every report;
// `completion` prints a shell script; --out never replaces a file tx-usage did
// not write, and tx-usage's side files never replace a file of the user's.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { spawnSync } from 'node:child_process';
import { CLI, cleanEnv, runCli, tempDir, type CliResult } from '../helpers/cli.js';

const dir = tempDir('txu-usage-errors-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const home = join(dir, 'home');
{
  const claude = new ClaudeHome(join(home, '.claude'));
  for (const [day, model] of [
    [3, 'claude-sonnet-4-5-20250929'],
    [4, 'claude-opus-4-1-20250805'],
  ] as const) {
    const s = claude.session({ cwd: `/w/p${day}` });
    s.user(`2026-06-0${day}T10:00:00.000Z`);
    s.response({
      ts: `2026-06-0${day}T10:01:00.000Z`,
      model,
      usage: { input: 10 * day, output: 100 * day, cacheRead: 1000 },
    });
  }
}
const env = cleanEnv(home);
const JUNE = ['--since', '2026-06-01', '--until', '2026-06-30'];

/** A usage error: exit 2, exactly one line on stderr (matching `re`), nothing on stdout, no stack trace. */
function expectUsageError(r: CliResult, re: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(r.stderr).toMatch(/^tx-usage: /);
  expect(r.stderr).toMatch(re);
  expect(r.stderr).not.toMatch(/\n\s+at |Error:|TypeError/);
}

const json = (r: CliResult) => {
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('an option given twice', () => {
  it('takes its last value, for --since, --by, --tz, --format and --until alike', () => {
    const j = json(
      runCli(
        [
          'report',
          '--since',
          '2026-01-01',
          '--since',
          '2026-06-01',
          '--until',
          '2026-12-31',
          '--until',
          '2026-06-30',
          '--by',
          'day',
          '--by',
          'model',
          '--tz',
          'Europe/Berlin',
          '--tz',
          'UTC',
          '--format',
          'table',
          '--format',
          'json',
        ],
        env,
      ),
    );
    expect({ since: j.since, until: j.until, timezone: j.timezone, group_by: j.group_by }).toEqual({
      since: '2026-06-01',
      until: '2026-06-30',
      timezone: 'UTC',
      group_by: ['model'],
    });
    expect(j.rows.map((r: { model: string }) => r.model).sort()).toEqual([
      'claude-opus-4-1-20250805',
      'claude-sonnet-4-5-20250929',
    ]);
  });

  it('takes its last value for the other commands too, and booleans given twice are fine', () => {
    const j = json(runCli(['sources', '--format', 'table', '--format', 'json', '--quiet', '--quiet'], env));
    expect(j.harnesses.map((h: { harness: string }) => h.harness)).toContain('claude-code');
  });

  it('keeps every value of a repeatable option (--root)', () => {
    const other = join(dir, 'other-claude');
    mkdirSync(other, { recursive: true });
    const j = json(
      runCli(
        [
          'report',
          ...JUNE,
          '--by',
          'harness',
          '--format',
          'json',
          '--root',
          `claude-code=${join(home, '.claude')}`,
          '--root',
          `claude-code=${other}`,
        ],
        env,
      ),
    );
    expect(j.rows).toHaveLength(1);
    expect(j.rows[0].requests).toBe(2);
  });
});

describe('values that are missing or wrong', () => {
  it('--since -5d, --by with no value, an empty --harness: exit 2 naming the flag', () => {
    expectUsageError(runCli(['report', '--since', '-5d'], env), /--since needs a value.*--since=-5d/);
    expectUsageError(runCli(['report', '--since=-5d'], env), /--since "-5d": expected Nd/);
    expectUsageError(runCli(['report', '--by'], env), /--by needs a value/);
    expectUsageError(runCli(['report', '--by', ''], env), /--by needs a value/);
    expectUsageError(runCli(['report', '--harness', ''], env), /--harness needs a value/);
    expectUsageError(runCli(['report', '--harness'], env), /--harness needs a value/);
    expectUsageError(runCli(['report', '--since'], env), /--since needs a value|--since ""/);
  });
});

describe('paths', () => {
  it('--out at a directory or in a missing folder: exit 2 naming the path', () => {
    expectUsageError(runCli(['report', ...JUNE, '--out', dir], env), new RegExp(`--out ${dir}: is a directory`));
    const missing = join(dir, 'no-such-folder', 'r.json');
    expectUsageError(
      runCli(['report', ...JUNE, '--out', missing], env),
      new RegExp(`--out ${missing}: no such folder ${join(dir, 'no-such-folder')}`),
    );
  });

  it('export --out at a file: exit 2 naming it', () => {
    const file = join(dir, 'a-file.txt');
    writeFileSync(file, 'mine');
    expectUsageError(runCli(['export', '--out', file], env), new RegExp(`--out ${file}: not a folder`));
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it('--prices missing or malformed, and "prices" in the config file: exit 2 naming the file and what is wrong', () => {
    const missing = join(dir, 'nope.json');
    expectUsageError(
      runCli(['report', ...JUNE, '--prices', missing], env),
      new RegExp(`--prices ${missing}: no such file or directory`),
    );
    const bad = join(dir, 'bad-prices.json');
    writeFileSync(bad, '{ "claude-x": ');
    expectUsageError(runCli(['report', ...JUNE, '--prices', bad], env), new RegExp(`--prices ${bad}: not valid JSON`));
    const list = join(dir, 'list-prices.json');
    writeFileSync(list, '[1, 2]');
    expectUsageError(
      runCli(['report', ...JUNE, '--prices', list], env),
      new RegExp(`--prices ${list}: expected an object`),
    );
    expectUsageError(runCli(['report', ...JUNE, '--prices', dir], env), new RegExp(`--prices ${dir}: is a directory`));
    const cfg = join(dir, 'cfg');
    mkdirSync(join(cfg, 'tx-usage'), { recursive: true });
    writeFileSync(join(cfg, 'tx-usage', 'config.json'), JSON.stringify({ prices: missing }));
    expectUsageError(
      runCli(['report', ...JUNE], { ...env, XDG_CONFIG_HOME: cfg }),
      new RegExp(`"prices" in ${join(cfg, 'tx-usage', 'config.json')}: ${missing}: no such file or directory`),
    );
  });

  it('--db in a missing folder: exit 2 naming it, nothing created', () => {
    const db = join(dir, 'no-db-folder', 'usage.duckdb');
    for (const cmd of [['report', ...JUNE], ['ingest'], ['sources']]) {
      expectUsageError(
        runCli([...cmd, '--db', db], env),
        new RegExp(`--db ${db}: no such folder ${join(dir, 'no-db-folder')}`),
      );
    }
    expect(existsSync(join(dir, 'no-db-folder'))).toBe(false);
  });
});

describe('help', () => {
  it('`tx-usage`, `-h` and `--help` print the command list, prices and completion included', () => {
    for (const args of [[], ['-h'], ['--help']]) {
      const r = runCli(args, env);
      expect(r.status, args.join(' ')).toBe(0);
      for (const c of ['report', 'ingest', 'export', 'sources', 'sql', 'prices', 'demo', 'completion'])
        expect(r.stdout, `${args} ${c}`).toMatch(new RegExp(`tx-usage ${c}\\b`));
    }
  });

  it('`report --help` lists and describes every report definition in reports/', () => {
    const r = runCli(['report', '--help'], env);
    expect(r.status).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    const defs = readdirSync(resolve(__dirname, '../../reports')).filter((f) => f.endsWith('.json'));
    expect(defs.length).toBeGreaterThanOrEqual(3);
    for (const f of defs) {
      const d = JSON.parse(readFileSync(resolve(__dirname, '../../reports', f), 'utf8'));
      expect(text).toContain(`${d.name} ${d.title}: ${d.description}`);
    }
    for (const name of ['summary', 'monthly', 'compare']) expect(text).toContain(name);
  });

  it('`tx-usage completion` prints a completion script whose completions work', () => {
    const r = runCli(['completion'], env);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/complete .*tx-usage|compdef/);
    expect(r.stdout).toContain('--get-yargs-completions');
    const c = runCli(['--get-yargs-completions', 'tx-usage', 'pri'], env);
    expect(c.stdout.split('\n')).toContain('prices');
  });
});

describe('--out never replaces a file tx-usage did not write', () => {
  it('refuses a user file (bytes and mtime unchanged), replaces its own, refuses it once edited, and --force replaces', () => {
    const mine = join(dir, 'notes.json');
    writeFileSync(mine, 'my notes');
    const before = statSync(mine).mtimeMs;
    expectUsageError(
      runCli(['report', ...JUNE, '--format', 'json', '--out', mine], env),
      /the file exists and tx-usage did not write it/,
    );
    expect(readFileSync(mine, 'utf8')).toBe('my notes');
    expect(statSync(mine).mtimeMs).toBe(before);

    const out = join(dir, 'report.json');
    const first = runCli(['report', ...JUNE, '--format', 'json', '--out', out], env);
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).totals.requests).toBe(2);
    // Its own file, again (a memo hit writes it too), and under another grouping.
    expect(runCli(['report', ...JUNE, '--format', 'json', '--out', out], env).status).toBe(0);
    const again = runCli(['report', ...JUNE, '--format', 'json', '--by', 'model', '--out', out], env);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).group_by).toEqual(['model']);
    // Edited by someone: no longer what tx-usage wrote.
    writeFileSync(out, readFileSync(out, 'utf8') + '\n');
    expectUsageError(runCli(['report', ...JUNE, '--format', 'json', '--out', out], env), /tx-usage did not write it/);
    expectUsageError(
      runCli(['report', ...JUNE, '--format', 'json', '--by', 'model', '--out', out], env),
      /tx-usage did not write it/,
    );
    // --force: replaced; no temporary file left beside it.
    expect(runCli(['report', ...JUNE, '--format', 'json', '--out', mine, '--force'], env).status).toBe(0);
    expect(JSON.parse(readFileSync(mine, 'utf8')).totals.requests).toBe(2);
    expect(readdirSync(dir).filter((n) => n.includes('.tmp'))).toEqual([]);
    // A device or a pipe is written through, never replaced: --out /dev/stdout into a pipe.
    const through = spawnSync(
      'sh',
      ['-c', `"$0" "$1" report ${JUNE.join(' ')} --format json --out /dev/stdout | cat`, process.execPath, CLI],
      { env, encoding: 'utf8' },
    );
    expect(through.status, through.stderr).toBe(0);
    expect(JSON.parse(through.stdout).totals.requests).toBe(2);
  });

  it("leaves a user file where tx-usage keeps a side file (memo, discovery record, the store's source index) untouched", () => {
    const cache = join(dir, 'side-cache');
    const db = join(dir, 'side', 'usage.duckdb');
    mkdirSync(join(cache, 'tx-usage'), { recursive: true });
    mkdirSync(join(dir, 'side'), { recursive: true });
    const files = [
      join(cache, 'tx-usage', 'report-memo.json'),
      join(cache, 'tx-usage', 'discovery.json'),
      `${db}.sources.json`,
    ];
    for (const f of files) writeFileSync(f, `user data in ${f}`);
    const e = { ...env, XDG_CACHE_HOME: cache };
    for (let i = 0; i < 2; i++)
      expect(json(runCli(['report', ...JUNE, '--db', db, '--format', 'json'], e)).totals.requests).toBe(2);
    for (const f of files) expect(readFileSync(f, 'utf8')).toBe(`user data in ${f}`);
  });
});

describe('--root HARNESS=PATH that cannot be searched', () => {
  it('warns on stderr and in JSON warnings; with --harness naming only that harness, exit 2', () => {
    const missing = join(dir, 'no-such-claude');
    const args = ['report', ...JUNE, '--root', `claude-code=${missing}`];
    const table = runCli(args, env);
    expect(table.status).toBe(0);
    expect(table.stderr).toContain(`warning: --root claude-code=${missing}: no such directory`);
    const j = json(runCli([...args, '--format', 'json'], env));
    expect(j.warnings).toContain(`--root claude-code=${missing}: no such directory`);
    expectUsageError(
      runCli([...args, '--harness', 'claude-code'], env),
      new RegExp(`--root claude-code=${missing}: no such directory`),
    );
    // Another harness named too: its report goes on, with the warning.
    expect(json(runCli([...args, '--harness', 'claude-code,codex', '--format', 'json'], env)).warnings).toContain(
      `--root claude-code=${missing}: no such directory`,
    );
    // An unreadable folder (as root, permissions do not stop reads: only checked when they do).
    if (process.getuid?.() !== 0) {
      const closed = join(dir, 'closed');
      mkdirSync(closed, { mode: 0o000 });
      expect(
        json(runCli(['report', ...JUNE, '--root', `claude-code=${closed}`, '--format', 'json'], env)).warnings,
      ).toContain(`--root claude-code=${closed}: permission denied`);
    }
    // Other commands warn on stderr.
    expect(runCli(['ingest', '--root', `claude-code=${missing}`], env).stderr).toContain(
      `warning: --root claude-code=${missing}: no such directory`,
    );
  });
});

describe("unknown options and missing arguments, in the user's terms", () => {
  it('names an unknown option as typed, long or short, and the command whose --help lists them', () => {
    expectUsageError(
      runCli(['report', '--bogus'], env),
      /^tx-usage: unknown option --bogus \(tx-usage report --help lists the options\)$/m,
    );
    expectUsageError(runCli(['report', '-s', '7d'], env), /unknown option -s \(tx-usage report --help/);
    expectUsageError(
      runCli(['watch', '--once', '--format', 'json'], env),
      /unknown option --format \(tx-usage watch --help/,
    );
    expectUsageError(
      runCli(['--quiet', 'report', '--bogus=1'], env),
      /unknown option --bogus \(tx-usage report --help/,
    );
    expectUsageError(
      runCli(['bogus'], env),
      /^tx-usage: unknown command "bogus" \(tx-usage --help lists the commands\)$/m,
    );
    expectUsageError(
      runCli(['report', 'summary', 'extra'], env),
      /unexpected argument "extra" \(tx-usage report --help/,
    );
  });

  it('says what export, sql and prices show are missing', () => {
    expectUsageError(runCli(['export'], env), /export needs --out DIR/);
    expectUsageError(runCli(['sql'], env), /sql needs a query: tx-usage sql "SELECT \.\.\."/);
    expectUsageError(runCli(['prices', 'show'], env), /prices show needs a model name/);
  });
});

describe('report --demo', () => {
  it('a usage error is one line: the demo notice comes only once the arguments are valid', () => {
    expectUsageError(runCli(['report', '--demo', '--format', 'xml'], env), /--format "xml"/);
    expectUsageError(runCli(['report', '--demo', '--since', '5x'], env), /--since "5x"/);
  });
});

describe('a bad time zone in the config file', () => {
  it('is named by the config file and key, not as --tz', () => {
    const h = join(dir, 'home-bad-tz');
    const cfgDir = join(h, '.config', 'tx-usage');
    mkdirSync(cfgDir, { recursive: true });
    writeFileSync(join(cfgDir, 'config.json'), JSON.stringify({ statusline: { tz: 'Nope/Zone' } }));
    const e = cleanEnv(h);
    const re = new RegExp(`${join(cfgDir, 'config.json')}: "statusline.tz" "Nope/Zone" is not an IANA time zone`);
    for (const args of [['check'], ['watch', '--once']]) {
      const r = runCli(args, e);
      expectUsageError(r, re);
      expect(r.stderr).not.toContain('--tz');
    }
    // A report with budgets warns naming it (config problems are warnings there), and does not fail on it.
    writeFileSync(
      join(cfgDir, 'config.json'),
      JSON.stringify({ statusline: { tz: 'Nope/Zone' }, budgets: { day: 5 } }),
    );
    const rep = runCli(['report', ...JUNE, '--format', 'json'], e);
    expect(rep.status, rep.stderr).toBe(0);
    expect(JSON.parse(rep.stdout).warnings.join('\n')).toMatch(re);
    // Given on the command line, it is --tz's (and overrides the config's for watch).
    expect(runCli(['watch', '--once', '--tz', 'UTC'], e).status).toBe(0);
    writeFileSync(join(cfgDir, 'config.json'), '{}');
    expectUsageError(runCli(['check', '--tz', 'Bad/Zone'], e), /^tx-usage: --tz "Bad\/Zone": not an IANA time zone/);
  });
});

describe('dates that cannot be', () => {
  it('an impossible date is not a calendar date; a huge N is out of range', () => {
    expectUsageError(runCli(['report', '--since', '2026-02-30'], env), /--since "2026-02-30": not a calendar date$/m);
    expectUsageError(
      runCli(['report', ...JUNE.slice(0, 2), '--until', '2026-13-01'], env),
      /--until "2026-13-01": not a calendar date/,
    );
    expectUsageError(
      runCli(['report', '--since', '100000d'], env),
      /--since "100000d": out of range \(Nd takes N from 0 to 99999\)/,
    );
    expect(runCli(['report', '--since', '99999d', '--format', 'json'], env).status).toBe(0);
  });
});

describe('prices show with a model that has no price', () => {
  it('is a usage error: exit 2, one line naming the model', () => {
    expectUsageError(
      runCli(['prices', 'show', 'nonexistent-model-x'], env),
      /prices show "nonexistent-model-x": no price found/,
    );
  });
});

describe('counts of one', () => {
  it('are singular: a transcript with one response is "1 event" in sources', () => {
    const r = runCli(['sources'], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\.jsonl: 1 event$/m);
    expect(r.stdout).not.toMatch(/\b1 events\b/);
  });
});
