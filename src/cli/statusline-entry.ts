// The status line's own bundle (dist/src/cli/statusline.cjs, built by
// scripts/bundle.mjs), run by the bin entry for `tx-usage statusline`
// without yargs, DuckDB or the price data. Its options are parsed with
// Node's util.parseArgs from the same declarations yargs reads
// (statusline-flags.ts); whatever it cannot parse is ignored rather than
// reported: a status line never fails.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { STATUSLINE_FLAGS, STATUSLINE_GLOBALS } from './statusline-flags.js';
import { statuslineCommand } from './statusline.js';

export async function runStatusline(argv: string[]): Promise<void> {
  let values: Record<string, unknown> = {};
  try {
    const options = {
      ...STATUSLINE_GLOBALS,
      ...Object.fromEntries(Object.entries(STATUSLINE_FLAGS).map(([k, v]) => [k, { type: v.type }])),
    };
    values = parseArgs({
      args: argv,
      options: options as ParseArgsConfig['options'],
      strict: false,
      allowPositionals: true,
    }).values;
  } catch {
    /* defaults */
  }
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  await statuslineCommand({
    format: s(values.format),
    db: s(values.db),
    root: Array.isArray(values.root) ? values.root.filter((x): x is string => typeof x === 'string') : undefined,
    prices: s(values.prices),
    quiet: values.quiet === true,
    color: values['no-color'] === true ? false : values.color === false ? false : undefined,
  });
}
