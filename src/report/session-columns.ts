// The table columns of a report grouped by session (`--by session`, issues
// 25 and 27): what a session is (harness, project, title, first and last
// activity, models) and what it did (prompts, tool calls, active time) beside
// its usage. Pure data (no store), shared by every renderer.
import { keyColumns, USAGE_METRIC_COLUMNS, type Column } from '../render/columns.js';
import type { GroupKey } from './groups.js';

/** Usage columns kept in the 80-column table of a session view (the rest show on wide terminals). */
const NARROW_USAGE = new Set(['requests', 'total_tokens', 'cost_usd']);

export function sessionColumns(by: readonly GroupKey[]): Column[] {
  const keys = keyColumns(by);
  const about: Column[] = [
    ...(by.includes('harness') ? [] : [{ field: 'harness', label: 'Harness', kind: 'text' as const, narrow: true }]),
    ...(by.includes('project') ? [] : [{ field: 'project', label: 'Project', kind: 'key' as const, narrow: true, keep: 'end' as const }]),
    { field: 'title', label: 'Title', kind: 'key', narrow: true, keep: 'start', none: '' },
    { field: 'first_activity', label: 'First', kind: 'text' },
    { field: 'last_activity', label: 'Last', kind: 'text' },
    { field: 'models', label: 'Models', kind: 'text' },
    { field: 'prompts', label: 'Prompts', kind: 'int', narrow: true },
    { field: 'tool_calls', label: 'Tools', kind: 'int', narrow: true },
    { field: 'active_minutes', label: 'Active min', kind: 'ratio' },
  ];
  const usage = USAGE_METRIC_COLUMNS.map((c) => ({ ...c, narrow: NARROW_USAGE.has(c.field) }));
  return [...keys, ...about, ...usage];
}
