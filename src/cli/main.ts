// tx-usage's command line read by yargs: help, completion, and any command
// line args.ts leaves to it (anything it is not sure of, every usage error),
// built from the one command table (commands.ts). The bin entry (bin.ts)
// runs well-formed command lines without loading this module.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';
import type { Argv, Options, PositionalOptions } from 'yargs';
import { UsageError } from '../report/period.js';
import {
  COMMAND_NAMES,
  COMMANDS,
  COMPLETION_HELP,
  GLOBAL_OPTIONS,
  helpFacts,
  missingValue,
  normalizeArgs,
  runCommand,
  type CommandSpec,
  type OptionSpec,
} from './commands.js';
import { optionHint } from './hints.js';
import { messageLine } from '../render/terminal-text.js';

/** Name, title and description of each report definition (reports/*.json), for `report --help`. */
function reportCatalog(): { name: string; title: string; description: string }[] {
  const dir = join(packageRoot(), 'reports');
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map(
        (f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { name: string; title: string; description: string },
      );
  } catch {
    return [];
  }
}

/** The options yargs knows by type (getOptions is public API without a type). */
const optionsOf = (y: unknown) =>
  (y as { getOptions(): { array: string[]; string: string[]; boolean: string[] } }).getOptions();

/** The command as typed (`report`, `prices show`), for "tx-usage <command> --help". */
function commandOf(argv: string[]): string {
  const at = argv.findIndex((t) => COMMAND_NAMES.includes(t));
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
    if (!cmd && first !== undefined && names.includes(first))
      return `unknown command ${JSON.stringify(first)} (tx-usage --help lists the commands)`;
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
  if (/^Missing required argument: out$/.test(msg.trim()) && cmd === 'export')
    return 'export needs --out DIR: the export folder (tx-usage export --help)';
  if (/^Not enough non-option arguments/.test(msg.trim())) {
    if (cmd === 'sql') return 'sql needs a query: tx-usage sql "SELECT ..."';
    if (cmd === 'explain')
      return 'explain needs a transcript file, database, folder or session id: tx-usage explain PATH';
    if (cmd === 'prices show') return 'prices show needs a model name: tx-usage prices show MODEL';
  }
  return null;
}

const describe = (o: OptionSpec) => (typeof o.describe === 'function' ? o.describe() : o.describe);

/** An option as yargs declares it. */
function yargsOption(o: OptionSpec, global = false): Options {
  const out: Options = { type: o.type, describe: describe(o) };
  if (o.default !== undefined) out.default = o.default;
  if (o.demandOption) out.demandOption = true;
  if (o.alias) out.alias = o.alias;
  if (global) out.global = true;
  return out;
}

/** `report [name]`, `explain <paths..>`: a command's name with its positionals, as yargs reads them. */
function usageOf(c: CommandSpec): string {
  return [
    c.words[c.words.length - 1],
    ...c.positionals.map((p) =>
      p.required ? `<${p.name}${p.array ? '..' : ''}>` : `[${p.name}${p.array ? '..' : ''}]`,
    ),
  ].join(' ');
}

/** A command's positionals and options declared on its yargs builder. */
function declare<T>(y: Argv<T>, c: CommandSpec): Argv<T> {
  let b = y;
  for (const p of c.positionals) {
    const o: PositionalOptions = { type: 'string' };
    if (p.array) o.array = true;
    if (p.name === 'name')
      o.describe = `the report (default summary): ${helpFacts.reports.map((r) => r.name).join(', ')}`;
    else if (p.describe) o.describe = p.describe;
    // No default for a required array: yargs' [] showed as "[default: []]" beside "[required]" in the help.
    if (p.array && p.required) o.default = undefined;
    if (p.required && !p.array) o.demandOption = true;
    b = b.positional(p.name, o);
  }
  for (const [name, o] of Object.entries(c.options)) b = b.option(name, yargsOption(o));
  return c.epilog ? b.epilog(c.epilog()) : b;
}

/** What the parser does with a command line: run its command, or say what is wrong with it (and end). */
interface Outcome {
  run(c: CommandSpec, args: Record<string, unknown>): Promise<void>;
  fail(message: string | null, help: (() => string) | null): never;
}

