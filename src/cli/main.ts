#!/usr/bin/env node
// tx-usage command line: yargs commands only (one parser, one option table);
// they orchestrate, they do not parse harness files or build SQL.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';
import type { Argv } from 'yargs';
import { UsageError } from '../report/period.js';
import { replayReport, saveReportMemo, probeFromFastPath, replayByArgv } from './memo.js';
import type { ReportArgs } from './report.js';
import { runtimeFrom, type GlobalArgs, type Runtime } from './runtime.js';
import { makeDemoDir } from './workdir.js';
import { cacheDir } from '../core/cache-dir.js';
import { mark } from '../core/trace.js';
import { exitQuietlyWhenStdoutCloses } from './closed-stdout.js';
import { importModule } from './code-cache.js';
import { STATUSLINE_FLAGS } from './statusline-flags.js';
import { HARNESS_IDS } from '../core/types.js';
import { messageLine, printableLines } from '../render/terminal-text.js';
import { commandHint, optionHint } from './hints.js';
import { formatOfOutFile } from './out-file.js';
// Command modules are imported when their command runs: most of them load
// DuckDB, which a report answered from its memo never needs.

/** The group keys, for the help text: loaded with yargs, not on the memo's path. */
let GROUP_KEYS: readonly string[] = [];

/** Name, title and description of each report definition (reports/*.json), for `report --help`. */
function reportCatalog(): { name: string; title: string; description: string }[] {
  const dir = join(packageRoot(), 'reports');
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { name: string; title: string; description: string });
  } catch {
    return [];
  }
}

/**
 * The options that may be given more than once, each occurrence with one
 * value (`--root A --root B`); declared as strings, not `array` (an array
 * option takes every word after it: `--root X report` lost its command).
 * yargs collects a repeated string option into an array
 * (duplicate-arguments-array); the middleware below makes one value an array too.
 */
const REPEATABLE = ['root', 'from', 'remove'];

/** The commands whose --format follows the --out file's extension when --format is not given, and the formats they write. */
const OUT_FILE_COMMANDS: Record<string, string[]> = { report: ['table', 'json', 'csv', 'html'], demo: ['table', 'json', 'csv', 'html'], limits: ['table', 'json', 'csv'] };

/** `demo`: a report on sample data, so without --demo and --from (which pick the data). */
function reportOptions<T>(y: Argv<T>, forDemo = false) {
  const catalog = reportCatalog();
  const o = y
    .positional('name', {
      type: 'string',
      describe: `the report (default summary): ${catalog.map((r) => r.name).join(', ')}`,
    })
    .option('since', { type: 'string', describe: 'first day: Nd, Nw, Nm back from today, or YYYY-MM-DD (or YYYYMMDD) (default 30d)' })
    .option('until', { type: 'string', describe: 'last day, inclusive (default today)' })
    .option('by', { type: 'string', describe: `comma list of ${GROUP_KEYS.join(', ')} (default day)` })
    .option('harness', { type: 'string', describe: `comma list of ${HARNESS_IDS.join(', ')}` })
    .option('project', { type: 'string', describe: 'only projects whose path contains TEXT' })
    .option('tz', { type: 'string', describe: 'IANA time zone for days (default: the system zone)' })
    .option('format', { type: 'string', describe: 'table | json | csv | html (default table, or what the --out file name ends in: .csv, .json, .html)' })
    .option('out', { type: 'string', describe: 'write the report to FILE instead of stdout (replaces only a file tx-usage wrote)' })
    .option('force', { type: 'boolean', describe: 'with --out: replace the file even if tx-usage did not write it' })
    .option('cost', { type: 'string', describe: 'auto | computed | recorded (default auto)' })
    .option('sort', { type: 'string', describe: 'row order: cost | tokens | date | name (default: days, weeks, months in order, anything else by cost)' })
    .option('machine', { type: 'string', describe: 'name of this machine for --by machine (default: config, else host name)' })
    .option('token-limit', { type: 'string', describe: 'report blocks: tokens per block to compare each block with, or "max" (the largest finished block)' });
  const data = forDemo
    ? o
    : o
        .option('demo', { type: 'boolean', describe: 'report on generated sample data instead of your files' })
        .option('from', { type: 'string', describe: 'report on exported Parquet (file, folder or glob) instead of the local store; repeat --from for more' });
  return data.epilog(['Reports:', ...catalog.map((r) => `  ${r.name.padEnd(10)} ${r.title}: ${r.description}`)].join('\n'));
}

