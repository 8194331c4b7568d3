// `tx-usage report [NAME]`: refresh the store, run a report definition, render it.
import { HARNESS_IDS, isHarnessId, type HarnessId } from '../core/types.js';
import {
  findDefinition,
  loadDefinitions,
  markDemo,
  runReport,
  type ReportDefinition,
  type ReportOutput,
} from '../report/definitions.js';
import { machineName, readTeamConfig } from '../export/config.js';
import { labelLocalRows } from '../export/local.js';
import { openRollup } from '../export/rollup.js';
import { isGroupKey, GROUP_KEYS, type GroupKey } from '../report/groups.js';
import {
  firstDayRead,
  isValidTimeZone,
  reportWindow,
  systemTimeZone,
  todayIn,
  UsageError,
  wholePeriods,
} from '../report/period.js';
import { parseSort } from '../report/sort.js';
import { parseModels } from '../report/filters.js';
import { checkProjectFilter } from '../report/project-filter.js';
import { horizonOfDay } from '../ingest/horizon.js';
import { inputIsTTY, localDay, noteSystemZone, noteToday, outputColumns, resolveInputPath } from '../core/inputs.js';
import type { CostMode, ReportParams } from '../report/summary.js';
import { FORMATS, renderOutput, type Format } from '../render/index.js';
import { hasStoredRows } from '../store/read.js';
import { resolveWarningsOf, warningsInWindow } from '../store/ready.js';
import { cacheDir, notice, rootProblems, type Runtime } from './runtime.js';
import { openAnswerable, type Answerable, type KeptOpen } from './current.js';
import { retentionNoticeOnce } from './retention.js';
import { checkOutFile, writeOutFile, wroteLine } from './out-file.js';
import { reportHint } from './hints.js';
import { modelsInWindow, nearMatchWarnings, unpricedModelWarnings } from './price-warnings.js';
import { markSaid, unsaid } from './said-warnings.js';
import { DEFAULT_BLOCK_HARNESSES } from '../live/blocks-report.js';
import { noteReportOutput } from './memo.js';
import { mark } from '../core/trace.js';
import { nowMs } from '../live/clock.js';
import type { BlocksOptions } from '../live/blocks-report.js';
import { addBudgets, budgetHorizonDay } from '../live/report-budgets.js';
import { messageLine, printableLines, warningLines } from '../render/terminal-text.js';

export interface ReportArgs {
  name?: string;
  since?: string;
  until?: string;
  by?: string;
  harness?: string;
  project?: string;
  /** Exact model ids, comma-separated (report/filters.ts). */
  model?: string;
  tz?: string;
  format?: string;
  out?: string;
  cost?: string;
  /** Row order: cost | tokens | date | name. */
  sort?: string;
  /** Exported Parquet (files, folders or globs) to report on instead of the local store. */
  from?: string[];
  /** This machine's name for --by machine on the local store. */
  machine?: string;
  /** A report on generated sample data (tx-usage demo, report --demo): marked as such in every format. */
  demo?: boolean;
  /** report blocks: tokens per block to compare with, or 'max'. */
  tokenLimit?: string;
  /** Replace an existing --out file that tx-usage did not write. */
  force?: boolean;
  /** report compare: every row, those with too few prompts included. */
  all?: boolean;
}

/** A comma list; empty (`--by ""`, `--harness` with no value) is a usage error naming the flag. */
function list(v: string, flag: string, expected: readonly string[]): string[] {
  const items = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!items.length) throw new UsageError(`${flag} needs a value: a comma list of ${expected.join(', ')}`);
  return items;
}

