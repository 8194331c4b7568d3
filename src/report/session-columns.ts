// The table columns of a report grouped by session (`--by session`, issues
// 25 and 27): what a session is (harness, project, title, first and last
// activity, models) and what it did (prompts, tool calls, active time) beside
// its usage. Pure data (no store), shared by every renderer.
import { keyColumns, USAGE_METRIC_COLUMNS, type Column } from '../render/columns.js';
import type { GroupKey } from './groups.js';

/** Usage columns kept in the 80-column table of a session view (the rest show on wide terminals). */
const NARROW_USAGE = new Set(['requests', 'total_tokens', 'cost_usd']);

/**
 * The order the wide-only columns leave a terminal too narrow for all of them
 * (lowest first; render/table.ts): the usage table's own order (unpriced
 * counts, cost comparisons, reasoning), then the token kinds, then what the
 * session was (models, last and first activity, active time) — so a
 * 200-column terminal keeps the first activity and the tokens, a 120-column
 * one the narrow set with whole ids where the title leaves room. The title
 * is `flex`: it is cut to take what is left before any of these leaves.
 */
const WIDE_DROP: Record<string, number> = {
  cache_write_tokens: 7,
  input_tokens: 8,
  cache_read_tokens: 9,
  output_tokens: 10,
  models: 11,
  last_activity: 12,
  active_minutes: 13,
  first_activity: 14,
};

export function sessionColumns(by: readonly GroupKey[]): Column[] {
  const keys = keyColumns(by);
  const about: Column[] = [
    ...(by.includes('harness') ? [] : [{ field: 'harness', label: 'Harness', kind: 'text' as const, narrow: true }]),
    ...(by.includes('project')
      ? []
      : [{ field: 'project', label: 'Project', kind: 'key' as const, narrow: true, keep: 'end' as const }]),
    { field: 'title', label: 'Title', kind: 'key', narrow: true, keep: 'start', none: '', flex: true },
    { field: 'first_activity', label: 'First', kind: 'time' },
    { field: 'last_activity', label: 'Last', kind: 'time' },
    { field: 'models', label: 'Models', kind: 'text' },
    { field: 'prompts', label: 'Prompts', kind: 'int', narrow: true },
    { field: 'tool_calls', label: 'Tools', kind: 'int', narrow: true },
    { field: 'active_minutes', label: 'Active min', kind: 'ratio', html: 'keep' },
  ];
  const usage = USAGE_METRIC_COLUMNS.map((c) => ({ ...c, narrow: NARROW_USAGE.has(c.field) }));
  return [...keys, ...about, ...usage].map((c) =>
    WIDE_DROP[c.field] !== undefined ? { ...c, wideDrop: WIDE_DROP[c.field] } : c,
  );
}
