// --model: the report's filter on exact model ids, for every report that can
// take it (summary, monthly, compare; the CLI, the dashboard's URL and the
// MCP tools all pass it as ReportArgs.model, cli/report.ts reportParams). It
// is bound as $models and tested by the in_filter macro (macros.ts) beside
// --harness and --project. A model id no stored row has is a usage error
// naming the nearest ids the store holds: a typo would otherwise be an
// empty report that looks like "no spend".
import type { DuckDBConnection } from '@duckdb/node-api';
import { distance } from '../cli/hints.js';
import { UsageError } from './period.js';

/** `--model a,b`: the exact ids (blank items dropped); [] when not given. */
export function parseModels(v: string | undefined): string[] {
  if (v === undefined) return [];
  const ids = [
    ...new Set(
      String(v)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (!ids.length)
    throw new UsageError(
      '--model needs a value: a comma list of model ids (as `tx-usage report --by model` lists them)',
    );
  return ids;
}

/** Up to five ids of `known` near `id`: one containing the other (any case), or a few edits apart. */
export function nearModels(id: string, known: readonly string[]): string[] {
  const low = id.toLowerCase();
  const scored = known
    .map((k) => {
      const kl = k.toLowerCase();
      const d = distance(low, kl);
      const contains = kl.includes(low) || low.includes(kl);
      return { k, d, near: contains || d <= Math.max(2, Math.floor(id.length / 4)) };
    })
    .filter((x) => x.near)
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k));
  return scored.slice(0, 5).map((x) => x.k);
}

/** Refuses a --model id that no stored row (billed or context) names, with the nearest ids the store holds. */
export async function checkModels(conn: DuckDBConnection, models: readonly string[]): Promise<void> {
  if (!models.length) return;
  const r = await conn.runAndReadAll(
    `SELECT DISTINCT model FROM usage_slots WHERE model IS NOT NULL UNION SELECT DISTINCT model FROM context_rows WHERE model IS NOT NULL ORDER BY 1`,
  );
  const known = (r.getRows() as [string][]).map((x) => String(x[0]));
  const have = new Set(known);
  const problems = models
    .filter((m) => !have.has(m))
    .map((m) => {
      const near = nearModels(m, known);
      return `--model ${JSON.stringify(m)}: no stored usage has this model id (ids are exact)${near.length ? `; did you mean ${near.map((n) => JSON.stringify(n)).join(', ')}?` : ''}`;
    });
  if (problems.length)
    throw new UsageError(`${problems.join('; ')} (the stored models: tx-usage report --by model --since 1y)`);
}
