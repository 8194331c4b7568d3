// Pointers added to usage errors (still exit 2): what a ccusage user types
// by habit where tx-usage spells it otherwise, and the nearest known option
// for a misspelt one. yargs suggests commands only (recommendCommands), not
// options. ccusage's own commands (`daily`, `weekly`, `monthly`, `session`,
// `blocks`, `claude daily`, ...) are tx-usage commands (src/compat/ccusage/);
// these pointers are for ccusage's words given to `report`.

/** ccusage's reports given as `report NAME`: the command that is theirs. */
const CCUSAGE_REPORTS: Record<string, string> = {
  daily: 'tx-usage daily (or report --by day)',
  weekly: 'tx-usage weekly (or report --by week)',
  session: 'tx-usage session (or report --by session)',
};

/**
 * The hint for `report NAME` when NAME is no report: one of ccusage's, or a
 * path (an unquoted glob after --from expands to several words, and --from
 * and --root take one value per flag, so the second word lands here); null
 * otherwise.
 */
export function reportHint(name: string): string | null {
  const to = CCUSAGE_REPORTS[name];
  if (to) return `ccusage's ${name} is: ${to}`;
  if (/[/\\]|\.parquet$/i.test(name))
    return '--from and --root take one path each: repeat the flag for every path, or quote a glob';
  return null;
}

/** ccusage's flags that tx-usage spells otherwise. */
const CCUSAGE_FLAGS: Record<string, string> = {
  '--json': 'use --format json',
  '-j': 'use --format json',
  '--breakdown': 'use --by day,model (any --by list with model)',
  '--mode': 'use --cost auto|computed|recorded (calculate is computed, display is recorded)',
  '--order': 'use --sort',
  '--timezone': 'use --tz',
};

/** Levenshtein distance, for "did you mean". */
export function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The hint for an unknown option as typed (`--json`, `--sinse`): ccusage's
 * spelling, else the nearest of `known` (long names, without dashes) at
 * edit distance 2 or less; null when there is none.
 */
export function optionHint(typed: string, known: readonly string[]): string | null {
  const ccusage = CCUSAGE_FLAGS[typed];
  if (ccusage) return ccusage;
  if (!typed.startsWith('--')) return null;
  const name = typed.slice(2);
  let best: { k: string; d: number } | null = null;
  for (const k of new Set(known)) {
    if (k.length < 2 || /[A-Z]/.test(k)) continue; // yargs' camel-case twins
    const d = distance(name, k);
    if (d <= 2 && (!best || d < best.d)) best = { k, d };
  }
  return best ? `did you mean --${best.k}?` : null;
}
