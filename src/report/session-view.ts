// `--by session`: each session's row gets what the
// session is and did beside its usage (queries/session_view.sql), rows from
// Cursor's context alone (no billed usage) are left to its context section,
// and rows are sorted by cost, then tokens.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Row, SummaryReport } from './summary-rows.js';
import { templateValues, type ReportParams } from './summary-rows.js';
import { loadTemplate, runTemplate } from './template.js';
import { ensureUnitMacros } from './unit-macros.js';

/** The fields a session row gets, in order (docs/reports.md). */
export const SESSION_FIELDS = [
  'harness',
  'project',
  'title',
  'first_activity',
  'last_activity',
  'models',
  'prompts',
  'turns',
  'tool_calls',
  'subagent_tasks',
  'subagent_threads',
  'active_minutes',
] as const;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

/** Per session (by harness and id, and by id in any harness): the session view's facts. */
export async function sessionFacts(conn: DuckDBConnection, p: ReportParams): Promise<Map<string, Row>> {
  await ensureUnitMacros(conn);
  const rows = await runTemplate(conn, loadTemplate('session_view'), templateValues(p));
  const out = new Map<string, Row>();
  for (const r of rows) {
    const fact: Row = {
      harness: String(r.harness),
      project: (r.project as string | null) ?? null,
      title: (r.title as string | null) ?? null,
      first_activity: iso(r.first_ts_ms),
      last_activity: iso(r.last_ts_ms),
      // Comma-separated: rows hold scalars (JSON, CSV and tables alike).
      models: ((r.models as string[] | null) ?? []).map(String).join(', '),
      prompts: num(r.prompts),
      turns: num(r.turns),
      tool_calls: num(r.tool_calls),
      subagent_tasks: num(r.subagent_tasks),
      subagent_threads: num(r.subagent_threads),
      active_minutes: Math.round(num(r.active_ms) / 600) / 100,
    };
    out.set(`${fact.harness}\u0000${r.session_id}`, fact);
    if (!out.has(`*\u0000${r.session_id}`)) out.set(`*\u0000${r.session_id}`, fact);
  }
  return out;
}

/**
 * The session view of a summary report grouped by session: its rows (those
 * with billed usage: summaryFromRows leaves a Cursor chat to the context
 * section), each with its session's facts, sorted by cost (unknown last),
 * then tokens, then keys, within the keys that come before `session` (their
 * order as always). (The rows were once filtered again here by the index of
 * the template row behind each, but the rows are sorted by then: a session
 * whose place matched a Cursor chat's template row was dropped, its usage
 * still in the totals.)
 */
export function applySessionView(report: SummaryReport, facts: Map<string, Row>): void {
  const keys = report.group_by;
  const rows = report.rows.map((row) => {
    const f = facts.get(`${row.harness ?? '*'}\u0000${row.session}`) ?? facts.get(`*\u0000${row.session}`);
    const out: Row = { ...row };
    for (const k of SESSION_FIELDS) {
      if (k === 'harness' && keys.includes('harness')) continue;
      if (k === 'project' && keys.includes('project')) continue;
      out[k] = f ? f[k]! : k === 'models' ? '' : null;
    }
    return out;
  });
  // Grouped by the keys before `session` (e.g. --by machine,session: per machine), then by cost.
  const outer = keys.slice(0, keys.indexOf('session'));
  const cost = (r: Row) => (r.cost_usd === null ? -Infinity : Number(r.cost_usd));
  rows.sort(
    (a, b) =>
      keyOrder(a, b, outer) ||
      cost(b) - cost(a) ||
      Number(b.total_tokens) - Number(a.total_tokens) ||
      keyOrder(a, b, keys),
  );
  report.rows = rows;
}

function keyOrder(a: Row, b: Row, keys: readonly string[]): number {
  for (const k of keys) {
    const x = String(a[k] ?? '');
    const y = String(b[k] ?? '');
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
