// A plain `report` command line, read without yargs. Loading yargs takes
// ~50 ms here, on a cold run's path before any transcript is read (a command
// line seen before already runs on the arguments yargs made of it then, see
// memo.ts). Only the simplest forms are read here — each option once, with
// its value — and they give exactly the object yargs gives for them (the
// memo keys on it; test/plain-args.test.ts holds the two together). Anything
// else (help, a flag yargs reads differently, a repeated or unknown option, a
// value that looks like an option) returns null, and yargs parses the line.

/** `report` options with a string value (main.ts declares them for yargs; the global ones too). */
const STRINGS = new Set(['since', 'until', 'by', 'harness', 'project', 'tz', 'format', 'out', 'cost', 'machine', 'db', 'prices']);
/** Options yargs collects into an array (repeatable). */
const ARRAYS = new Set(['root', 'from']);
/** Defaults yargs fills in. */
const DEFAULTS: Record<string, unknown> = { format: 'table' };

export function plainReportArgs(argv: string[]): Record<string, unknown> | null {
  if (argv[0] !== 'report' || process.env.TX_USAGE_YARGS_ONLY) return null;
  const out: Record<string, unknown> = { _: ['report'] };
  const seen = new Set<string>();
  let name: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const t = argv[i]!;
    if (!t.startsWith('-')) {
      if (name !== undefined) return null; // a second positional: yargs keeps it in _
      name = t;
      continue;
    }
    if (!t.startsWith('--') || t === '--') return null;
    const eq = t.indexOf('=');
    const key = eq < 0 ? t.slice(2) : t.slice(2, eq);
    if (key === 'quiet' || key === 'color' || key === 'no-color') {
      // Booleans: yargs would read a following true/false as their value.
      const next = argv[i + 1];
      if (eq >= 0 || seen.has(key) || next === 'true' || next === 'false') return null;
      seen.add(key);
      if (key === 'no-color') out.color = false;
      else out[key] = true;
      continue;
    }
    if (!STRINGS.has(key) && !ARRAYS.has(key)) return null;
    let value: string;
    if (eq >= 0) value = t.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-')) return null;
      value = next;
      i++;
    }
    if (ARRAYS.has(key)) {
      ((out[key] ??= []) as string[]).push(value);
      continue;
    }
    if (seen.has(key)) return null; // yargs makes an array of a repeated option
    seen.add(key);
    out[key] = value;
  }
  if (name !== undefined) out.name = name;
  for (const [k, v] of Object.entries(DEFAULTS)) if (!(k in out)) out[k] = v;
  return out;
}
