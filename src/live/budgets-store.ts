// Budgets measured on the store (check, report, watch): the month so far and
// each block family's active block, read with the live views' own queries.
import type { DuckDBConnection } from '@duckdb/node-api';
import { HARNESS_IDS } from '../core/types.js';
import { activeBlock, BLOCK_MS } from './blocks.js';
import type { Budget } from './config.js';
import { blocksBetween, readSpans } from './events.js';
import { evaluateBudgets, periodBounds, spendFromEvents, type BudgetResult, type SpendSource } from './budgets.js';

/** The block families budgets look at: each harness a block budget names, Claude Code for the others. */
export function budgetFamilies(budgets: readonly Budget[]): string[] {
  const out = new Set<string>();
  for (const b of budgets) if (b.period === 'block') out.add(b.harness ?? 'claude-code');
  return [...out];
}

export async function storeSpendSource(
  conn: DuckDBConnection,
  budgets: readonly Budget[],
  now: number,
  tz: string,
): Promise<SpendSource> {
  // The month and the day so far, each added up as a window of its own (events.ts readSpans).
  const starts = [periodBounds('month', now, tz).start, periodBounds('day', now, tz).start];
  const spans = await readSpans(
    conn,
    { harnesses: [...HARNESS_IDS], project: '', costMode: 'auto' },
    starts.map((s) => [s, now + 1] as const),
  );
  const families = budgetFamilies(budgets);
  const activeBlocks = families.length
    ? (
        await blocksBetween(conn, { harnesses: families, project: '', costMode: 'auto' }, now - BLOCK_MS, now + 1, now)
      ).perHarness.flatMap((h) => {
        const b = activeBlock(h.blocks, now);
        return b ? [b] : [];
      })
    : [];
  const spent: SpendSource['spent'] = (scope, fromMs) => {
    const i = starts.indexOf(fromMs);
    return i < 0 ? null : spendFromEvents(spans[i]!, fromMs)(scope, fromMs);
  };
  return { now, tz, activeBlocks, spent };
}

export async function storeBudgets(
  conn: DuckDBConnection,
  budgets: readonly Budget[],
  now: number,
  tz: string,
): Promise<BudgetResult[]> {
  return evaluateBudgets(budgets, await storeSpendSource(conn, budgets, now, tz));
}
