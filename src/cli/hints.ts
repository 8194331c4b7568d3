// Pointers added to usage errors (still exit 2): what a ccusage user types
// by habit, said in tx-usage's terms, and the nearest known option for a
// misspelt one. yargs suggests commands only (recommendCommands), not options.
// ccusage's commands and flags: https://github.com/ryoppippi/ccusage,
// docs/guide/cli-options.md (daily, monthly, weekly, session, blocks;
// --json/-j, --breakdown, --mode auto|calculate|display, --order, --timezone,
// --since/--until YYYYMMDD).

/** ccusage's reports, as tx-usage asks for them. */
const CCUSAGE_REPORTS: Record<string, string> = {
  daily: 'tx-usage report --by day',
  weekly: 'tx-usage report --by week',
  monthly: 'tx-usage report monthly',
  session: 'tx-usage report --by session',
  blocks: 'tx-usage report blocks',
};

/**
 * The hint for `report NAME` when NAME is no report: one of ccusage's, or a
 * path (an unquoted glob after --from expands to several words, and --from
 * and --root take one value per flag, so the second word lands here); null
 * otherwise.
 */
export function reportHint(name: string): string | null {
  const to = CCUSAGE_REPORTS[name];
  if (to) return name !== 'monthly' && name !== 'blocks' ? `ccusage's ${name} is: ${to}` : null;
  if (/[/\\]|\.parquet$/i.test(name)) return '--from and --root take one path each: repeat the flag for every path, or quote a glob';
  return null;
}

/** The hint for an unknown first word that is one of ccusage's commands (null otherwise). */
export function commandHint(word: string): string | null {
  const to = CCUSAGE_REPORTS[word];
  return to ? `did you mean: ${to}?` : null;
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
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
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
