// A summary report with budgets configured, whose window includes now: the
// spend against them, as a `budgets` field in the JSON and a table after the
// report's own. The figures are `tx-usage check`'s, made by the same function
// (budgetFigures): spent, share, projection and status. A window that ends
// before today (or starts after it) shows no budgets: they are about now.
// Because the projection and the active block move with the clock, a report
// that shows budgets is never replayed from the memo (cli/report.ts).
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReportOutput } from '../report/output.js';
import type { Runtime } from '../cli/runtime.js';
import { systemTimeZone } from '../report/period.js';
import { liveConfig, type Budget, type LiveConfig } from './config.js';
import { storeBudgets } from './budgets-store.js';
import { budgetDataset } from './budget-view.js';
import { monthStartDay, type BudgetResult } from './budgets.js';
import { localDay, LOCAL_ZONE } from './time.js';

function budgetsOf(rt: Runtime) {
  const cfg = liveConfig(rt.env, rt.home);
  return { cfg, budgets: cfg.problems.length ? [] : cfg.budgets };
}

/** The zone budget days and months are cut in: `--tz` when given, else the config's `statusline.tz`, else the system's (check and report alike). */
export function budgetZone(tzGiven: string | undefined, cfg: LiveConfig): string {
  return tzGiven ?? cfg.tz ?? systemTimeZone();
}

/** Every budget's figures at `now`: what `check` prints and a report shows. */
export function budgetFigures(
  conn: DuckDBConnection,
  budgets: readonly Budget[],
  now: number,
  tz: string,
): Promise<BudgetResult[]> {
  return storeBudgets(conn, budgets, now, tz);
}

/** Whether a report's window (local days in its zone) holds the day of `now`. */
export function windowIncludesNow(w: { since: string; until: string; tz: string }, now: number): boolean {
  const today = localDay(now, w.tz);
  return w.since <= today && today <= w.until;
}

/** The first day a summary must read so that its budgets are whole: the month's first day when budgets will be shown and it is earlier. */
export function budgetHorizonDay(
  rt: Runtime,
  kind: string,
  firstDay: string,
  w: { since: string; until: string; tz: string },
  now: number,
): string {
  if (kind !== 'summary' || !windowIncludesNow(w, now)) return firstDay;
  const { cfg, budgets } = budgetsOf(rt);
  if (!budgets.length) return firstDay;
  // A day before the month's first in any zone (the horizon adds its own margin).
  const month = monthStartDay(localDay(now, cfg.tz ?? LOCAL_ZONE));
  return month < firstDay ? month : firstDay;
}

export async function addBudgets(
  conn: DuckDBConnection,
  rt: Runtime,
  out: ReportOutput,
  w: { since: string; until: string; tz: string; tzGiven: string | undefined; format: string },
  now: number,
): Promise<void> {
  const { cfg, budgets } = budgetsOf(rt);
  if (cfg.problems.length) out.warnings.push(...cfg.problems);
  if (!budgets.length || !windowIncludesNow(w, now)) return;
  const results = await budgetFigures(conn, budgets, now, budgetZone(w.tzGiven, cfg));
  out.json.budgets = results;
  if (w.format === 'table' || w.format === 'html')
    out.datasets.push(budgetDataset(results, rt.color && w.format === 'table'));
}
