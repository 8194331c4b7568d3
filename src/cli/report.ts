// `tx-usage report [NAME]`: refresh the store, run a report definition, render it.
import { HARNESS_IDS, isHarnessId, type HarnessId } from '../core/types.js';
import { findDefinition, loadDefinitions, markDemo, runReport, type ReportDefinition, type ReportOutput } from '../report/definitions.js';
import { machineName, readTeamConfig } from '../export/config.js';
import { labelLocalRows } from '../export/local.js';
import { openRollup } from '../export/rollup.js';
import { isGroupKey, GROUP_KEYS, type GroupKey } from '../report/groups.js';
import { firstDayRead, isValidTimeZone, parseDay, systemTimeZone, todayIn, UsageError } from '../report/period.js';
import { parseSort } from '../report/sort.js';
import { horizonOfDay } from '../ingest/horizon.js';
import { localDay, noteSystemZone, noteToday, outputColumns, resolveInputPath } from '../core/inputs.js';
import type { CostMode, ReportParams } from '../report/summary.js';
import { FORMATS, renderOutput, type Format } from '../render/index.js';
import { hasStoredRows } from '../store/read.js';
import { resolveWarningsOf, warningsInWindow } from '../store/ready.js';
import type { IngestResult } from '../ingest/ingest.js';
import { cacheDir, notice, rootProblems, type Runtime } from './runtime.js';
import { openAnswerable, type Answerable } from './current.js';
import { retentionNoticeOnce } from './retention.js';
import { checkOutFile, writeOutFile } from './out-file.js';
import { reportHint } from './hints.js';
import { nearMatchWarnings, unpricedModelWarnings } from './price-warnings.js';
import { noteReportOutput } from './memo.js';
import { mark } from '../core/trace.js';
import { nowMs } from '../live/clock.js';
import type { BlocksOptions } from '../live/blocks-report.js';
import { addBudgets, budgetHorizonDay } from '../live/report-budgets.js';
import { printableLines, warningLines } from '../render/terminal-text.js';

export interface ReportArgs {
  name?: string;
  since?: string;
  until?: string;
  by?: string;
  harness?: string;
  project?: string;
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
  const items = v.split(',').map((s) => s.trim()).filter(Boolean);
  if (!items.length) throw new UsageError(`${flag} needs a value: a comma list of ${expected.join(', ')}`);
  return items;
}

export function reportParams(a: ReportArgs, defaultBy: GroupKey[], now = new Date()): ReportParams & { format: Format } {
  // The zone and the day are inputs of the report (core/inputs.ts): the memo replays it only on the same day.
  if (a.tz === undefined) noteSystemZone();
  const tz = a.tz ?? systemTimeZone();
  if (!isValidTimeZone(tz)) throw new UsageError(`--tz ${JSON.stringify(tz)}: not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  const today = todayIn(tz, now);
  noteToday(a.tz === undefined ? null : tz, a.tz === undefined ? localDay(now) : today);
  const since = parseDay(a.since ?? '30d', '--since', today);
  const until = a.until === undefined ? today : parseDay(a.until, '--until', today);
  if (since > until) throw new UsageError(`--since ${since} is after --until ${until}`);
  const byList = a.by === undefined ? defaultBy : list(a.by, '--by', GROUP_KEYS);
  for (const k of byList) if (!isGroupKey(k)) throw new UsageError(`--by ${JSON.stringify(k)}: expected a comma list of ${GROUP_KEYS.join(', ')}`);
  if (new Set(byList).size !== byList.length) throw new UsageError('--by: a key is given twice');
  const hs = a.harness === undefined ? [...HARNESS_IDS] : list(a.harness, '--harness', HARNESS_IDS);
  for (const h of hs) if (!isHarnessId(h)) throw new UsageError(`--harness ${JSON.stringify(h)}: expected a comma list of ${HARNESS_IDS.join(', ')}`);
  const format = (a.format ?? 'table') as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format ${JSON.stringify(a.format)}: expected one of ${FORMATS.join(', ')}`);
  const cost = (a.cost ?? 'auto') as CostMode;
  if (!['auto', 'computed', 'recorded'].includes(cost)) throw new UsageError(`--cost ${JSON.stringify(a.cost)}: expected auto, computed or recorded`);
  const sort = parseSort(a.sort);
  // Chart data only for the renderer that draws it.
  return { since, until, tz, by: byList as GroupKey[], harnesses: hs as HarnessId[], project: a.project ?? '', costMode: cost, charts: format === 'html', format, ...(sort ? { sort } : {}), ...(a.all ? { all: true } : {}) };
}

