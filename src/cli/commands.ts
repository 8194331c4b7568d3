// The command line, declared once: every command, its positionals and
// options, the global options, and what runs each command. Two readers take
// it: args.ts, which reads a well-formed command line without loading yargs
// (what almost every run is), and main.ts, which builds yargs from it for
// everything else (help, completion, anything args.ts is not sure of, and the
// error messages). The command modules are imported when their command runs:
// most of them load DuckDB, which a report answered from its memo never needs.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../report/period.js';
import { runtimeFrom, type GlobalArgs, type Runtime } from './runtime.js';
import type { ReportArgs } from './report.js';
import { makeDemoDir } from './workdir.js';
import { cacheDir } from '../core/cache-dir.js';
import { HARNESS_IDS } from '../core/types.js';
import { STATUSLINE_FLAGS } from './statusline-flags.js';
import { formatOfOutFile, refuseHtmlToTerminal } from './out-file.js';
import { replayReport, saveReportMemo } from './memo.js';
import { CCUSAGE_COMMANDS } from '../compat/ccusage/commands.js';

export type { CommandSpec, OptionSpec, PositionalSpec } from './command-spec.js';
import type { CommandSpec, OptionSpec, PositionalSpec } from './command-spec.js';

/** Options every command takes (before or after the command's name). */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  db: { type: 'string', describe: 'store file (default $XDG_CACHE_HOME/tx-usage/usage.duckdb)' },
  root: { type: 'string', describe: 'HARNESS=PATH data root (repeat --root for more)' },
  quiet: { type: 'boolean', describe: 'no notices, warnings or progress on stderr (also -q)' },
  color: {
    type: 'boolean',
    describe:
      'colour in tables: on a terminal unless NO_COLOR is set; --color forces it (piped too), --no-color turns it off',
  },
  rebuild: {
    type: 'boolean',
    describe: 'discard the store and re-read every source (with --yes when it keeps history of deleted transcripts)',
  },
  yes: { type: 'boolean', describe: 'confirm --rebuild when it would drop history that cannot be read again' },
  prices: {
    type: 'string',
    describe: 'price overrides FILE in LiteLLM format; wins over the bundled prices for the models it names',
  },
};

/**
 * The options that may be given more than once, each occurrence with one
 * value (`--root A --root B`); declared as strings, not `array` (an array
 * option takes every word after it: `--root X report` lost its command).
 * Repeated, they are collected into an array (even when given once); any
 * other option given twice keeps its last value (a shell alias often sets one).
 */
export const REPEATABLE = ['root', 'from', 'remove'];

/** The commands whose --format follows the --out file's extension when --format is not given, and the formats they write. */
const OUT_FILE_COMMANDS: Record<string, string[]> = {
  report: ['table', 'json', 'csv', 'html'],
  demo: ['table', 'json', 'csv', 'html'],
  limits: ['table', 'json', 'csv'],
};

export const COMPLETION_HELP =
  'print a bash/zsh completion script (add `source <(tx-usage completion)` to ~/.bashrc or ~/.zshrc)';

/** Known only once loaded (the group keys, the report definitions): filled by main.ts for the help text. */
export const helpFacts: {
  groupKeys: readonly string[];
  reports: { name: string; title: string; description: string }[];
} = { groupKeys: [], reports: [] };

/** `demo`: a report on generated sample data, so without --demo and --from (which pick the data). */
function reportOptionSpecs(forDemo: boolean): Record<string, OptionSpec> {
  const o: Record<string, OptionSpec> = {
    since: {
      type: 'string',
      describe:
        'first day: Nd, Nw, Nm (the last N days, weeks, months, today included), or YYYY-MM-DD (or YYYYMMDD) (default 30d, ending at --until)',
    },
    until: { type: 'string', describe: 'last day, inclusive (default today)' },
    by: { type: 'string', describe: () => `comma list of ${helpFacts.groupKeys.join(', ')} (default day)` },
    harness: { type: 'string', describe: `comma list of ${HARNESS_IDS.join(', ')}` },
    project: { type: 'string', describe: 'only projects whose path contains TEXT' },
    model: { type: 'string', describe: 'comma list of exact model ids (as --by model lists them; not for blocks)' },
    tz: { type: 'string', describe: 'IANA time zone for days (default: the system zone)' },
    format: {
      type: 'string',
      describe: 'table | json | csv | html (default table, or what the --out file name ends in: .csv, .json, .html)',
    },
    out: {
      type: 'string',
      describe: 'write the report to FILE instead of stdout (replaces only a file tx-usage wrote)',
    },
    force: { type: 'boolean', describe: 'with --out: replace the file even if tx-usage did not write it' },
    cost: { type: 'string', describe: 'auto | computed | recorded (default auto)' },
    sort: {
      type: 'string',
      describe: 'row order: cost | tokens | date | name (default: days, weeks, months in order, anything else by cost)',
    },
    machine: { type: 'string', describe: 'name of this machine for --by machine (default: config, else host name)' },
    'token-limit': {
      type: 'string',
      describe: 'report blocks: tokens per block to compare each block with, or "max" (the largest finished block)',
    },
    all: { type: 'boolean', describe: 'report compare: every row, those with too few prompts to compare included' },
  };
  if (!forDemo) {
    o.demo = { type: 'boolean', describe: 'report on generated sample data instead of your files' };
    o.from = {
      type: 'string',
      describe: 'report on exported Parquet (file, folder or glob) instead of the local store; repeat --from for more',
    };
  }
  return o;
}

