// A summary report with budgets configured: the spend against them, as a
// `budgets` field in the JSON and a table after the report's own. Spent and
// share only (no projection), so that the report stays a function of the
// sources and the day; `tx-usage check` projects.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReportOutput } from '../report/output.js';
import type { Runtime } from '../cli/runtime.js';
import { liveConfig } from './config.js';
import { storeBudgets } from './budgets-store.js';
import { budgetDataset } from './budget-view.js';
import { monthStartDay, type BudgetResult } from './budgets.js';
import { localDay, LOCAL_ZONE } from './time.js';

function budgetsOf(rt: Runtime) {
  const cfg = liveConfig(rt.env, rt.home);
  return { cfg, budgets: cfg.problems.length ? [] : cfg.budgets };
}

/** The first day a summary must read so that its budgets are whole: the month's first day when budgets are set and it is earlier. */
export function budgetHorizonDay(rt: Runtime, kind: string, firstDay: string, now: number): string {
  if (kind !== 'summary') return firstDay;
  const { cfg, budgets } = budgetsOf(rt);
  if (!budgets.length) return firstDay;
  // A day before the month's first in any zone (the horizon adds its own margin).
  const month = monthStartDay(localDay(now, cfg.tz ?? LOCAL_ZONE));
  return month < firstDay ? month : firstDay;
}

export async function addBudgets(conn: DuckDBConnection, rt: Runtime, out: ReportOutput, format: string, now: number): Promise<void> {
  const { cfg, budgets } = budgetsOf(rt);
  if (cfg.problems.length) out.warnings.push(...cfg.problems);
  if (!budgets.length) return;
  const tz = cfg.tz ?? (out.json.timezone as string);
  const results: BudgetResult[] = (await storeBudgets(conn, budgets, now, tz)).map((b) => ({
    ...b,
    projected_usd: null,
    status: b.status === 'projected_over' ? (b.share !== null && b.share >= 0.8 ? 'warn' : 'ok') : b.status,
  }));
  out.json.budgets = results;
  if (format === 'table' || format === 'html') out.datasets.push(budgetDataset(results, rt.color && format === 'table'));
}
