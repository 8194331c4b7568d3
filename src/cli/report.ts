// `tx-usage report [NAME]`: refresh the store, run a report definition, render it.
import { writeFileSync } from 'node:fs';
import { HARNESS_IDS, isHarnessId, type HarnessId } from '../core/types.js';
import { findDefinition, loadDefinitions, runReport, type ReportDefinition, type ReportOutput } from '../report/definitions.js';
import { machineName, readTeamConfig } from '../export/config.js';
import { labelLocalRows } from '../export/local.js';
import { openRollup } from '../export/rollup.js';
import { isGroupKey, GROUP_KEYS, type GroupKey } from '../report/groups.js';
import { firstDayRead, isValidTimeZone, parseDay, systemTimeZone, todayIn, UsageError } from '../report/period.js';
import { horizonOfDay } from '../ingest/horizon.js';
import type { CostMode, ReportParams } from '../report/summary.js';
import { FORMATS, renderOutput, type Format } from '../render/index.js';
import '../render/html.js'; // registers the HTML renderer (--format html)
import { hasUnpricedResponses, storedWarnings } from '../store/read.js';
import type { IngestResult } from '../ingest/ingest.js';
import { openAndRefresh, type Runtime } from './runtime.js';
import { costFunction, unpricedModelWarnings } from './pricing.js';
import { noteReportOutput } from './memo.js';
import { mark } from '../core/trace.js';

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
  /** Exported Parquet (files, folders or globs) to report on instead of the local store. */
  from?: string[];
  /** This machine's name for --by machine on the local store. */
  machine?: string;
}

function list(v: string | undefined): string[] {
  return (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

export function reportParams(a: ReportArgs, defaultBy: GroupKey[], now = new Date()): ReportParams & { format: Format } {
  const tz = a.tz ?? systemTimeZone();
  if (!isValidTimeZone(tz)) throw new UsageError(`--tz ${JSON.stringify(tz)}: not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  const today = todayIn(tz, now);
  const since = parseDay(a.since ?? '30d', '--since', today);
  const until = a.until === undefined ? today : parseDay(a.until, '--until', today);
  if (since > until) throw new UsageError(`--since ${since} is after --until ${until}`);
  const byList = a.by === undefined ? defaultBy : list(a.by);
  for (const k of byList) if (!isGroupKey(k)) throw new UsageError(`--by ${JSON.stringify(k)}: expected a comma list of ${GROUP_KEYS.join(', ')}`);
  if (new Set(byList).size !== byList.length) throw new UsageError('--by: a key is given twice');
  const hs = a.harness === undefined ? [...HARNESS_IDS] : list(a.harness);
  for (const h of hs) if (!isHarnessId(h)) throw new UsageError(`--harness ${JSON.stringify(h)}: expected a comma list of ${HARNESS_IDS.join(', ')}`);
  const format = (a.format ?? 'table') as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format ${JSON.stringify(a.format)}: expected one of ${FORMATS.join(', ')}`);
  const cost = (a.cost ?? 'auto') as CostMode;
  if (!['auto', 'computed', 'recorded'].includes(cost)) throw new UsageError(`--cost ${JSON.stringify(a.cost)}: expected auto, computed or recorded`);
  // Chart data only for the renderer that draws it.
  return { since, until, tz, by: byList as GroupKey[], harnesses: hs as HarnessId[], project: a.project ?? '', costMode: cost, charts: format === 'html', format };
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

export async function reportCommand(rt: Runtime, a: ReportArgs): Promise<void> {
  const name = a.name ?? 'summary';
  const def = findDefinition(name);
  if (!def) throw new UsageError(`unknown report ${JSON.stringify(name)}; available: ${loadDefinitions().map((d) => d.name).join(', ')}`);
  const p = reportParams(a, def.default_by);
  if (a.from?.length) return rollupReport(rt, a, def, p);
  const machine = machineName(a.machine, readTeamConfig(rt.env, rt.home));
  mark('report modules loaded');
  const cost = await costFunction(rt);
  mark('prices loaded');
  // Transcripts last written well before the first day read need not be read for this report (horizon.ts).
  const { store, ingest } = await openAndRefresh(rt, cost.fn, { horizonMs: horizonOfDay(firstDayRead(def.reads_from, p.since), p.tz) });
  try {
    // The warnings are read on a second connection while the first labels
    // this machine's rows.
    const side = await store.connect();
    const stored = storedWarnings(side, p.harnesses).then(async (w) => ({
      stored: w,
      unpriced: (await hasUnpricedResponses(side)) ? await unpricedModelWarnings(side, p) : [],
    }));
    // Both observed at once, so that neither can end as an unhandled rejection.
    const both = Promise.all([labelLocalRows(store.conn, machine), stored]);
    both.catch(() => undefined);
    const [, read] = await both;
    const totalSources = ingest.scans.reduce((n, s) => n + s.sources.length, 0);
    const warnings = [...ingest.discoveryWarnings, ...read.stored, ...cost.warnings, ...read.unpriced];
    if (totalSources === 0) {
      const msg = [
        'No harness data found. Searched:',
        ...searchedLines(ingest),
        'Point tx-usage elsewhere with --root HARNESS=PATH (repeatable) or the environment variables above,',
        'or try `tx-usage report --demo` to see a report on generated sample data.',
      ];
      if (p.format === 'table') {
        process.stdout.write(msg.join('\n') + '\n');
        return;
      }
      warnings.push(msg.join('\n'));
    }
    mark('warnings read');
    const out = await runReport(store.conn, def, p, warnings);
    mark('report query');
    await emit(rt, a, p, out, warnings);
    mark('rendered');
  } finally {
    await store.close();
    mark('store closed');
  }
}

async function emit(rt: Runtime, a: ReportArgs, p: ReturnType<typeof reportParams>, out: ReportOutput, warnings: string[]): Promise<void> {
  const text = renderOutput(p.format, out, { width: process.stdout.columns ?? 80, color: rt.color });
  if (a.out) writeFileSync(a.out, text);
  else process.stdout.write(text);
  const stderr = p.format === 'table' && !rt.quiet ? warnings.map((w) => `warning: ${w}\n`).join('') : '';
  process.stderr.write(stderr);
  noteReportOutput(text, a.out, stderr);
}

/** The report over exported Parquet (`--from`, repeatable) instead of the local store: no ingest. */
async function rollupReport(rt: Runtime, a: ReportArgs, def: ReportDefinition, p: ReturnType<typeof reportParams>): Promise<void> {
  if (a.machine !== undefined) throw new UsageError('--machine names the local store\'s rows; with --from each row keeps the machine it was exported from');
  const rollup = await openRollup(a.from!);
  try {
    const warnings = [...rollup.warnings, ...(await unpricedModelWarnings(rollup.conn, p))];
    await emit(rt, a, p, await runReport(rollup.conn, def, p, warnings), warnings);
  } finally {
    rollup.close();
  }
}