/** What was searched, for the "no data found" message and `sources`. */
export function searchedLines(ing: IngestResult): string[] {
  const lines: string[] = [];
  for (const s of ing.scans) {
    lines.push(`  ${s.harness.displayName} (${s.harness.id}): ${s.harness.howToPoint}`);
    for (const r of s.roots) lines.push(`    ${r.exists ? 'found  ' : 'missing'} ${r.path}  [${r.origin}]`);
  }
  return lines;
}

/** The note of a report that found no harness data on disk but answers from the rows the store kept. */
export const RETAINED_ONLY =
  'no harness data found in the searched locations: the rows shown are the store\'s retained history (read on earlier runs); `tx-usage sources` shows where it looked';

/**
 * The store found current or brought up to date as a report needs it
 * (current.ts): what `answerReport` reads. A caller asking several questions
 * at once (`serve`, `mcp`) opens it once for all of them (`horizonMs` null:
 * every source read, as `watch` reads them) and closes it.
 */
export type ReportStore = Answerable;

/** Opens the store for reports (current.ts openAnswerable): a store this user cannot write is answered from as it is, with a warning (runtime.ts answerReadOnly). */
export function openReportStore(rt: Runtime, horizonMs: number | null): Promise<ReportStore> {
  return openAnswerable(rt, { horizonMs, keepRootWarnings: true, readOnlyOk: true });
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
}

/** `tx-usage report`: the answer, then the output. `argsValid` is called once the arguments have been checked (report --demo's notice comes then, not before a usage error). */
export async function reportCommand(rt: Runtime, a: ReportArgs, argsValid?: () => void): Promise<void> {
  const r = await answerReport(rt, a, { argsValid });
  if (!r.out) {
    process.stdout.write(printableLines(r.noData!) + '\n');
    if (!rt.quiet) process.stderr.write(warningLines(r.warnings.filter((w) => w !== r.noData)));
    return;
  }
  await emit(rt, a, r.p, r.out, r.warnings, r.noData);
  mark('rendered');
}

/**
 * The one place a report is made, for the CLI, `serve` and `mcp` alike.
 * `o.use`: a store already opened for reports (openReportStore), left open;
 * without it the store is opened, refreshed for this report's range, and
 * closed. `o.charts`: the chart data sets too (the HTML renderer's and the
 * dashboard's), whatever the format.
 */
