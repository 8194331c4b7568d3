// `tx-usage check`: exits 1 when a budget of the config file is exceeded or
// projected to be by its period's end (for cron or CI alerts), saying why;
// 0 when all are within. Orchestration only: src/live/budgets*.ts.
import { isValidTimeZone, UsageError } from '../report/period.js';
import { renderText } from '../render/index.js';
import { defineReportMacros } from '../report/macros.js';
import { nowMs } from '../live/clock.js';
import { liveConfig } from '../live/config.js';
import { budgetFigures, budgetZone } from '../live/report-budgets.js';
import { budgetDataset, budgetReasons } from '../live/budget-view.js';
import { isoInZone } from '../live/time.js';
import { costFunction } from './pricing.js';
import { openAndRefresh, type Runtime } from './runtime.js';
import { printableLines } from '../render/terminal-text.js';
import { renderJson } from '../render/json.js';
import { outputColumns } from '../core/inputs.js';

export async function checkCommand(rt: Runtime, a: { tz?: string; format?: string }): Promise<void> {
  // `table`, as every other command calls its readable output; `text` (its name before) is the same.
  const format = a.format === undefined || a.format === 'text' ? 'table' : a.format;
  if (!['table', 'json'].includes(format))
    throw new UsageError(`--format ${JSON.stringify(format)}: expected table or json`);
  const cfg = liveConfig(rt.env, rt.home);
  if (cfg.problems.length) throw new UsageError(cfg.problems.join('\n'));
  const tz = budgetZone(a.tz, cfg);
  if (!isValidTimeZone(tz))
    throw new UsageError(`--tz ${JSON.stringify(tz)}: not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  const now = nowMs(rt.env);
  if (!cfg.budgets.length) {
    const msg = `no budgets in ${cfg.path}: add e.g. "budgets": { "day": 20, "month": 400, "block": 10 }`;
    process.stdout.write(
      format === 'json'
        ? renderJson({ ok: true, timezone: tz, now: isoInZone(now, tz), budgets: [], reasons: [], note: msg })
        : `${printableLines(msg)}\n`,
    );
    return;
  }
  const cost = await costFunction(rt);
  // Blocks chain back past any window: everything is read (incrementally after the first time).
  const { store } = await openAndRefresh(rt, cost.fn, { horizonMs: null });
  let results;
  try {
    await defineReportMacros(store.conn);
    results = await budgetFigures(store.conn, cfg.budgets, now, tz);
  } finally {
    await store.close();
  }
  const reasons = budgetReasons(results);
  if (format === 'json') {
    process.stdout.write(
      renderJson({ ok: reasons.length === 0, timezone: tz, now: isoInZone(now, tz), budgets: results, reasons }),
    );
  } else {
    process.stdout.write(
      renderText('table', null, [budgetDataset(results, rt.color)], { width: outputColumns(), color: rt.color }),
    );
    process.stdout.write(
      reasons.length ? reasons.map((r) => `${printableLines(r)}\n`).join('') : 'All budgets within limits.\n',
    );
  }
  if (reasons.length) process.exitCode = 1;
}
