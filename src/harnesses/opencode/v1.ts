// OpenCode 1.x tables (a database no 2.x build has opened) → usage events.
// Read ONLY when the database has no 2.x tables: on upgraded installs the 1.x
// tables are stale pre-import copies (contract gotcha).
//
// A 1.x assistant `message` may span several model steps: its `cost` is the
// sum over steps but its `tokens` are the LAST step's only. Each step's own
// usage is a `step-finish` part, so a message with step-finish parts counts
// one request per part; a message without any counts its own usage once.
import { parseTimestamp } from '../../core/numbers.js';
import type { SourceLocation, UsageEvent } from '../../core/types.js';
import type { SqliteDb } from '../../io/sqlite.js';
import type { ExtractSink } from '../types.js';
import { columnNames } from './tables.js';
import { isObject, parseJson, readUsage, tokenSum, usageEvent, writtenTokens } from './usage.js';

const MESSAGES_SQL = `
  SELECT id, session_id, time_created,
    CASE WHEN json_valid(data) THEN json_object(
      'role', data -> '$.role',
      'time', data -> '$.time',
      'tokens', data -> '$.tokens',
      'tokens_type', json_type(data, '$.tokens'),
      'cost', data -> '$.cost',
      'modelID', data -> '$.modelID',
      'providerID', data -> '$.providerID',
      'cwd', data -> '$.path.cwd'
    ) END AS u
  FROM message
  ORDER BY session_id, time_created, id`;

const STEP_PARTS_SQL = `
  SELECT id, message_id, time_created,
    CASE WHEN json_valid(data) THEN json_object('tokens', data -> '$.tokens', 'tokens_type', json_type(data, '$.tokens'), 'cost', data -> '$.cost') END AS u
  FROM part
  WHERE CASE WHEN json_valid(data) THEN data ->> '$.type' END = 'step-finish'
  ORDER BY message_id, id`;

interface StepPart {
  id: string;
  ts: number | null;
  tokens: unknown;
  cost: unknown;
}

export function extractV1(db: SqliteDb, file: string, layout: { hasSession: boolean; hasPart: boolean }, sink: ExtractSink): UsageEvent[] {
  const directories = new Map<string, string>();
  if (layout.hasSession && columnNames(db, 'session').has('directory')) {
    for (const r of db.prepare('SELECT id, directory FROM session').all() as { id: string; directory: unknown }[]) {
      if (typeof r.directory === 'string' && r.directory) directories.set(r.id, r.directory);
    }
  }
  const steps = new Map<string, StepPart[]>();
  if (layout.hasPart) {
    for (const r of db.prepare(STEP_PARTS_SQL).iterate() as Iterable<Record<string, unknown>>) {
      const d = parseJson(r.u);
      if (!isObject(d)) continue;
      const list = steps.get(String(r.message_id)) ?? [];
      list.push({ id: String(r.id), ts: parseTimestamp(r.time_created), tokens: writtenTokens(d), cost: d.cost });
      steps.set(String(r.message_id), list);
    }
  }

  const events: UsageEvent[] = [];
  let unparsable = 0;
  let firstUnparsable = '';
  for (const r of db.prepare(MESSAGES_SQL).iterate() as Iterable<Record<string, unknown>>) {
    const id = String(r.id);
    const at: SourceLocation = { file, row: `message ${id}` };
    const d = parseJson(r.u);
    if (!isObject(d)) {
      if (unparsable++ === 0) firstUnparsable = id;
      sink.unparsable?.(at);
      continue;
    }
    if (d.role !== 'assistant') continue;
    const sessionId = String(r.session_id);
    const time = isObject(d.time) ? d.time : {};
    const msgTs = parseTimestamp(time.created) ?? parseTimestamp(r.time_created);
    const base = {
      session_id: sessionId,
      project: (typeof d.cwd === 'string' && d.cwd) || directories.get(sessionId) || null,
      model: typeof d.modelID === 'string' && d.modelID ? d.modelID : null,
      provider: typeof d.providerID === 'string' && d.providerID ? d.providerID : null,
      requests: 1,
      source_file: file,
    };
    const parts = steps.get(id);
    if (parts?.length) {
      for (const p of parts) {
        const pat: SourceLocation = { file, row: `part ${p.id}` };
        const ts = p.ts ?? msgTs;
        if (ts === null) {
          sink.warn('step-finish part without a usable timestamp skipped', pat);
          continue;
        }
        events.push(usageEvent({ ...base, ts, dedupe_key: `part:${p.id}`, rule: '1.x step-finish part' }, readUsage(p.tokens, p.cost, pat, sink, 'data.tokens')));
      }
      continue;
    }
    // No step parts: the message's own usage, when it has any (1.x creates
    // assistant messages with zeroed tokens before the first step ends).
    const u = readUsage(writtenTokens(d), d.cost, at, sink, 'data.tokens');
    if (tokenSum(u) === 0 && !u.cost) {
      sink.skip('1.x assistant message without usage', at);
      continue;
    }
    if (msgTs === null) {
      sink.warn('assistant message without a usable timestamp skipped', at);
      continue;
    }
    events.push(usageEvent({ ...base, ts: msgTs, dedupe_key: `msg:${id}`, rule: '1.x message usage' }, u));
  }
  if (unparsable) {
    sink.warn(`${unparsable} message row(s) with unparsable data skipped (first: ${firstUnparsable})`, { file, row: `message ${firstUnparsable}` }, { sumsUpUnparsable: true });
  }
  return events;
}