const reportEpilog = () =>
  ['Reports:', ...helpFacts.reports.map((r) => `  ${r.name.padEnd(10)} ${r.title}: ${r.description}`)].join('\n');
const reportName: PositionalSpec = { name: 'name', required: false, describe: 'the report (default summary)' };

export const COMMANDS: CommandSpec[] = [
  {
    words: ['report'],
    positionals: [reportName],
    describe:
      'report usage and cost: summary (default), monthly, compare, blocks (refreshes the store first; report --help describes them)',
    options: reportOptionSpecs(false),
    epilog: reportEpilog,
    run: async (rt, a: ReportArgs) => (a.demo ? demo(rt, a) : report(rt, a)),
  },
  {
    words: ['demo'],
    positionals: [reportName],
    describe: 'a report on generated sample data (try it on a machine with no harness data)',
    options: reportOptionSpecs(true),
    epilog: reportEpilog,
    run: demo,
  },
  {
    words: ['limits'],
    positionals: [],
    describe: 'plan rate limits per harness and window (5 h, weekly): used %, reset time, peak and spend per window',
    options: {
      since: {
        type: 'string',
        describe:
          'list windows resetting since: Nd, Nw, Nm (the last N days, weeks, months, today included), or YYYY-MM-DD (default 7d)',
      },
      tz: { type: 'string', describe: 'IANA time zone for times (default: the system zone)' },
      harness: { type: 'string', describe: 'comma list of harnesses (default: all that record limits)' },
      format: {
        type: 'string',
        describe: 'table | json | csv (default table, or what the --out file name ends in: .csv, .json)',
      },
      out: { type: 'string', describe: 'write to FILE instead of stdout' },
    },
    run: async (rt, a) => (await import('./limits.js')).limitsCommand(rt, a),
  },
  {
    words: ['statusline'],
    positionals: [],
    describe: "one status line for Claude Code's statusLine setting, from its JSON on stdin (see README)",
    options: STATUSLINE_FLAGS as unknown as Record<string, OptionSpec>,
    run: async (rt, a) => {
      const m = await import('./statusline.js');
      await (a.refresh ? m.statuslineRefresh(rt) : m.statuslineCommand(a));
    },
  },
  {
    words: ['watch'],
    positionals: [],
    describe:
      'full-screen live view: the active 5-hour block, today per harness, active sessions, plan limits, budgets (q quits)',
    options: {
      tz: {
        type: 'string',
        describe: 'IANA time zone for today and clock times (default: config statusline.tz, else the system zone)',
      },
      harness: {
        type: 'string',
        describe: 'block families to show (default: config statusline.harnesses, else claude-code)',
      },
      once: { type: 'boolean', describe: 'draw the screen once, as plain text, and exit' },
      poll: {
        type: 'boolean',
        describe: 'look for changes every 2 s instead of file-system notifications (e.g. network mounts)',
      },
    },
    run: async (rt, a) => (await import('./watch.js')).watchCommand(rt, a),
  },
  {
    words: ['check'],
    positionals: [],
    describe: "exit 1 when a budget of the config file is exceeded or projected to be by its period's end (cron, CI)",
    options: {
      tz: {
        type: 'string',
        describe: 'IANA time zone days and months are cut in (default: config statusline.tz, else the system zone)',
      },
      format: { type: 'string', default: 'table', describe: 'table | json (text is the same as table)' },
    },
    run: async (rt, a) => (await import('./check.js')).checkCommand(rt, a),
  },
  {
    words: ['ingest'],
    positionals: [],
    describe: 'refresh the store from the harness files (report and most other commands do it first)',
    options: {},
    run: async (rt) => (await import('./ingest.js')).ingestCommand(rt),
  },
  {
    words: ['export'],
    positionals: [],
    describe: 'write usage as Hive-partitioned Parquet for team roll-ups and warehouses (see docs/team.md)',
    options: {
      out: { type: 'string', demandOption: true, describe: 'export folder (shared by any number of machines)' },
      since: {
        type: 'string',
        describe:
          'first day: Nd, Nw, Nm (the last N days, weeks, months, today included), or YYYY-MM-DD (default: everything)',
      },
      until: { type: 'string', describe: 'last day, inclusive (default today)' },
      tz: { type: 'string', describe: 'IANA time zone --since/--until are read in (default: the system zone)' },
      machine: { type: 'string', describe: 'name of this machine in the files (default: config, else host name)' },
      anonymize: { type: 'boolean', describe: 'replace project paths and session ids with salted hashes' },
      salt: { type: 'string', describe: 'salt for --anonymize (default: "export.salt" in the config file)' },
      format: { type: 'string', default: 'table', describe: 'table | json (what was written)' },
    },
    run: async (rt, a) => (await import('./export.js')).exportCommand(rt, a),
  },
  {
    words: ['import'],
    positionals: [
      { name: 'kind', required: false, describe: 'what the files are: cursor-usage' },
      { name: 'files', required: false, array: true, describe: 'CSV files, folders or globs' },
    ],
    describe:
      "import a usage export the harness keeps no copy of: cursor-usage (Cursor's dashboard usage CSV); --list, --remove ID",
    options: {
      list: { type: 'boolean', describe: 'list the imports kept in the cache dir' },
      remove: {
        type: 'string',
        describe: 'remove an import (id from --list, or the imported file) and its rows; repeat --remove for more',
      },
      format: { type: 'string', default: 'table', describe: 'table | json' },
    },
    run: async (rt, a) => (await import('./import.js')).importCommand(rt, a),
  },
  {
    words: ['sources'],
    positionals: [],
    describe: 'list roots searched, files found, events extracted and lines skipped',
    options: { format: { type: 'string', default: 'table', describe: 'table | json' } },
    run: async (rt, a) => (await import('./sources.js')).sourcesCommand(rt, a.format),
  },
  {
    words: ['explain'],
    positionals: [
      {
        name: 'paths',
        required: true,
        array: true,
        describe: 'transcript files, databases, folders (every source in them) or session ids',
      },
    ],
    describe:
      'why each usage record of a transcript, database or session counts or not: its line, what it was counted as, the rule, the tokens and cost it added',
    options: {
      since: {
        type: 'string',
        describe:
          'window start: Nd, Nw, Nm (the last N days, weeks, months, today included), or YYYY-MM-DD; records outside the window add nothing (default: no window)',
      },
      until: { type: 'string', describe: 'window end, inclusive (default today when --since is given)' },
      tz: { type: 'string', describe: "IANA time zone the window's days are cut in (default: the system zone)" },
      cost: { type: 'string', describe: 'auto | computed | recorded, as in report (default auto)' },
      format: { type: 'string', default: 'table', describe: 'table | json | csv' },
    },
    run: async (rt, a) => (await import('./explain.js')).explainCommand(rt, a),
  },
  {
    words: ['sql'],
    positionals: [
      { name: 'query', required: true, describe: 'one SQL statement; files, network and extensions are refused' },
    ],
    describe:
      'run read-only SQL against the store: the `usage` view (one row per billed response), billed_events, sources, ... (docs/sql.md)',
    options: { format: { type: 'string', default: 'table', describe: 'table | json | csv' } },
    run: async (rt, a) => (await import('./sql.js')).sqlCommand(rt, a.query, a.format),
  },
  {
    words: ['mcp'],
    positionals: [],
    describe:
      'MCP server on stdio for AI agents: usage, monthly review, compare, session detail, block and limits, read-only SQL (see README)',
    options: {},
    run: async (rt) => (await import('./mcp.js')).mcpCommand(rt),
  },
  {
    words: ['serve'],
    positionals: [],
    describe:
      'local dashboard in the browser (127.0.0.1, token in the URL): overview, sessions, compare, monthly; live',
    options: {
      port: { type: 'number', describe: 'port (default: a free one)' },
      poll: { type: 'boolean', describe: 'look for changes every 2 s instead of file-system notifications' },
    },
    run: async (rt, a) => (await import('./serve.js')).serveCommand(rt, a),
  },
  {
    words: ['prices'],
    positionals: [],
    describe: 'show the price that applies to a model, or update the price data',
    options: {},
  },
  {
    words: ['prices', 'show'],
    positionals: [{ name: 'model', required: true }],
    describe: 'resolved prices for MODEL and which override or price-data entry matched',
    options: {
      provider: { type: 'string', describe: 'provider id, as Pi and OpenCode record it (e.g. openrouter)' },
      at: { type: 'string', describe: 'prices in force at this date or time (default now)' },
      format: { type: 'string', default: 'text', describe: 'text | json' },
    },
    run: async (rt, a) => void (process.exitCode = await (await import('./pricing.js')).pricesShowCommand(rt, a)),
  },
  {
    words: ['prices', 'update'],
    positionals: [],
    describe: 'download the newest price data into the cache dir (the only network access)',
    options: {},
    run: async (rt) => void (process.exitCode = await (await import('./pricing.js')).pricesUpdateCommand(rt)),
  },
  ...CCUSAGE_COMMANDS,
];