/** yargs, declared from the command table, for `argv`. */
async function parser(argv: string[], outcome: Outcome) {
  const [{ default: yargs }, groups] = await Promise.all([import('yargs'), import('../report/groups.js')]);
  helpFacts.groupKeys = groups.GROUP_KEYS;
  helpFacts.reports = reportCatalog();
  const run = (c: CommandSpec) => async (args: any) => outcome.run(c, args);
  let y = yargs(argv)
    .scriptName('tx-usage')
    .usage(
      '$0 <command> [options]\n\nWhat your AI coding agents cost you: token and cost reports from local transcripts.',
    );
  for (const [name, o] of Object.entries(GLOBAL_OPTIONS)) y = y.option(name, yargsOption(o, true));
  for (const c of COMMANDS) {
    if (c.words.length > 1) continue; // declared inside their group
    const subs = COMMANDS.filter((s) => s.words.length > 1 && s.words[0] === c.words[0]);
    if (subs.length) {
      y = y.command(usageOf(c), c.describe, (g) => {
        let b = g;
        for (const s of subs) b = b.command(usageOf(s), s.describe, (x) => declare(x, s), run(s));
        return b.demandCommand(1, `name a ${c.words[0]} command: ${subs.map((s) => s.words[1]).join(' or ')}`);
      });
      // A description of false leaves the command out of the list (yargs' way; its types omit it).
    } else y = y.command(usageOf(c), (c.hidden ? false : c.describe) as string, (b) => declare(b, c), run(c));
  }
  const commands = COMMAND_NAMES.join(', ');
  y = y
    .middleware((args) => {
      const opts = optionsOf(y);
      const missing = missingValue(argv, opts.string);
      if (missing) throw new UsageError(missing);
      normalizeArgs(args as Parameters<typeof normalizeArgs>[0], opts.array);
    }, true)
    .completion('completion', COMPLETION_HELP)
    // Every example here is run by test/cli/readme-examples.test.ts.
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
        let help = '';
        inst.showHelp((s: string) => (help = s));
        outcome.fail(null, () => help);
      }
      // One line: what is wrong, and where the usage is.
      const opts = optionsOf(y);
      const said = missingValue(argv, opts.string) ?? userTerms(argv, msg, [...opts.string, ...opts.boolean]);
      outcome.fail(said ?? `${msg.replace(/\s*\n\s*/g, ' ')} (see tx-usage --help)`, null);
    })
    .help()
    .alias('h', 'help')
    .version()
    // -v as most command-line tools read it (-q is commands.ts shortForms).
    .alias('v', 'version')
    // Not outputColumns(): the terminal is an input only of what is rendered for it (a table's
    // width, core/inputs.ts), and help is never memoized.
    .wrap(Math.min(100, process.stdout.columns || 80));
  return y;
}

/** Reads `argv` with yargs and runs its command (the bin entry's way for what args.ts leaves). */
export async function runWithYargs(argv: string[]): Promise<void> {
  // yargs answers `completion --help` with the script itself: the help it would give a command instead.
  if (argv[0] === 'completion' && argv.some((t) => t === '--help' || t === '-h')) {
    process.stdout.write(`tx-usage completion\n\n${COMPLETION_HELP}\n`);
    return;
  }
  const y = await parser(argv, {
    run: (c, args) => runCommand(c, args, argv),
    fail(message, help) {
      if (help) {
        process.stdout.write(`${help()}\n`);
        process.exit(0);
      }
      process.stderr.write(messageLine(message!));
      process.exit(2);
    },
  });
  await y.parseAsync();
}

/**
 * What yargs makes of `argv`: the command it would run and its arguments, or
 * the message it would end with (null for help and version output). For
 * test/cli/args.test.ts, which holds args.ts to it.
 */
export async function yargsReading(
  argv: string[],
): Promise<{ command: string; args: Record<string, unknown> } | { message: string | null }> {
  class Ended extends Error {
    constructor(readonly said: string | null) {
      super(said ?? 'help');
    }
  }
  let got: { command: string; args: Record<string, unknown> } | null = null;
  const y = await parser(argv, {
    run: async (c, args) => void (got = { command: c.words.join(' '), args: { ...args } }),
    fail(message) {
      throw new Ended(message);
    },
  });
  const exit = process.exit;
  const out = process.stdout.write;
  try {
    // --help and --version print and exit: neither here.
    process.exit = ((): never => {
      throw new Ended(null);
    }) as typeof process.exit;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    await y.exitProcess(false).parseAsync();
  } catch (e) {
    if (e instanceof Ended) return { message: e.said };
    if (e instanceof UsageError) return { message: e.message };
    throw e;
  } finally {
    process.exit = exit;
    process.stdout.write = out;
  }
  return got ?? { message: null };
}
