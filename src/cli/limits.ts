// `tx-usage limits`: plan rate limits per harness and window (Codex from its
// rollouts via the store, Claude Code from statusline readings in the cache
// dir), with the spend behind each window. Orchestration only: the figures
// are made in src/live/limits*.ts.
import { writeFileSync } from 'node:fs';
import { HARNESS_IDS, isHarnessId } from '../core/types.js';
import { renderText } from '../render/index.js';
import { isValidTimeZone, parseDay, systemTimeZone, todayIn, UsageError } from '../report/period.js';
import { defineReportMacros } from '../report/macros.js';
import { horizonOfDay } from '../ingest/horizon.js';
import { nowMs } from '../live/clock.js';
import { claudeSnapshots } from '../live/claude-limits.js';
import { limitsDatasets, limitsReport, storedSnapshots, type LimitsReport } from '../live/limits-view.js';
import { localDayStartMs } from '../live/time.js';
import { warningsInWindow } from '../store/ready.js';
import { openAnswerable, type Answerable } from './current.js';
import { cacheDir, type Runtime } from './runtime.js';
import { warningLines } from '../render/terminal-text.js';
import { outputColumns } from '../core/inputs.js';

export interface LimitsArgs {
  since?: string;
  tz?: string;
  harness?: string;
  format?: string;
  out?: string;
}

/** Weekly windows start up to 7 days before they reset: read that far before the first day. */
const WEEK_MS = 7 * 86_400_000;

export async function limitsCommand(rt: Runtime, a: LimitsArgs): Promise<void> {
  const format = a.format ?? 'table';
  if (!['table', 'json', 'csv'].includes(format))
    throw new UsageError(`--format ${JSON.stringify(format)}: expected table, json or csv`);
  const { report, warnings } = await answerLimits(rt, a);
  const text = renderText(format as 'table' | 'json' | 'csv', report, limitsDatasets(report), {
    width: format === 'table' ? outputColumns() : 80,
    color: rt.color,
  });
  if (a.out) writeFileSync(a.out, text);
  else process.stdout.write(text);
  // Warnings on stderr in every format (the JSON carries them too).
  if (!rt.quiet) process.stderr.write(warningLines(warnings));
}

/**
 * The limits report (the JSON document `limits --format json` prints), for
 * the CLI, `serve` and `mcp` alike. `use`: a store already opened for
 * reports (report.ts openReportStore), left open.
 */
export async function answerLimits(
  rt: Runtime,
  a: LimitsArgs,
  use?: Answerable,
): Promise<{ report: LimitsReport; warnings: string[] }> {
  const tz = a.tz ?? systemTimeZone();
  if (!isValidTimeZone(tz))
    throw new UsageError(`--tz ${JSON.stringify(tz)}: not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  const harnesses =
    a.harness === undefined
      ? [...HARNESS_IDS]
      : a.harness
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  for (const h of harnesses)
    if (!isHarnessId(h))
      throw new UsageError(`--harness ${JSON.stringify(h)}: expected a comma list of ${HARNESS_IDS.join(', ')}`);
  const now = nowMs(rt.env);
  const since = parseDay(a.since ?? '7d', '--since', todayIn(tz, new Date(now)), true);
  const fromMs = localDayStartMs(since, tz);
  const { store, ready, pricingWarnings } =
    use ?? (await openAnswerable(rt, { horizonMs: horizonOfDay(since, tz) - WEEK_MS }));
  try {
    await defineReportMacros(store.conn);
    const snaps = [
      ...(await storedSnapshots(store.conn, harnesses, fromMs - WEEK_MS)),
      ...(harnesses.includes('claude-code') ? claudeSnapshots(cacheDir(rt.env, rt.home)) : []),
    ];
    // Every stored warning of these harnesses (no horizon applies), then the prices' own.
    const warnings = [...warningsInWindow(ready, harnesses, null), ...pricingWarnings];
    return { report: await limitsReport(store.conn, snaps, { tz, now, since, fromMs, warnings }), warnings };
  } finally {
    if (!use) await store.close();
  }
}
