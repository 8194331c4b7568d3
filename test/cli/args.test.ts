// args.ts reads a command line without yargs. Every line it accepts must give
// the command exactly the arguments yargs gives it (main.ts builds yargs from
// the same table), and every line yargs refuses must be left to yargs, which
// says what is wrong. Checked on command lines made from the table itself:
// every option of every command in each spelling, before and after the
// command's words, repeated, with values that look like options, numbers,
// commands or nothing, and thousands of random mixes of them.
import { describe, expect, it } from 'vitest';
import { parseLine } from '../../src/cli/args.js';
import { COMMANDS, GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from '../../src/cli/commands.js';
import { yargsReading } from '../../src/cli/main.js';

const VALUES = [
  '7d',
  '2026-01-01',
  '',
  'compare',
  'x y',
  'a=b',
  '123',
  '-',
  '-5d',
  '--since',
  'true',
  'false',
  'harness,project',
  'claude-code=/tmp/x',
  'out.csv',
  'r.html',
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const camel = (n: string) => n.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** One occurrence of option `name` in some spelling, with a value when it takes one. */
function occurrence(name: string, type: OptionSpec['type'], pick: <T>(xs: T[]) => T): string[] {
  const spelt = pick([name, name, camel(name)]);
  if (type === 'boolean')
    return pick([
      [`--${spelt}`],
      [`--${spelt}`],
      [`--no-${spelt}`],
      [`--${spelt}`, pick(['true', 'false'])],
      [`--${spelt}=false`],
    ]);
  const v = pick(VALUES);
  return pick([[`--${spelt}`, v], [`--${spelt}=${v}`], [`--${spelt}`]]);
}

function randomLine(c: CommandSpec, pick: <T>(xs: T[]) => T, r: () => number): string[] {
  const before: string[] = [];
  const after: string[] = [];
  const opts = Object.entries({ ...c.options, ...GLOBAL_OPTIONS });
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) {
    const [name, o] = pick(opts);
    const occ = occurrence(name, o.type, pick);
    (r() < 0.15 ? before : after).push(...occ);
  }
  const positionals: string[] = [];
  for (const p of c.positionals) {
    if (p.required || r() < 0.6)
      positionals.push(pick(['compare', 'monthly', 'a/b.jsonl', 'gpt-5', 'SELECT 1', 'cursor-usage']));
    if (p.array && r() < 0.3) positionals.push('second');
  }
  if (r() < 0.05) positionals.push('stray');
  if (r() < 0.05) after.push(pick(['-h', '--help', '--', '-x', '--bogus', '--version']));
  // Positionals and options interleaved.
  const tail = [...after];
  for (const p of positionals) tail.splice(Math.floor(r() * (tail.length + 1)), 0, p);
  return [...before, ...c.words, ...tail];
}

function lines(): string[][] {
  const out: string[][] = [[], ['report'], ['prices'], ['nope'], ['completion'], ['--version'], ['report', '--help']];
  // Commands that share one options object (ccusage's daily, weekly, monthly; its per-agent
  // commands) are read alike: every option of the first, the words alone of the others; an
  // option declared once and given to several commands (ccusage's --json, --since, ...) is
  // spelt every way with the first of them (the random lines mix it with the others).
  const optionsSeen = new Set<object>();
  const specsSeen = new Set<OptionSpec>();
  for (const c of COMMANDS) {
    out.push([...c.words]);
    if (optionsSeen.has(c.options)) continue;
    optionsSeen.add(c.options);
    const own = Object.entries(c.options).filter(([, o]) => !specsSeen.has(o));
    for (const [, o] of own) specsSeen.add(o);
    for (const [name, o] of [...own, ...Object.entries(GLOBAL_OPTIONS)]) {
      if (o.type === 'boolean')
        out.push([...c.words, `--${name}`], [...c.words, `--no-${name}`], [`--${name}`, ...c.words]);
      else
        for (const v of ['7d', '', 'compare'])
          out.push([...c.words, `--${name}`, v], [...c.words, `--${name}=${v}`], [`--${name}`, v, ...c.words]);
    }
  }
  const r = rng(41);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const runnable = COMMANDS.filter((c) => c.run);
  for (let i = 0; i < 500; i++) out.push(randomLine(pick(runnable), pick, r));
  return out;
}

describe('args.ts, the command line without yargs', () => {
  it('gives every line it accepts the arguments yargs gives it, and leaves every line yargs refuses', async () => {
    let accepted = 0;
    const all = lines();
    const seen = new Set<string>();
    for (const argv of all) {
      if (seen.has(JSON.stringify(argv))) continue;
      seen.add(JSON.stringify(argv));
      const mine = parseLine(argv);
      if (!mine) continue;
      accepted++;
      const theirs = await yargsReading(argv);
      expect({ argv, reading: theirs }).toEqual({
        argv,
        reading: { command: mine.spec.words.join(' '), args: mine.args },
      });
    }
    // Most well-formed lines are read here (what keeps yargs off the common path).
    expect(accepted).toBeGreaterThan(seen.size / 3);
  }, 300_000);

  it('reads the everyday command lines', () => {
    for (const argv of [
      ['report'],
      ['report', 'compare'],
      ['report', '--by', 'harness,project', '--format', 'json'],
      ['report', 'monthly', '--tz', 'Europe/Berlin', '--out', 'm.html'],
      ['report', 'blocks', '--since', '7d'],
      ['limits', '--format', 'json'],
      ['--db', '/tmp/x.duckdb', 'report', '--quiet'],
      ['sql', 'SELECT 1', '--format', 'csv'],
      ['prices', 'show', 'gpt-5', '--at', '2026-06-01'],
      ['explain', 'a.jsonl', 'b.jsonl'],
      ['statusline', '--refresh'],
    ])
      expect(parseLine(argv), argv.join(' ')).not.toBeNull();
    // Help, completion and errors are yargs' to say.
    for (const argv of [
      [],
      ['--help'],
      ['report', '-h'],
      ['completion'],
      ['report', '--bogus'],
      ['report', '--since'],
      ['report', 'a', 'b'],
      ['prices'],
    ])
      expect(parseLine(argv), argv.join(' ')).toBeNull();
  });
});
