// Budgets as a table (for report, check and watch), through the shared
// renderers, and the reasons `check` gives.
import type { Column, Dataset } from '../render/columns.js';
import { usd } from '../render/format.js';
import type { BudgetResult } from './budgets.js';

export const STATUS_TEXT: Record<BudgetResult['status'], string> = {
  ok: 'ok',
  warn: '≥80%',
  over: 'OVER',
  projected_over: 'projected over',
};

/** The status word, in the warning colour at 80 % and the alarm colour at 100 % (the last column, so colour codes move no other). */
export function statusCell(b: BudgetResult, color: boolean): string {
  const t = STATUS_TEXT[b.status];
  if (!color || b.status === 'ok') return t;
  return b.status === 'over' ? `\x1b[31m${t}\x1b[0m` : `\x1b[33m${t}\x1b[0m`;
}

export function budgetDataset(results: readonly BudgetResult[], color: boolean): Dataset {
  const columns: Column[] = [
    { field: 'period', label: 'Budget', kind: 'key', narrow: true },
    { field: 'scope', label: 'Scope', kind: 'text', narrow: true },
    { field: 'limit_usd', label: 'Limit', kind: 'usd', narrow: true },
    { field: 'spent_usd', label: 'Spent', kind: 'usd', narrow: true },
    { field: 'share', label: 'Used', kind: 'pct', narrow: true },
    { field: 'projected_usd', label: 'Projected', kind: 'usd', narrow: true },
    { field: 'status', label: 'Status', kind: 'text', narrow: true },
  ];
  return {
    title: 'Budgets',
    columns,
    rows: results.map((b) => ({ ...b, status: statusCell(b, color) })),
    notes: results.some((b) => b.unpriced_requests)
      ? ['Spent counts priced responses only; some responses in these periods have no price.']
      : [],
  };
}

/** Why `check` fails: one sentence per budget over, or projected to be. */
export function budgetReasons(results: readonly BudgetResult[]): string[] {
  const scope = (b: BudgetResult) => (b.scope === 'all' ? '' : ` (${b.scope})`);
  const money = (v: number | null) => (v === null ? 'unknown' : usd(v, true));
  return results.flatMap((b) => {
    if (b.status === 'over')
      return [
        `${b.period} budget${scope(b)} exceeded: ${money(b.spent_usd)} spent of ${money(b.limit_usd)} (${Math.round((b.share ?? 0) * 100)}%)`,
      ];
    if (b.status === 'projected_over')
      return [
        `${b.period} budget${scope(b)} projected to be exceeded: ${money(b.spent_usd)} spent, ${money(b.projected_usd)} by ${b.period_end ?? 'the end'} at this pace, of ${money(b.limit_usd)}`,
      ];
    return [];
  });
}