export async function answerReport(rt: Runtime, a: ReportArgs, o: { argsValid?: () => void; use?: ReportStore; charts?: boolean } = {}): Promise<ReportAnswer> {
  const name = a.name ?? 'summary';
  const def = findDefinition(name);
  if (!def) {
    const hint = reportHint(name);
    throw new UsageError(`unknown report ${JSON.stringify(name)}${hint ? ` (${hint})` : ''}; available: ${loadDefinitions().map((d) => d.name).join(', ')}`);
  }
  const p = reportParams(a, def.default_by);
  if (o.charts) p.charts = true;
  if (a.tokenLimit !== undefined && def.kind !== 'blocks') throw new UsageError('--token-limit is for report blocks');
  if (a.all && def.kind !== 'compare') throw new UsageError('--all is for report compare');
  // Two sources of data at once: refused rather than one silently ignored.
  if (a.demo && a.from?.length) throw new UsageError('--demo and --from: choose one (--demo reports on generated sample data, --from on exported Parquet folders)');
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
  const { store, scans, ingest, discoveryWarnings, storeWarnings, ready, pricingWarnings } = o.use ?? (await openReportStore(rt, horizonMs));
  try {
    // The price warnings of the range are read on a second connection while the first labels this machine's rows.
    const side = await store.connect();
    const priced = (async () => [...(ready.unpriced ? await unpricedModelWarnings(side, p) : []), ...(await nearMatchWarnings(side, p, ready.near))])();
    // Both observed at once, so that neither can end as an unhandled rejection.
    const both = Promise.all([labelLocalRows(store.conn, machine), priced]);
    both.catch(() => undefined);
    const [, unpriced] = await both;
    const totalSources = scans.reduce((n, s) => n + s.sources.length, 0);
    // The stored warnings of the sources this report needs: not those of a source its horizon leaves unread when the
    // store does not hold it (horizon.ts), whether or not another command has read it, so that a memo hit after
    // `tx-usage ingest` prints what the full run printed (store/ready.ts warningsInWindow).
    const stored = warningsInWindow(ready, p.harnesses, horizonMs);
    const costWarnings = [...pricingWarnings, ...resolveWarningsOf(ready, p.harnesses, pricingWarnings)];
    const warnings = [...storeWarnings, ...rootWarnings, ...discoveryWarnings, ...stored, ...costWarnings, ...unpriced];
    // "No harness data found" and where it looked: in the JSON's warnings, said on stderr as lines of its own.
    // Only when the store holds nothing either: rows it kept from earlier runs (a harness folder moved,
    // a custom storage path no longer readable) are still the user's spend, and every format shows them,
    // with a note saying where they come from (README "retained history").
    let noData: string | null = null;
    if (totalSources === 0 && (await hasStoredRows(store.conn, p.harnesses))) warnings.push(RETAINED_ONLY);
    else if (totalSources === 0) {
      noData = [
        'No harness data found. Searched:',
        ...searchedLines(ingest!),
        'Point tx-usage elsewhere with --root HARNESS=PATH (repeatable) or the environment variables above,',
        'or try `tx-usage report --demo` to see a report on generated sample data.',
      ].join('\n');
      warnings.push(noData);
      if (p.format === 'table') return { out: null, p, warnings, noData };
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
    return { out, p, warnings, noData };
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
async function emit(rt: Runtime, a: ReportArgs, p: ReturnType<typeof reportParams>, out: ReportOutput, warnings: string[], noData: string | null = null): Promise<void> {
  // The terminal's width and colour only for a table: the other formats do not depend on the terminal.
  const table = p.format === 'table';
  // The HTML renderer registers itself when loaded, only for --format html: it takes every harness's chart colour from the registry.
  if (p.format === 'html') await import('../render/html.js');
  const text = renderOutput(p.format, out, { width: table ? outputColumns() : 80, color: table && rt.color, home: rt.home });
  if (a.out !== undefined) writeOutFile(a.out, text, rt.outputsDir ?? cacheDir(rt.env, rt.home), a.force === true, rt.dbPath);
  else process.stdout.write(text);
  const stderr = rt.quiet ? '' : (noData === null ? '' : `${printableLines(noData)}\n`) + warningLines(noData === null ? warnings : warnings.filter((w) => w !== noData));
  process.stderr.write(stderr);
  // A blocks report changes with the clock (the active block's time left), and so do budgets (their projection):
  // never replayed from the memo.
  if (out.definition.kind !== 'blocks' && out.json.budgets === undefined) noteReportOutput(text, a.out === undefined ? null : resolveInputPath(a.out), stderr);
}

/**
 * The --root problems (runtime.ts rootProblems) as warnings; a usage error
 * when --harness names only harnesses whose every --root is unusable (the
 * report could show nothing but that).
 */
function rootWarningsFor(rt: Runtime, harnesses: HarnessId[], harnessGiven: boolean): string[] {
  const problems = rootProblems(rt);
  if (harnessGiven && harnesses.every((h) => (problems.get(h)?.length ?? 0) > 0 && problems.get(h)!.length === rt.rootOverrides[h]!.length)) {
    throw new UsageError(harnesses.flatMap((h) => problems.get(h)!).join('; '));
  }
  return [...problems.values()].flat();
}

/** The report over exported Parquet (`--from`, repeatable) instead of the local store: no ingest. */
async function rollupReport(rt: Runtime, a: ReportArgs, def: ReportDefinition, p: ReturnType<typeof reportParams>, live: BlocksOptions): Promise<ReportAnswer> {
  if (a.machine !== undefined) throw new UsageError('--machine names the local store\'s rows; with --from each row keeps the machine it was exported from');
  const rollup = await openRollup(a.from!);
  try {
    const warnings = [...rollup.warnings, ...(await unpricedModelWarnings(rollup.conn, p))];
    return { out: await runReport(rollup.conn, def, p, warnings, live), p, warnings, noData: null };
  } finally {
    rollup.close();
  }
}