/**
 * `-q` read as `--quiet` (what most tools take it for), before either reader
 * sees the line: one option, one key in the arguments, whoever reads it.
 * Not after `--` (what follows is positional).
 */
export function shortForms(argv: string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((t, i) => (t === '-q' && (end < 0 || i < end) ? '--quiet' : t));
}

/** The top-level command names, in the order of the help text (completion is yargs' own). */
export const COMMAND_NAMES = [...COMMANDS.filter((c) => c.words.length === 1).map((c) => c.words[0]!), 'completion'];

/**
 * An option that takes a value given none (`--from` last, or followed by
 * another option), or given a value that starts with a dash (`--since -5d`:
 * yargs reads -5d as options -5 and -d, and complains about those): said as
 * such, with the way to pass such a value. yargs itself gives such an option
 * "" (or [] when repeatable), which would report on the local store for a
 * bare `--from`; `--from ""` (an empty variable, quoted) stays a value.
 */
export function missingValue(argv: string[], stringOptions: string[]): string | null {
  const takesValue = new Set(stringOptions);
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i]!;
    if (t === '--') break; // what follows is positional
    if (!t.startsWith('--') || t.includes('=') || !takesValue.has(t.slice(2))) continue;
    const next = argv[i + 1];
    if (next === undefined) return `${t} needs a value`;
    if (next.startsWith('-') && next !== '-')
      return `${t} needs a value (${JSON.stringify(next)} reads as an option; to pass it as the value, write ${t}=${next})`;
  }
  return null;
}