/** The options yargs knows by type (getOptions is public API without a type). */
const optionsOf = (y: unknown) => (y as { getOptions(): { array: string[]; string: string[]; boolean: string[] } }).getOptions();

const COMPLETION_HELP = 'print a bash/zsh completion script (add `source <(tx-usage completion)` to ~/.bashrc or ~/.zshrc)';

const COMMANDS = ['report', 'demo', 'limits', 'statusline', 'watch', 'check', 'ingest', 'import', 'export', 'sources', 'explain', 'sql', 'mcp', 'serve', 'prices', 'completion'];

/** The command as typed (`report`, `prices show`), for "tx-usage <command> --help". */
function commandOf(argv: string[]): string {
  const at = argv.findIndex((t) => COMMANDS.includes(t));
  if (at < 0) return '';
  const next = argv.slice(at + 1).find((t) => !t.startsWith('-'));
  return argv[at] === 'prices' && (next === 'show' || next === 'update') ? `prices ${next}` : argv[at]!;
}

/** yargs' messages for an unknown option and a missing argument, said in the user's terms; null for the others. `known`: the options of the command. */
function userTerms(argv: string[], msg: string, known: string[]): string | null {
  const cmd = commandOf(argv);
  const unknown = /^Unknown arguments?: (.+)$/.exec(msg.trim());
  if (unknown) {
    const names = unknown[1].split(', ').map((n) => n.trim());
    // A first word that is no command (yargs calls it an unknown argument).
    const first = argv.find((t) => !t.startsWith('-'));
    if (!cmd && first !== undefined && names.includes(first)) return `unknown command ${JSON.stringify(first)} (${commandHint(first) ?? 'tx-usage --help lists the commands'})`;
    // The option as typed (-s, --bogus, --format=json), else the word yargs named (a stray positional).
    const typed = names.map((n) => {
      const t = argv.find((a) => a.startsWith('-') && a.replace(/^-+/, '').split('=')[0] === n);
      return t ? t.split('=')[0] : null;
    });
    const option = typed.find((t) => t !== null);
    const help = `(tx-usage ${cmd ? `${cmd} ` : ''}--help lists the options)`;
    if (option) {
      const hint = optionHint(option, known);
      return `unknown option ${option}${hint ? `: ${hint}` : ''} ${help}`;
    }
    return `unexpected argument ${JSON.stringify(names[0])} (tx-usage ${cmd ? `${cmd} ` : ''}--help shows the usage)`;
  }
  if (/^Missing required argument: out$/.test(msg.trim()) && cmd === 'export') return 'export needs --out DIR: the export folder (tx-usage export --help)';
  if (/^Not enough non-option arguments/.test(msg.trim())) {
    if (cmd === 'sql') return 'sql needs a query: tx-usage sql "SELECT ..."';
    if (cmd === 'explain') return 'explain needs a transcript file, database, folder or session id: tx-usage explain PATH';
    if (cmd === 'prices show') return 'prices show needs a model name: tx-usage prices show MODEL';
  }
  return null;
}

/**
 * An option that takes a value given none (`--from` last, or followed by
 * another option), or given a value that starts with a dash (`--since -5d`:
 * yargs reads -5d as options -5 and -d, and complains about those): said as
 * such, with the way to pass such a value. yargs itself gives such an option
 * "" (or [] when repeatable), which would report on the local store for a
 * bare `--from`; `--from ""` (an empty variable, quoted) stays a value.
 */
function missingValue(argv: string[], stringOptions: string[]): string | null {
  const takesValue = new Set(stringOptions);
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i]!;
    if (t === '--') break; // what follows is positional
    if (!t.startsWith('--') || t.includes('=') || !takesValue.has(t.slice(2))) continue;
    const next = argv[i + 1];
    if (next === undefined) return `${t} needs a value`;
    if (next.startsWith('-') && next !== '-') return `${t} needs a value (${JSON.stringify(next)} reads as an option; to pass it as the value, write ${t}=${next})`;
  }
  return null;
}

