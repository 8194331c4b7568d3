// ccusage 20's commands in tx-usage's command table (cli/commands.ts): its
// five reports and its per-agent groups, with its options as its `--help`
// lists them. Declarations only (this module is in the bin's bundle); the
// work is in command.ts, loaded when one runs.
import type { CommandSpec, OptionSpec } from '../../cli/command-spec.js';
import { CCUSAGE_AGENT_NAMES } from './agents.js';

const COMMON: Record<string, OptionSpec> = {
  json: { type: 'boolean', alias: 'j', describe: "ccusage's JSON (README: Coming from ccusage)" },
  since: {
    type: 'string',
    alias: 's',
    describe: 'first day: YYYYMMDD or YYYY-MM-DD (also Nd, Nw, Nm back from today; default: all history)',
  },
  until: { type: 'string', alias: 'u', describe: 'last day, inclusive (YYYYMMDD or YYYY-MM-DD; default today)' },
  timezone: { type: 'string', alias: 'z', describe: 'IANA time zone days are cut in (default: the system zone)' },
  last: { type: 'string', describe: 'only the N most recent periods (1 is today, this week or this month)' },
  'by-agent': { type: 'boolean', describe: 'per-agent breakdowns in each JSON row (`agents`)' },
  sections: {
    type: 'string',
    describe: 'several reports in one JSON document: comma list of daily, weekly, monthly, session',
  },
  cost: { type: 'boolean', describe: '--no-cost: no cost fields in the table or JSON' },
  compact: { type: 'boolean', describe: 'accepted (tables always fit the terminal)' },
  config: { type: 'string', describe: "accepted; ccusage's config file is not read (tx-usage's config file applies)" },
  all: { type: 'boolean', describe: 'accepted: every harness tx-usage reads is included' },
  offline: {
    type: 'boolean',
    alias: 'O',
    describe: 'accepted: prices are always the bundled (or `prices update`d) ones',
  },
  mode: {
    type: 'string',
    alias: 'm',
    describe: 'cost: auto | calculate (computed) | display (the harness-recorded cost); default auto',
  },
  order: { type: 'string', alias: 'o', describe: 'asc | desc (default asc)' },
  breakdown: { type: 'boolean', alias: 'b', describe: 'tables: a line per model under each row' },
  project: { type: 'string', alias: 'p', describe: 'only projects whose path contains TEXT' },
};

const SESSION: Record<string, OptionSpec> = {
  id: { type: 'string', alias: 'i', describe: 'session: only the session with this id (or id prefix)' },
};

const BLOCKS: Record<string, OptionSpec> = {
  active: { type: 'boolean', alias: 'a', describe: 'blocks: only the active block, with its projection' },
  recent: { type: 'boolean', alias: 'r', describe: 'blocks: the last 3 days (the active block included)' },
  'token-limit': { type: 'string', alias: 't', describe: 'blocks: tokens per block to compare with, or "max"' },
  'session-length': {
    type: 'string',
    alias: 'n',
    describe: 'blocks: block length in hours (only 5: the window Anthropic limits use)',
  },
};

/** Every per-agent command's options (one object: test/cli/args.test.ts reads a table's options once per object). */
const AGENT_OPTIONS: Record<string, OptionSpec> = { ...COMMON, ...SESSION, ...BLOCKS };

const run =
  (name: string | null, agent: string | null) => async (rt: Parameters<NonNullable<CommandSpec['run']>>[0], a: any) =>
    (await import('./command.js')).ccusageCommand(rt, a, name ?? a.report ?? 'daily', agent);

const REPORTS: [string, string, Record<string, OptionSpec>][] = [
  [
    'daily',
    "usage per day, every harness, as ccusage's daily (--json in its shape); one agent: tx-usage claude daily, codex, opencode, pi, ...",
    COMMON,
  ],
  ['weekly', 'usage per week from Monday (ccusage weekly)', COMMON],
  ['monthly', 'usage per month (ccusage monthly)', COMMON],
  ['session', 'usage per session (ccusage session)', { ...COMMON, ...SESSION }],
  ['blocks', '5-hour billing blocks of Claude Code (ccusage blocks)', { ...COMMON, ...BLOCKS }],
];

export const CCUSAGE_COMMANDS: CommandSpec[] = [
  ...REPORTS.map(([w, describe, options]): CommandSpec => ({
    words: [w],
    positionals: [],
    describe,
    options,
    run: run(w, null),
  })),
  ...CCUSAGE_AGENT_NAMES.map((agent): CommandSpec => ({
    words: [agent],
    // `ccusage claude` alone is its daily report: so here.
    positionals: [
      { name: 'report', required: false, describe: 'daily (default) | weekly | monthly | session | blocks' },
    ],
    describe: `${agent}'s usage only (ccusage ${agent} daily|weekly|monthly|session|blocks)`,
    // Listed by daily's line of the help, not one line per agent.
    hidden: true,
    options: AGENT_OPTIONS,
    run: run(null, agent),
  })),
];
