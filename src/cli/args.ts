// A well-formed command line read without yargs. Loading yargs and drawing
// the help text it lays out on every parse cost ~110 ms of CPU per run
// (docs/internals.md), more than the rest of a report on a small history.
// This reader takes the command table (commands.ts) and accepts only what it
// is sure yargs reads the same way: the command's words, its positionals,
// `--name value`, `--name=value`, `--flag`, `--no-flag` of the command's and
// the global options. Anything else (help, completion, a short option, `--`,
// an unknown or misspelt option, a missing value, a stray word, a boolean
// given a value, a number option) is left to yargs (null), which answers it
// as it always did. test/cli/args.test.ts holds every command line it accepts to
// yargs' reading of it.
import {
  COMMANDS,
  GLOBAL_OPTIONS,
  missingValue,
  normalizeArgs,
  type CommandSpec,
  type OptionSpec,
} from './commands.js';

export interface ParsedLine {
  spec: CommandSpec;
  /** What yargs' parse gives a command handler: kebab and camel-case keys, `_` (the command's words) and `$0`. */
  args: Record<string, unknown> & { _: (string | number)[] };
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The command whose words are exactly `words`; 'more' when they begin a longer one's (a group: `prices`); null otherwise. */
function commandOf(words: string[]): CommandSpec | 'more' | null {
  const same = (c: CommandSpec, n: number) =>
    words.length <= c.words.length && words.every((w, i) => c.words[i] === w) && c.words.length >= n;
  const exact = COMMANDS.find((c) => c.run && same(c, words.length) && c.words.length === words.length);
  if (exact) return exact;
  return COMMANDS.some((c) => same(c, words.length + 1)) ? 'more' : null;
}

/** The command line's arguments as yargs would give them to the command, or null when yargs must read it. */
export function parseLine(argv: string[]): ParsedLine | null {
  // Options before the command's words are global ones (an option's value is
  // known only once its command is); after them, the command's too.
  const commandWords: string[] = [];
  const words: string[] = [];
  const given: { name: string; value: string | boolean }[] = [];
  let spec: CommandSpec | null = null;
  let options: Record<string, OptionSpec> = GLOBAL_OPTIONS;
  const optionNamed = (typed: string): [string, OptionSpec] | null => {
    for (const [name, o] of Object.entries(options))
      if (typed === name || (typed === camel(name) && typed !== name)) return [name, o];
    return null;
  };
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i]!;
    if (!t.startsWith('-') || t === '-') {
      // `-` (stdin's name by custom): yargs reads it its own way.
      if (t === '-') return null;
      if (spec) {
        words.push(t);
        continue;
      }
      commandWords.push(t);
      const c = commandOf(commandWords);
      if (c === null) return null;
      if (c !== 'more') {
        spec = c;
        options = { ...GLOBAL_OPTIONS, ...c.options };
      }
      continue;
    }
    if (!t.startsWith('--') || t === '--') return null;
    const eq = t.indexOf('=');
    const typed = eq < 0 ? t.slice(2) : t.slice(2, eq);
    if (!/^[a-z][a-zA-Z-]*$/.test(typed)) return null;
    const found = optionNamed(typed);
    if (found) {
      const [name, o] = found;
      // A number: yargs' reading of it (NaN, hex, exponents) is its own.
      if (o.type === 'number') return null;
      if (o.type === 'boolean') {
        // `--flag=false`, `--flag false`: yargs reads the value; left to it.
        if (eq >= 0 || argv[i + 1] === 'true' || argv[i + 1] === 'false') return null;
        given.push({ name, value: true });
      } else if (eq >= 0) given.push({ name, value: t.slice(eq + 1) });
      else {
        const next = argv[i + 1];
        if (next === undefined || next.startsWith('-')) return null; // missingValue's message (or `-`), from yargs' path
        given.push({ name, value: next });
        i++;
      }
      continue;
    }
    // `--no-flag` of a boolean.
    const neg = typed.startsWith('no-') ? optionNamed(typed.slice(3)) : null;
    if (neg && neg[1].type === 'boolean' && eq < 0 && argv[i + 1] !== 'true' && argv[i + 1] !== 'false') {
      given.push({ name: neg[0], value: false });
      continue;
    }
    return null;
  }
  if (!spec) return null; // no command, or a group without its subcommand: yargs answers
  if (
    missingValue(
      argv,
      Object.entries(options)
        .filter(([, o]) => o.type === 'string')
        .map(([n]) => n),
    )
  )
    return null;

  const args: ParsedLine['args'] = { _: [...spec.words] };
  // Positionals after the command's words, in order; a variadic one takes the rest.
  const rest = [...words];
  const arrays: string[] = [];
  for (const p of spec.positionals) {
    if (p.array) {
      arrays.push(p.name);
      if (rest.length) args[p.name] = rest.splice(0);
      else if (p.required) return null;
      else args[p.name] = []; // as yargs gives an optional variadic positional
    } else if (rest.length) args[p.name] = rest.shift()!;
    else if (p.required) return null;
  }
  if (rest.length) return null; // a stray word: yargs says which
  const values = new Map<string, (string | boolean)[]>();
  for (const g of given) (values.get(g.name) ?? values.set(g.name, []).get(g.name)!).push(g.value);
  for (const [name, o] of Object.entries(options)) {
    const v = values.get(name);
    const value = v ? (v.length === 1 ? v[0] : v) : o.default;
    if (value === undefined) {
      if (o.demandOption) return null;
      continue;
    }
    args[name] = value;
    if (camel(name) !== name) args[camel(name)] = value;
    if (o.alias) args[o.alias] = value; // as yargs gives an aliased option
  }
  args.$0 = 'tx-usage';
  try {
    normalizeArgs(args, arrays);
  } catch {
    return null; // its message, from yargs' path
  }
  return { spec, args };
}
