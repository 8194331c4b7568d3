// A session as the usage and unit readers (v1.ts, v2.ts, units.ts) take it:
// how its table is read, the fork rule they share (README "Forks"), and the
// residual of its running totals over its rows.
import { checkTokenCount, checkCost, parseTimestamp } from '../../core/numbers.js';
import type { SourceLocation, UsageEvent } from '../../core/types.js';
import type { SqliteDb } from '../../io/sqlite.js';
import type { ExtractSink } from '../types.js';
import { RULE } from './rules.js';
import { columnNames, pick } from './tables.js';
import { isObject, modelRef, parseJson, usageEvent, type OcUsage } from './usage.js';

export interface SessionInfo {
  id: string;
  /** session_v2.title (never prompt text); null when absent. */
  title: string | null;
  /** The session that spawned this one (subagent child sessions). */
  parentId: string | null;
  directory: string | null;
  model: string | null;
  provider: string | null;
  ts: number | null;
  forkOf: string | null;
  boundary: { type: string; messageID: string } | null;
  /** Running totals; null when the table has no usage columns. */
  totals: OcUsage | null;
}

/**
 * A row a fork copied from its source session: its id is the copy's
 * `msg_<forkEventSuffix>_<seq>` with the SAME seq, or its seq is at or below
 * the last one copied (v2.ts lastCopiedSeqs).
 */
export function isForkCopy(id: string, seq: number, lastCopied: number | null | undefined): boolean {
  const m = /^msg_[^_]+_(\d+)$/.exec(id);
  if (m && Number(m[1]) === seq) return true;
  return typeof lastCopied === 'number' && seq <= lastCopied;
}

/** Cost differences below this are float noise, not lost spend. */
const COST_EPSILON = 1e-9;

const SESSION_COLUMNS = [
  'id',
  'directory',
  'model',
  'fork_session_id',
  'fork_boundary',
  'time_created',
  'title',
  'parent_id',
  'cost',
  'tokens_input',
  'tokens_output',
  'tokens_reasoning',
  'tokens_cache_read',
  'tokens_cache_write',
];

export function readSessions(db: SqliteDb, table: string, file: string, sink: ExtractSink): Map<string, SessionInfo> {
  const cols = columnNames(db, table);
  const hasTotals = cols.has('cost') || cols.has('tokens_input');
  const out = new Map<string, SessionInfo>();
  const rows = db.prepare(`SELECT ${pick(cols, SESSION_COLUMNS)} FROM "${table}"`).all() as Record<string, unknown>[];
  for (const r of rows) {
    if (typeof r.id !== 'string') continue;
    const at: SourceLocation = { file, row: `${table} ${r.id}` };
    const { model, provider } = modelRef(parseJson(r.model));
    const b = parseJson(r.fork_boundary);
    let totals: OcUsage | null = null;
    if (hasTotals) {
      const field = (name: string) => {
        // SQL NULL in a totals column is tolerated as 0, as the cost column's is (running totals, not a response's usage).
        if (r[name] === null) return 0;
        const c = checkTokenCount(r[name]);
        if (!c.ok) sink.warn(`invalid session total ${name} counted as 0 (${c.reason})`, at);
        return c.value;
      };
      const cost = r.cost === null || r.cost === undefined ? 0 : checkCost(r.cost);
      if (cost === null) sink.warn('invalid session total cost ignored', at);
      totals = {
        input: field('tokens_input'),
        output: field('tokens_output'),
        reasoning: field('tokens_reasoning'),
        cacheRead: field('tokens_cache_read'),
        cacheWrite: field('tokens_cache_write'),
        cost: cost ?? 0,
      };
    }
    out.set(r.id, {
      id: r.id,
      title: typeof r.title === 'string' ? r.title : null,
      parentId: typeof r.parent_id === 'string' && r.parent_id ? r.parent_id : null,
      directory: typeof r.directory === 'string' && r.directory ? r.directory : null,
      model,
      provider,
      ts: parseTimestamp(r.time_created),
      forkOf: typeof r.fork_session_id === 'string' && r.fork_session_id ? r.fork_session_id : null,
      boundary:
        isObject(b) && typeof b.messageID === 'string' ? { type: String(b.type), messageID: b.messageID } : null,
      totals,
    });
  }
  return out;
}

/**
 * usage: session totals = all step + title + compaction usage, and keep what
 * rows lost (reverts delete rows, retries overwrite them, titles have none).
 * The positive difference per bucket is one zero-request event.
 */
export function residualEvent(s: SessionInfo, rows: OcUsage, file: string, sink: ExtractSink): UsageEvent | null {
  const t = s.totals;
  if (!t) return null;
  const at: SourceLocation = { file, row: `session ${s.id}` };
  const diff = (a: number, b: number) => Math.max(0, a - b);
  const r: OcUsage = {
    input: diff(t.input, rows.input),
    output: diff(t.output, rows.output),
    reasoning: diff(t.reasoning, rows.reasoning),
    cacheRead: diff(t.cacheRead, rows.cacheRead),
    cacheWrite: diff(t.cacheWrite, rows.cacheWrite),
    cost: null,
  };
  const costDiff = (t.cost ?? 0) - (rows.cost ?? 0);
  r.cost = costDiff > COST_EPSILON ? costDiff : 0;
  if (
    rows.input > t.input ||
    rows.output > t.output ||
    rows.reasoning > t.reasoning ||
    rows.cacheRead > t.cacheRead ||
    rows.cacheWrite > t.cacheWrite ||
    costDiff < -COST_EPSILON
  ) {
    sink.count('sessions whose rows exceed their running totals');
  }
  if (r.input + r.output + r.reasoning + r.cacheRead + r.cacheWrite === 0 && r.cost === 0) return null;
  if (s.ts === null) {
    sink.warn('session totals not covered by its rows skipped: session has no usable time_created', at);
    return null;
  }
  return usageEvent(
    {
      session_id: s.id,
      project: s.directory,
      model: s.model,
      provider: s.provider,
      ts: s.ts,
      // Keyed by session alone: an imported or frozen copy of the same session
      // in a second database is the same spend (the store keeps one).
      dedupe_key: `residual:${s.id}`,
      requests: 0,
      source_file: file,
      rule: RULE.residual,
    },
    r,
  );
}
