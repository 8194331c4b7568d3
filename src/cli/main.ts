#!/usr/bin/env node
// tx-usage command line: yargs commands only; they orchestrate, they do not
// parse harness files or build SQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Argv } from 'yargs';
import { UsageError } from '../report/period.js';
import { replayByArgv, replayReport, saveReportMemo, takeHandedProbe } from './memo.js';
import type { ReportArgs } from './report.js';
import { runtimeFrom, type GlobalArgs, type Runtime } from './runtime.js';
import { plainReportArgs } from './plain-args.js';
import { mark } from '../core/trace.js';
import { exitAfterOutput, exitQuietlyWhenStdoutCloses } from './closed-stdout.js';
import { importModule } from './code-cache.js';
// Command modules are imported when their command runs: most of them load
// DuckDB, which a report answered from its memo never needs.

/** The group keys, for the help text: loaded with yargs, not on the memo's path. */
let GROUP_KEYS: readonly string[] = [];

function reportOptions<T>(y: Argv<T>) {
  return y
    .positional('name', { type: 'string', describe: 'report: summary (default), or another definition in reports/' })
    .option('since', { type: 'string', describe: 'first day: Nd, Nw, Nm back from today, or YYYY-MM-DD (default 30d)' })
    .option('until', { type: 'string', describe: 'last day, inclusive (default today)' })
    .option('by', { type: 'string', describe: `comma list of ${GROUP_KEYS.join(', ')} (default day)` })
    .option('harness', { type: 'string', describe: 'comma list of claude-code, codex, cursor-agent, opencode, pi' })
    .option('project', { type: 'string', describe: 'only projects whose path contains TEXT' })
    .option('tz', { type: 'string', describe: 'IANA time zone for days (default: the system zone)' })
    .option('format', { type: 'string', describe: 'table | json | csv | html', default: 'table' })
    .option('out', { type: 'string', describe: 'write the report to FILE instead of stdout' })
    .option('cost', { type: 'string', describe: 'auto | computed | recorded (default auto)' })
    .option('demo', { type: 'boolean', describe: 'report on generated sample data instead of your files' })
    .option('from', { type: 'string', array: true, describe: 'report on exported Parquet (file, folder or glob; repeatable) instead of the local store' })
    .option('machine', { type: 'string', describe: 'name of this machine for --by machine (default: config, else host name)' });
}