/**
 * What every command line's arguments go through once parsed, by yargs or by
 * args.ts: a repeated option keeps its last value, but for the repeatable
 * ones (REPEATABLE, and variadic positionals: `arrays`), which are arrays
 * even when given once; `--out r.csv` without --format takes the format its
 * name ends in (an explicit --format wins). Throws UsageError for a value an
 * option cannot have.
 */
export function normalizeArgs(args: Record<string, unknown> & { _: (string | number)[] }, arrays: string[]): void {
  const repeatable = new Set([...arrays, ...REPEATABLE]);
  for (const [k, v] of Object.entries(args)) {
    if (k === '_') continue;
    if (Array.isArray(v) && !repeatable.has(k)) args[k] = v[v.length - 1];
    else if (typeof v === 'string' && REPEATABLE.includes(k)) args[k] = [v];
  }
  const cmd = String(args._[0]);
  if (Object.hasOwn(OUT_FILE_COMMANDS, cmd) && typeof args.out === 'string' && args.format === undefined) {
    const f = formatOfOutFile(args.out);
    if (f && !OUT_FILE_COMMANDS[cmd]!.includes(f))
      throw new UsageError(
        `--out ${args.out}: ${cmd} writes no ${f}; add --format ${OUT_FILE_COMMANDS[cmd]!.join('|')}`,
      );
    if (f) args.format = f;
  }
}

/** Runs a parsed command line's command. */
export async function runCommand(spec: CommandSpec, args: Record<string, unknown>, argv: string[]): Promise<void> {
  await spec.run!(runtimeFrom(args as GlobalArgs), args, argv);
}

/** Runs a report on generated sample data in a private temporary home and store. */
async function demo(rt: Runtime, a: ReportArgs): Promise<void> {
  refuseHtmlToTerminal(a);
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
    const demoRt: Runtime = {
      ...rt,
      home,
      env,
      dbPath: join(dir, 'demo.duckdb'),
      dbGiven: false,
      rootOverrides: {},
      outputsDir: cacheDir(rt.env, rt.home),
    };
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
async function report(rt: Runtime, a: ReportArgs): Promise<void> {
  refuseHtmlToTerminal(a);
  const probe = await replayReport(rt, a as Record<string, unknown>);
  if (probe.hit) return;
  const { reportCommand } = await import('./report.js');
  await reportCommand(rt, a);
  saveReportMemo(rt, probe, a as Record<string, unknown>);
}