/** Runs a report on generated sample data in a private temporary home and store. */
async function demo(rt: Runtime, a: ReportArgs): Promise<void> {
  const { writeDemoHome } = await import('../../fixtures/demo.js');
  const dir = makeDemoDir();
  // Ctrl-C: the generated home goes at once (a kill leaves it to the next run's sweep, workdir.ts).
  const interrupted = () => {
    try {
      // Files still being written meanwhile can make a pass fail (ENOTEMPTY): retried; what stays is swept later.
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
    } catch {
      /* the next run's sweep removes it (its pid is gone) */
    }
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const home = join(dir, 'home');
    await writeDemoHome(home, new Date());
    const env = { PATH: process.env.PATH, HOME: home, TZ: process.env.TZ };
    const demoRt: Runtime = { ...rt, home, env, dbPath: join(dir, 'demo.duckdb'), dbGiven: false, rootOverrides: {}, outputsDir: cacheDir(rt.env, rt.home) };
    // On stderr for every format: a CSV has no place for a comment (its JSON says "demo": true, its HTML says so in title and footer).
    // Said once the arguments are known to be valid, so that a usage error stays one line.
    const notice = () => {
      if (!rt.quiet) process.stderr.write('tx-usage: demo mode: generated sample data, not your files\n');
    };
    const { reportCommand } = await import('./report.js');
    await reportCommand(demoRt, { ...a, demo: true }, notice);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `report`: replayed from the memo when no input and no source changed, else run in full and memoized. */
async function report(rt: Runtime, a: ReportArgs, argv: string[]): Promise<void> {
  const probe = await replayReport(rt, a as Record<string, unknown>);
  if (probe.hit) return;
  const { reportCommand } = await import('./report.js');
  await reportCommand(rt, a);
  saveReportMemo(rt, probe, argv, a as Record<string, unknown>);
}

async function main(argv: string[]): Promise<void> {
  // yargs answers `completion --help` with the script itself: the help it would give a command instead.
  if (argv[0] === 'completion' && argv.some((t) => t === '--help' || t === '-h')) {
    process.stdout.write(`tx-usage completion\n\n${COMPLETION_HELP}\n`);
    return;
  }
  // A report seen before, with nothing changed since, is answered before yargs
  // (~50 ms) loads; one seen before with changes runs on the arguments yargs made of it then.
  if (argv[0] === 'report') {
    // The bin entry (fast.cjs) may have asked already.
    const fast = probeFromFastPath() ?? (await replayByArgv(argv));
    mark(fast.hit ? 'memo hit' : 'memo miss');
    if (fast.hit) return;
    if (fast.seen) return report(fast.seen.rt, fast.seen.args as ReportArgs, argv);
  }
  const [{ default: yargs }, groups] = await Promise.all([importModule<typeof import('yargs')>('yargs'), import('../report/groups.js')]);
  GROUP_KEYS = groups.GROUP_KEYS;
  const run = (fn: (rt: Runtime, args: any) => Promise<void>) => async (args: any) => {
    await fn(runtimeFrom(args as GlobalArgs), args);
  };
  const commands = COMMANDS.join(', ');
  const y = yargs(argv)
    .scriptName('tx-usage')
    .usage('$0 <command> [options]\n\nWhat your AI coding agents cost you: token and cost reports from local transcripts.')
    .option('db', { type: 'string', describe: 'store file (default $XDG_CACHE_HOME/tx-usage/usage.duckdb)', global: true })
    .option('root', { type: 'string', describe: 'HARNESS=PATH data root (repeat --root for more)', global: true })
    .option('quiet', { type: 'boolean', describe: 'no notices, warnings or progress on stderr', global: true })
    .option('color', { type: 'boolean', describe: 'colour in tables: on a terminal unless NO_COLOR is set; --color forces it (piped too), --no-color turns it off', global: true })
    .option('rebuild', { type: 'boolean', describe: 'discard the store and re-read every source (with --yes when it keeps history of deleted transcripts)', global: true })
    .option('yes', { type: 'boolean', describe: 'confirm --rebuild when it would drop history that cannot be read again', global: true })
    .option('prices', { type: 'string', describe: 'price overrides FILE in LiteLLM format; wins over the bundled prices for the models it names', global: true })
    .command(
      'report [name]',
      'report usage and cost: summary (default), monthly, compare, blocks (refreshes the store first; report --help describes them)',
      (c) => reportOptions(c),
      run(async (rt, a) => (a.demo ? demo(rt, a) : report(rt, a, argv))),
    )
    .command('demo [name]', 'a report on generated sample data (try it on a machine with no harness data)', (c) => reportOptions(c, true), run(demo))
    .command(
      'limits',
      'plan rate limits per harness and window (5 h, weekly): used %, reset time, peak and spend per window',
      (y) =>
        y
          .option('since', { type: 'string', describe: 'list windows resetting since: Nd, Nw, Nm back from today, or YYYY-MM-DD (default 7d)' })
          .option('tz', { type: 'string', describe: 'IANA time zone for times (default: the system zone)' })
          .option('harness', { type: 'string', describe: 'comma list of harnesses (default: all that record limits)' })
          .option('format', { type: 'string', describe: 'table | json | csv (default table, or what the --out file name ends in: .csv, .json)' })
          .option('out', { type: 'string', describe: 'write to FILE instead of stdout' }),
      run(async (rt, a) => (await import('./limits.js')).limitsCommand(rt, a)),
    )
    .command(
      'statusline',
      "one status line for Claude Code's statusLine setting, from its JSON on stdin (see README)",
      (y) => y.options(STATUSLINE_FLAGS),
      run(async (rt, a) => {
        const m = await import('./statusline.js');
        await (a.refresh ? m.statuslineRefresh(rt) : m.statuslineCommand(a));
      }),
    )
    .command(
      'watch',
      'full-screen live view: the active 5-hour block, today per harness, active sessions, plan limits, budgets (q quits)',
      (y) =>
        y
          .option('tz', { type: 'string', describe: 'IANA time zone for today and clock times (default: config statusline.tz, else the system zone)' })
          .option('harness', { type: 'string', describe: 'block families to show (default: config statusline.harnesses, else claude-code)' })
          .option('once', { type: 'boolean', describe: 'draw the screen once, as plain text, and exit' })
          .option('poll', { type: 'boolean', describe: 'look for changes every 2 s instead of file-system notifications (e.g. network mounts)' }),
      run(async (rt, a) => (await import('./watch.js')).watchCommand(rt, a)),
    )
    .command(
      'check',
      'exit 1 when a budget of the config file is exceeded or projected to be by its period\'s end (cron, CI)',
      (y) =>
        y
          .option('tz', { type: 'string', describe: 'IANA time zone days and months are cut in (default: config statusline.tz, else the system zone)' })
          .option('format', { type: 'string', default: 'table', describe: 'table | json (text is the same as table)' }),
      run(async (rt, a) => (await import('./check.js')).checkCommand(rt, a)),
    )
    .command('ingest', 'refresh the store from the harness files (report and most other commands do it first)', (y) => y, run(async (rt) => (await import('./ingest.js')).ingestCommand(rt)))
    .command(
      'export',
      'write usage as Hive-partitioned Parquet for team roll-ups and warehouses (see docs/team.md)',
      (c) =>
        c
          .option('out', { type: 'string', demandOption: true, describe: 'export folder (shared by any number of machines)' })
          .option('since', { type: 'string', describe: 'first day: Nd, Nw, Nm back from today, or YYYY-MM-DD (default: everything)' })
          .option('until', { type: 'string', describe: 'last day, inclusive (default today)' })
          .option('tz', { type: 'string', describe: 'IANA time zone --since/--until are read in (default: the system zone)' })
          .option('machine', { type: 'string', describe: 'name of this machine in the files (default: config, else host name)' })
          .option('anonymize', { type: 'boolean', describe: 'replace project paths and session ids with salted hashes' })
          .option('salt', { type: 'string', describe: 'salt for --anonymize (default: "export.salt" in the config file)' })
          .option('format', { type: 'string', default: 'table', describe: 'table | json (what was written)' }),
      run(async (rt, a) => (await import('./export.js')).exportCommand(rt, a)),
    )
    .command(
      'import [kind] [files..]',
      "import a usage export the harness keeps no copy of: cursor-usage (Cursor's dashboard usage CSV); --list, --remove ID",
      (y) =>
        y
          .positional('kind', { type: 'string', describe: 'what the files are: cursor-usage' })
          .positional('files', { type: 'string', array: true, describe: 'CSV files, folders or globs' })
          .option('list', { type: 'boolean', describe: 'list the imports kept in the cache dir' })
          .option('remove', { type: 'string', describe: 'remove an import (id from --list, or the imported file) and its rows; repeat --remove for more' })
          .option('format', { type: 'string', default: 'table', describe: 'table | json' }),
      run(async (rt, a) => (await import('./import.js')).importCommand(rt, a)),
    )
    .command(
      'sources',
      'list roots searched, files found, events extracted and lines skipped',
      (c) => c.option('format', { type: 'string', default: 'table', describe: 'table | json' }),
      run(async (rt, a) => (await import('./sources.js')).sourcesCommand(rt, a.format)),
    )
    .command(
      'explain <paths..>',
      'why each usage record of a transcript, database or session counts or not: its line, what it was counted as, the rule, the tokens and cost it added',
      (c) =>
        c
          // No default: yargs' [] showed as "[default: []]" beside "[required]" in the help.
          .positional('paths', { type: 'string', array: true, default: undefined, describe: 'transcript files, databases, folders (every source in them) or session ids' })
          .option('since', { type: 'string', describe: 'window start: Nd, Nw, Nm back from today, or YYYY-MM-DD; records outside the window add nothing (default: no window)' })
          .option('until', { type: 'string', describe: 'window end, inclusive (default today when --since is given)' })
          .option('tz', { type: 'string', describe: 'IANA time zone the window\'s days are cut in (default: the system zone)' })
          .option('cost', { type: 'string', describe: 'auto | computed | recorded, as in report (default auto)' })
          .option('format', { type: 'string', default: 'table', describe: 'table | json | csv' }),
      run(async (rt, a) => (await import('./explain.js')).explainCommand(rt, a)),
    )
    .command(
      'sql <query>',
      'run read-only SQL against the store: the `usage` view (one row per billed response), billed_events, sources, ... (docs/sql.md)',
      (c) =>
        c
          .positional('query', { type: 'string', demandOption: true, describe: 'one SQL statement; files, network and extensions are refused' })
          .option('format', { type: 'string', default: 'table', describe: 'table | json | csv' }),
      run(async (rt, a) => (await import('./sql.js')).sqlCommand(rt, a.query, a.format)),
    )
    .command('mcp', 'MCP server on stdio for AI agents: usage, monthly review, compare, session detail, block and limits, read-only SQL (see README)', (y) => y, run(async (rt) => (await import('./mcp.js')).mcpCommand(rt)))
    .command('serve', 'local dashboard in the browser (127.0.0.1, token in the URL): overview, sessions, compare, monthly; live', (y) => y.option('port', { type: 'number', describe: 'port (default: a free one)' }).option('poll', { type: 'boolean', describe: 'look for changes every 2 s instead of file-system notifications' }), run(async (rt, a) => (await import('./serve.js')).serveCommand(rt, a)))
    .command('prices', 'show the price that applies to a model, or update the price data', (c) =>
      c
        .command(
          'show <model>',
          'resolved prices for MODEL and which override or price-data entry matched',
          (s) =>
            s
              .positional('model', { type: 'string', demandOption: true })
              .option('provider', { type: 'string', describe: 'provider id, as Pi and OpenCode record it (e.g. openrouter)' })
              .option('at', { type: 'string', describe: 'prices in force at this date or time (default now)' })
              .option('format', { type: 'string', default: 'text', describe: 'text | json' }),
          run(async (rt, a) => void (process.exitCode = await (await import('./pricing.js')).pricesShowCommand(rt, a))),
        )
        .command('update', 'download the newest price data into the cache dir (the only network access)', (s) => s, run(async (rt) => void (process.exitCode = await (await import('./pricing.js')).pricesUpdateCommand(rt))))
        .demandCommand(1, 'name a prices command: show or update'),
    )
    // An option given twice: the last one wins (a shell alias often sets one),
    // for every command; the repeatable ones (REPEATABLE, and variadic
    // positionals, declared `array`) keep them all, as an array even when given once.
    .middleware((args) => {
      const opts = optionsOf(y);
      const missing = missingValue(argv, opts.string);
      if (missing) throw new UsageError(missing);
      const repeatable = new Set([...opts.array, ...REPEATABLE]);
      for (const [k, v] of Object.entries(args)) {
        if (k === '_') continue;
        if (Array.isArray(v) && !repeatable.has(k)) args[k] = v[v.length - 1];
        else if (typeof v === 'string' && REPEATABLE.includes(k)) args[k] = [v];
      }
      // --out r.csv without --format: the format its name ends in (an explicit --format wins).
      const cmd = String(args._[0]);
      if (Object.hasOwn(OUT_FILE_COMMANDS, cmd) && typeof args.out === 'string' && args.format === undefined) {
        const f = formatOfOutFile(args.out);
        if (f && !OUT_FILE_COMMANDS[cmd]!.includes(f)) throw new UsageError(`--out ${args.out}: ${cmd} writes no ${f}; add --format ${OUT_FILE_COMMANDS[cmd]!.join('|')}`);
        if (f) args.format = f;
      }
    }, true)
    .completion('completion', COMPLETION_HELP)
    // Every example here is run by test/readme-examples.test.ts.
    .example('$0 report', 'the last 30 days per day, every harness')
    .example('$0 report --since 7d --by harness,model', 'last week per harness and model')
    .example('$0 report monthly --format html --out month.html', 'the monthly spend review as one HTML file')
    .example('$0 report compare', 'what a prompt costs in each harness')
    .example('$0 report --demo', 'the same on generated sample data')
    .example('$0 watch', 'live: the active 5-hour block, today, budgets')
    .demandCommand(1, `name a command: ${commands}`)
    .strict()
    .fail((msg, err, inst) => {
      if (err) throw err;
      // `tx-usage` alone: the command list, as --help gives it.
      if (argv.length === 0) {
        inst.showHelp((s: string) => process.stdout.write(`${s}\n`));
        process.exit(0);
      }
      // One line: what is wrong, and where the usage is.
      const opts = optionsOf(y);
      const said = missingValue(argv, opts.string) ?? userTerms(argv, msg, [...opts.string, ...opts.boolean]);
      process.stderr.write(messageLine(said ?? `${msg.replace(/\s*\n\s*/g, ' ')} (see tx-usage --help)`));
      process.exit(2);
    })
    .help()
    .alias('h', 'help')
    .version()
    // Not outputColumns(): this runs on every command line, a memoized report's too, and
    // noting the terminal here keys every report memo (JSON, CSV, HTML, --out) on the
    // terminal and its width, which only a table depends on (report.ts asks for tables
    // only): tried, a JSON report run on a terminal after a piped one then missed its memo.
    // The width shapes help text alone, and help is never memoized (memo.ts).
    .wrap(Math.min(100, process.stdout.columns || 80));
  await y.parseAsync();
}

exitQuietlyWhenStdoutCloses();
// What yargs' hideBin returns under Node, without loading yargs for it.
main(process.argv.slice(2)).catch(async (e: unknown) => {
  if (e instanceof UsageError) {
    process.stderr.write(messageLine(e.message));
    process.exit(2);
  }
  const { StoreError } = await import('../store/errors.js');
  const msg = e instanceof StoreError ? e.message : (e as Error)?.message ?? String(e);
  process.stderr.write(messageLine(msg));
  if (process.env.TX_USAGE_DEBUG) process.stderr.write(`${printableLines(String((e as Error)?.stack))}\n`);
  process.exit(e instanceof StoreError ? e.exitCode : 1);
});