/** Runs a report on generated sample data in a private temporary home and store. */
async function demo(rt: Runtime, a: ReportArgs): Promise<void> {
  const { writeDemoHome } = await import('../../fixtures/demo.js');
  const dir = mkdtempSync(join(tmpdir(), 'tx-usage-demo-'));
  try {
    const home = join(dir, 'home');
    await writeDemoHome(home, new Date());
    const env = { PATH: process.env.PATH, HOME: home, TZ: process.env.TZ };
    const demoRt: Runtime = { ...rt, home, env, dbPath: join(dir, 'demo.duckdb'), rootOverrides: {} };
    if (!rt.quiet && a.format !== 'json' && a.format !== 'csv') process.stderr.write('tx-usage: demo mode: generated sample data, not your files\n');
    const { reportCommand } = await import('./report.js');
    await reportCommand(demoRt, a);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `report`: replayed from the memo when no source changed, else run in full and memoized. */
async function report(rt: Runtime, a: ReportArgs, argv: string[]): Promise<void> {
  const probe = await replayReport(rt, a as Record<string, unknown>);
  if (probe.hit) return;
  const { reportCommand } = await import('./report.js');
  await reportCommand(rt, a);
  saveReportMemo(rt, probe, argv, a as Record<string, unknown>);
}

async function main(argv: string[]): Promise<void> {
  // A report seen before, with nothing changed since, is answered before yargs
  // (~50 ms) loads; one seen before with changes runs on the arguments yargs made of it then.
  if (argv[0] === 'report') {
    // The bin entry (fast.cjs) may have asked already.
    const fast = takeHandedProbe() ?? (await replayByArgv(argv));
    mark(fast.hit ? 'memo hit' : 'memo miss');
    if (fast.hit) return;
    if (fast.seen) return report(fast.seen.rt, fast.seen.args as ReportArgs, argv);
    // A plain command line is read without loading yargs (plain-args.ts).
    const plain = plainReportArgs(argv);
    if (plain) return report(runtimeFrom(plain as GlobalArgs), plain as ReportArgs, argv);
  }
  const [{ default: yargs }, groups] = await Promise.all([importModule<typeof import('yargs')>('yargs'), import('../report/groups.js')]);
  GROUP_KEYS = groups.GROUP_KEYS;
  const run = (fn: (rt: Runtime, args: any) => Promise<void>) => async (args: any) => {
    await fn(runtimeFrom(args as GlobalArgs), args);
  };
  await yargs(argv)
    .scriptName('tx-usage')
    .usage('$0 <command> [options]\n\nWhat your AI coding agents cost you: token and cost reports from local transcripts.')
    .option('db', { type: 'string', describe: 'store file (default $XDG_CACHE_HOME/tx-usage/usage.duckdb)', global: true })
    .option('root', { type: 'string', array: true, describe: 'HARNESS=PATH data root (repeatable)', global: true })
    .option('quiet', { type: 'boolean', describe: 'no notices, warnings or progress on stderr', global: true })
    .option('color', { type: 'boolean', describe: 'colour in tables (--no-color to disable; NO_COLOR is honoured)', global: true })
    .option('rebuild', { type: 'boolean', describe: 'discard the store and re-read every source', global: true })
    .option('prices', { type: 'string', describe: 'price overrides FILE in LiteLLM format; wins over the bundled prices for the models it names', global: true })
    .command(
      'report [name]',
      'report usage and cost (refreshes the store first)',
      (y) => reportOptions(y),
      run(async (rt, a) => (a.demo ? demo(rt, a) : report(rt, a, argv))),
    )
    .command('demo [name]', 'the report on generated sample data', (y) => reportOptions(y), run(demo))
    .command('ingest', 'refresh the store from the harness files', (y) => y, run(async (rt) => (await import('./ingest.js')).ingestCommand(rt)))
    .command(
      'export',
      'write usage as Hive-partitioned Parquet for team roll-ups and warehouses (see docs/team.md)',
      (y) =>
        y
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
      'sources',
      'list roots searched, files found, events extracted and lines skipped',
      (y) => y.option('format', { type: 'string', default: 'table', describe: 'table | json' }),
      run(async (rt, a) => (await import('./sources.js')).sourcesCommand(rt, a.format)),
    )
    .command(
      'sql <query>',
      'run read-only SQL against the store (tables: usage_events, billed_events, context_rows, sources, ...)',
      (y) =>
        y
          .positional('query', { type: 'string', demandOption: true })
          .option('format', { type: 'string', default: 'table', describe: 'table | json | csv' }),
      run(async (rt, a) => (await import('./sql.js')).sqlCommand(rt, a.query, a.format)),
    )
    .command('prices', 'show the price that applies to a model, or update the price data', (y) =>
      y
        .command(
          'show <model>',
          'resolved prices for MODEL and which override or price-data entry matched',
          (c) =>
            c
              .positional('model', { type: 'string', demandOption: true })
              .option('provider', { type: 'string', describe: 'provider id, as Pi and OpenCode record it (e.g. openrouter)' })
              .option('at', { type: 'string', describe: 'prices in force at this date or time (default now)' })
              .option('format', { type: 'string', default: 'text', describe: 'text | json' }),
          run(async (rt, a) => void (process.exitCode = await (await import('./pricing.js')).pricesShowCommand(rt, a))),
        )
        .command('update', 'download the newest price data into the cache dir (the only network access)', (c) => c, run(async (rt) => void (process.exitCode = await (await import('./pricing.js')).pricesUpdateCommand(rt))))
        .demandCommand(1, 'name a prices command: show or update'),
    )
    .demandCommand(1, 'name a command: report, ingest, export, sources, sql or demo')
    .strict()
    .fail((msg, err) => {
      if (err) throw err;
      process.stderr.write(`tx-usage: ${msg}\nRun tx-usage --help for usage.\n`);
      process.exit(2);
    })
    .help()
    .wrap(Math.min(100, process.stdout.columns ?? 80))
    .parseAsync();
}

exitQuietlyWhenStdoutCloses();
// What yargs' hideBin returns under Node, without loading yargs for it.
main(process.argv.slice(2)).then(() => exitAfterOutput(), async (e: unknown) => {
  if (e instanceof UsageError) {
    process.stderr.write(`tx-usage: ${e.message}\n`);
    process.exit(2);
  }
  const { StoreError } = await import('../store/errors.js');
  const msg = e instanceof StoreError ? e.message : (e as Error)?.message ?? String(e);
  process.stderr.write(`tx-usage: ${msg}\n`);
  if (process.env.TX_USAGE_DEBUG) process.stderr.write(`${(e as Error)?.stack}\n`);
  process.exit(1);
});
