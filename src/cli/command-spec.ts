// The shape of an entry of the command table (commands.ts): kept apart so that
// modules that declare commands (compat/ccusage) need not import the table.
import type { Runtime } from './runtime.js';

export interface OptionSpec {
  /** A number option is read by yargs alone (args.ts leaves it: yargs' own reading of "1e3", "0x10", "abc"). */
  type: 'string' | 'boolean' | 'number';
  /** The help text; a function when it lists what is known only once loaded (report names, group keys). */
  describe: string | (() => string);
  default?: string;
  demandOption?: boolean;
  /** A one-letter spelling (`-j` for --json: ccusage's); read by yargs, which gives the command both keys. */
  alias?: string;
}

export interface PositionalSpec {
  name: string;
  /** `<name>` (required) or `[name]`; `..` (variadic, an array) when `array`. */
  required: boolean;
  array?: boolean;
  describe?: string;
}

export interface CommandSpec {
  /** The words that name it: ['report'], ['prices', 'show']. */
  words: string[];
  positionals: PositionalSpec[];
  describe: string;
  /** Left out of the command list of `tx-usage --help` (its own --help still describes it). */
  hidden?: boolean;
  options: Record<string, OptionSpec>;
  /** Absent for a group (`prices`), whose subcommands run. */
  run?: (rt: Runtime, args: any, argv: string[]) => Promise<void>;
  /** report and demo: the report definitions as the help's epilog. */
  epilog?: () => string;
}
