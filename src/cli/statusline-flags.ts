// The statusline command's options: declared once, read by yargs (main.ts)
// and, on the status line's hot path, by Node's own util.parseArgs in the
// bin entry (statusline-entry.ts), which must not load yargs (~50 ms).
export const STATUSLINE_FLAGS = {
  format: { type: 'string', describe: 'text (the line) | json', default: 'text' },
  refresh: {
    type: 'boolean',
    describe:
      'bring the store and the live snapshot up to date, then exit (what a status line starts in the background)',
  },
} as const;

/** The global options a status line passes on (main.ts declares them for yargs): their parseArgs types. */
export const STATUSLINE_GLOBALS = {
  db: { type: 'string' },
  root: { type: 'string', multiple: true },
  prices: { type: 'string' },
  quiet: { type: 'boolean' },
  color: { type: 'boolean' },
  'no-color': { type: 'boolean' },
} as const;