export function reportParams(
  a: ReportArgs,
  defaultBy: GroupKey[],
  now = new Date(),
): ReportParams & { format: Format } {
  // The zone and the day are inputs of the report (core/inputs.ts): the memo replays it only on the same day.
  if (a.tz === undefined) noteSystemZone();
  const tz = a.tz ?? systemTimeZone();
  if (!isValidTimeZone(tz))
    throw new UsageError(`--tz ${JSON.stringify(tz)}: not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  const today = todayIn(tz, now);
  noteToday(a.tz === undefined ? null : tz, a.tz === undefined ? localDay(now) : today);
  const { since, until } = reportWindow(a.since, a.until, today);
  const byList = a.by === undefined ? defaultBy : list(a.by, '--by', GROUP_KEYS);
  for (const k of byList)
    if (!isGroupKey(k))
      throw new UsageError(`--by ${JSON.stringify(k)}: expected a comma list of ${GROUP_KEYS.join(', ')}`);
  if (new Set(byList).size !== byList.length) throw new UsageError('--by: a key is given twice');
  const hs = a.harness === undefined ? [...HARNESS_IDS] : list(a.harness, '--harness', HARNESS_IDS);
  for (const h of hs)
    if (!isHarnessId(h))
      throw new UsageError(`--harness ${JSON.stringify(h)}: expected a comma list of ${HARNESS_IDS.join(', ')}`);
  const format = (a.format ?? 'table') as Format;
  if (!FORMATS.includes(format))
    throw new UsageError(`--format ${JSON.stringify(a.format)}: expected one of ${FORMATS.join(', ')}`);
  const cost = (a.cost ?? 'auto') as CostMode;
  if (!['auto', 'computed', 'recorded'].includes(cost))
    throw new UsageError(`--cost ${JSON.stringify(a.cost)}: expected auto, computed or recorded`);
  const sort = parseSort(a.sort);
  // Chart data only for the renderer that draws it.
  return {
    since,
    until,
    tz,
    by: byList as GroupKey[],
    harnesses: hs as HarnessId[],
    project: a.project ?? '',
    models: parseModels(a.model),
    costMode: cost,
    charts: format === 'html',
    format,
    ...(sort ? { sort } : {}),
    ...(a.all ? { all: true } : {}),
  };
}

/**
 * What a report says when no harness's folders hold anything and the store is
 * empty: three lines on stderr (issue 44: the list of every folder searched,
 * ~50 lines of "missing ...", is `tx-usage sources`' to show).
 */
export function noDataMessage(harnesses: readonly string[], harnessGiven: boolean): string {
  return [
    `No harness data found${harnessGiven ? ` for ${harnesses.join(', ')}` : ''}: nothing in the folders ${!harnessGiven ? 'the harnesses keep' : harnesses.length === 1 ? 'it keeps' : 'they keep'} usage in, under this home or where --root and the environment point.`,
    'Where tx-usage looked, and how to point it elsewhere (--root HARNESS=PATH): `tx-usage sources`.',
    'A report on generated sample data: `tx-usage report --demo`.',
  ].join('\n');
}

/** The note of a report that found no harness data on disk but answers from the rows the store kept. */
export const RETAINED_ONLY =
  "no harness data found in the searched locations: the rows shown are the store's retained history (read on earlier runs); `tx-usage sources` shows where it looked";

/**
 * The store found current or brought up to date as a report needs it
 * (current.ts): what `answerReport` reads. A caller asking several questions
 * at once (`serve`, `mcp`) opens it once for all of them (`horizonMs` null:
 * every source read, as `watch` reads them) and closes it.
 */
export type ReportStore = Answerable;

/** Opens the store for reports (current.ts openAnswerable): a store this user cannot write is answered from as it is, with a warning (runtime.ts answerReadOnly). */
export function openReportStore(rt: Runtime, horizonMs: number | null, kept: KeptOpen = {}): Promise<ReportStore> {
  return openAnswerable(rt, { horizonMs, keepRootWarnings: true, readOnlyOk: true, ...kept });
}

/**
 * A report's answer: its output (the JSON document the CLI prints is
 * `out.json`), its warnings, and the "no harness data found" message when
 * there was none. `out` is null only for a table with no data at all (the
 * message is the whole answer then).
 */
export interface ReportAnswer {
  out: ReportOutput | null;
  p: ReturnType<typeof reportParams>;
  warnings: string[];
  noData: string | null;
  /** Of `warnings`, those of source files (said on stderr once: said-warnings.ts). */
  fileWarnings?: string[];
}

/** `tx-usage report`: the answer, then the output. `argsValid` is called once the arguments have been checked (report --demo's notice comes then, not before a usage error). */
export async function reportCommand(rt: Runtime, a: ReportArgs, argsValid?: () => void): Promise<void> {
  const r = await answerReport(rt, a, { argsValid });
  if (!r.out) {
    // Nothing to show: the message on stderr, stdout left empty (a script piping the table reads nothing), exit 0.
    if (!rt.quiet)
      process.stderr.write(printableLines(r.noData!) + '\n' + warningLines(r.warnings.filter((w) => w !== r.noData)));
    return;
  }
  await emit(rt, a, r.p, r.out, r.warnings, r.noData, r.fileWarnings);
  mark('rendered');
}

/**
 * The one place a report is made, for the CLI, `serve` and `mcp` alike.
 * `o.use`: a store already opened for reports (openReportStore), left open;
 * without it the store is opened, refreshed for this report's range, and
 * closed. `o.charts`: the chart data sets too (the HTML renderer's and the
 * dashboard's), whatever the format.
 */
export async function answerReport(
  rt: Runtime,
  a: ReportArgs,
  o: { argsValid?: () => void; use?: ReportStore; charts?: boolean } = {},
): Promise<ReportAnswer> {
  const name = a.name ?? 'summary';
  const def = findDefinition(name);
  if (!def) {
    const hint = reportHint(name);
    throw new UsageError(
      `unknown report ${JSON.stringify(name)}${hint ? ` (${hint})` : ''}; available: ${loadDefinitions()
        .map((d) => d.name)
        .join(', ')}`,
    );
  }
  const p = reportParams(a, def.default_by);
  // Grouped by week or month, a summary covers whole periods (README "Periods are whole").
  if (def.kind === 'summary') Object.assign(p, wholePeriods(p, p.by, todayIn(p.tz)));
  if (o.charts) p.charts = true;
  if (a.tokenLimit !== undefined && def.kind !== 'blocks') throw new UsageError('--token-limit is for report blocks');
  // A 5-hour block is the account's window, begun by a response of any model: blocks of one model's responses would be windows that never were.
  if (p.models?.length && def.kind === 'blocks')
    throw new UsageError(
      "--model is not for report blocks (a block is the account's 5-hour window, whatever the model); use --model with summary, monthly or compare",
    );
  if (a.all && def.kind !== 'compare') throw new UsageError('--all is for report compare');
  // Two sources of data at once: refused rather than one silently ignored.
  if (a.demo && a.from?.length)
    throw new UsageError(
      '--demo and --from: choose one (--demo reports on generated sample data, --from on exported Parquet folders)',
    );
  const live = { harnessGiven: a.harness !== undefined, tokenLimit: a.tokenLimit, now: nowMs(rt.env) };
  // A path that cannot be written fails now, not after the work.
  if (a.out !== undefined) checkOutFile(a.out, rt.outputsDir ?? cacheDir(rt.env, rt.home), a.force === true, rt.dbPath);
  o.argsValid?.();
  if (a.from?.length) return rollupReport(rt, a, def, p, live);
  const rootWarnings = rootWarningsFor(rt, p.harnesses, a.harness !== undefined);
  const machine = machineName(a.machine, readTeamConfig(rt.env, rt.home));
  mark('report modules loaded');
  // Transcripts last written well before the first day read need not be read for this report (horizon.ts).
  const readFrom = budgetHorizonDay(rt, def.kind, firstDayRead(def.reads_from, p.since), p, live.now);
  const horizonMs = horizonOfDay(readFrom, p.tz);
  const { store, scans, discoveryWarnings, storeWarnings, ready, pricingWarnings } =
    o.use ?? (await openReportStore(rt, horizonMs));
  try {
    // The price warnings of the range are read on a second connection while the first labels this machine's rows.
    const side = await store.connect();
    // Warnings of what the rows shown touch (issue 44): the harnesses shown (a blocks report without --harness shows
    // Claude Code's), the models with responses in the window, the files with responses in it.
    const shown = {
      ...p,
      harnesses: (def.kind === 'blocks' && a.harness === undefined
        ? DEFAULT_BLOCK_HARNESSES
        : p.harnesses) as HarnessId[],
    };
    const priced = (async () => [
      ...(ready.unpriced ? await unpricedModelWarnings(side, shown) : []),
      ...(await nearMatchWarnings(side, shown, ready.near)),
      ...resolveWarningsOf(
        ready,
        shown.harnesses,
        pricingWarnings,
        await modelsInWindow(side, shown, ready.resolveWarnings),
      ),
    ])();
    // Both observed at once, so that neither can end as an unhandled rejection.
    const both = Promise.all([labelLocalRows(store.conn, machine), priced]);
    both.catch(() => undefined);
    const [, unpriced] = await both;
    await checkProjectFilter(store.conn, p.project, p.harnesses);
    const totalSources = scans.reduce((n, s) => n + s.sources.length, 0);
    // The stored warnings of the sources this report needs: not those of a source its horizon leaves unread when the
    // store does not hold it (horizon.ts), whether or not another command has read it, so that a memo hit after
    // `tx-usage ingest` prints what the full run printed (store/ready.ts warningsInWindow).
    const stored = warningsInWindow(ready, shown.harnesses, horizonMs, p);
    const warnings = [
      ...storeWarnings,
      ...rootWarnings,
      ...discoveryWarnings,
      ...stored,
      ...pricingWarnings,
      ...unpriced,
    ];
    // "No harness data found" and where it looked: in the JSON's warnings, said on stderr as lines of its own.
    // Only when the store holds nothing either: rows it kept from earlier runs (a harness folder moved,
    // a custom storage path no longer readable) are still the user's spend, and every format shows them,
    // with a note saying where they come from (README "retained history").
    let noData: string | null = null;
    if (totalSources === 0 && (await hasStoredRows(store.conn, p.harnesses))) warnings.push(RETAINED_ONLY);
    else if (totalSources === 0) {
      noData = noDataMessage(p.harnesses, a.harness !== undefined);
      warnings.push(noData);
      if (p.format === 'table') return { out: null, p, warnings, noData, fileWarnings: stored };
    }
    mark('warnings read');
    // Claude Code deletes old transcripts: said once, in the first report that reads some (README "Claude Code keeps 30 days").
    if (!a.demo && p.harnesses.includes('claude-code')) {
      const said = await retentionNoticeOnce(store.conn, rt, scans, live.now);
      if (said) notice(rt, said);
    }
    const out = await runReport(store.conn, def, p, warnings, live);
    // Spend against the config file's budgets, under a summary whose window includes now (src/live/report-budgets.ts).
    if (def.kind === 'summary') await addBudgets(store.conn, rt, out, { ...p, tzGiven: a.tz }, live.now);
    if (a.demo) markDemo(out);
    mark('report query');
    return { out, p, warnings, noData, fileWarnings: stored };
  } finally {
    if (!o.use) {
      await store.close();
      mark('store closed');
    }
  }
}

/**
 * Writes the report, and its warnings to stderr in every format (JSON and
 * HTML carry them too; CSV has no place for them). `noData`: the "no harness
 * data found" message among the warnings, printed as the lines it has.
 */
async function emit(
  rt: Runtime,
  a: ReportArgs,
  p: ReturnType<typeof reportParams>,
  out: ReportOutput,
  warnings: string[],
  noData: string | null = null,
  fileWarnings: string[] = [],
): Promise<void> {
  // The terminal's width and colour only for a table: the other formats do not depend on the terminal.
  const table = p.format === 'table';
  // The HTML renderer registers itself when loaded, only for --format html: it takes every harness's chart colour from the registry.
  if (p.format === 'html') await import('../render/html.js');
  const text = renderOutput(p.format, out, {
    width: table ? outputColumns() : 80,
    color: table && rt.color,
    home: rt.home,
    wholeIds: table && (a.out !== undefined || !inputIsTTY(1)),
  });
  if (a.out !== undefined)
    writeOutFile(a.out, text, rt.outputsDir ?? cacheDir(rt.env, rt.home), a.force === true, rt.dbPath);
  else process.stdout.write(text);
  // A file's warnings once (said-warnings.ts); the memo keeps what a run says once they have been said.
  const cache = rt.outputsDir ?? cacheDir(rt.env, rt.home);
  const files = new Set(fileWarnings);
  const fresh = new Set(rt.quiet ? [] : unsaid(cache, fileWarnings));
  const stderrOf = (said: (w: string) => boolean) => {
    if (rt.quiet) return '';
    const shown = warnings.filter((w) => w !== noData && (!files.has(w) || said(w)));
    // What --out wrote, said on every run (a replay from the memo too: it writes the file again).
    const wrote = a.out === undefined ? '' : messageLine(wroteLine(a.out, text));
    return wrote + (noData === null ? '' : `${printableLines(noData)}\n`) + warningLines(shown);
  };
  process.stderr.write(stderrOf((w) => fresh.has(w)));
  markSaid(cache, [...fresh]);
  // A blocks report changes with the clock (the active block's time left), and so do budgets (their
  // projection): never replayed from the memo.
  if (out.definition.kind !== 'blocks' && out.json.budgets === undefined)
    noteReportOutput(
      text,
      a.out === undefined ? null : resolveInputPath(a.out),
      stderrOf(() => false),
    );
}

/**
 * The --root problems (runtime.ts rootProblems) as warnings; a usage error
 * when --harness names only harnesses whose every --root is unusable (the
 * report could show nothing but that).
 */
function rootWarningsFor(rt: Runtime, harnesses: HarnessId[], harnessGiven: boolean): string[] {
  const problems = rootProblems(rt);
  if (
    harnessGiven &&
    harnesses.every(
      (h) => (problems.get(h)?.length ?? 0) > 0 && problems.get(h)!.length === rt.rootOverrides[h]!.length,
    )
  ) {
    throw new UsageError(harnesses.flatMap((h) => problems.get(h)!).join('; '));
  }
  return [...problems.values()].flat();
}

/** The report over exported Parquet (`--from`, repeatable) instead of the local store: no ingest. */
async function rollupReport(
  rt: Runtime,
  a: ReportArgs,
  def: ReportDefinition,
  p: ReturnType<typeof reportParams>,
  live: BlocksOptions,
): Promise<ReportAnswer> {
  if (a.machine !== undefined)
    throw new UsageError(
      "--machine names the local store's rows; with --from each row keeps the machine it was exported from",
    );
  const rollup = await openRollup(a.from!);
  try {
    const warnings = [...rollup.warnings, ...(await unpricedModelWarnings(rollup.conn, p))];
    return { out: await runReport(rollup.conn, def, p, warnings, live), p, warnings, noData: null };
  } finally {
    rollup.close();
  }
}
