// Codex rollout → usage events. Rules from the contract entry `codex` (usage,
// gotchas, linking); README.md beside this file lists each rule and choice.
//
// Two usage sources share one cumulative scale (the thread total):
// - token_usage_record: exact usage of one response, plus thread_token_usage
//   (the thread total after it). Preferred wherever present.
// - event_msg token_count: only a cumulative total (info.total_token_usage).
//   A response's usage is the difference from the previous real total.
// A token_count and the record of the same response land on the same total,
// so each response is counted once whichever comes first, and both get the
// same dedupe key (thread, rollout, position on the total) — stable when the
// file is compressed, archived or re-read.
import { basename } from 'node:path';
import { scanJsonlFile, scanJsonlZstFile } from '../../io/jsonl.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { parseRolloutName } from './paths.js';
import { RolloutReader } from './reader.js';
import { rolloutLine } from './records.js';
import { onSessionMeta } from './session-meta.js';
import { freshState, restoredState } from './state.js';
import { extractThreadNames } from './thread-names.js';
import { onTokenCount } from './token-count.js';
import { onRollback, onTaskStarted, onThreadSettings, onTurnContext } from './turn-records.js';
import { headUnit, UNIT_HEAD_BYTES } from './units.js';
import { onUsageRecord } from './usage-record.js';

/** Only lines containing one of these can matter; the rest (messages, tool output, images) are never parsed. */
export const MARKERS = [
  '"session_meta"',
  '"turn_context"',
  '"token_count"',
  '"token_usage_record"',
  '"task_started"',
  '"turn_started"',
  '"thread_rolled_back"',
  '"thread_settings_applied"',
];

export async function extractCodex(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  if (source.meta?.role === 'thread-names') return extractThreadNames(source, sink, opts);
  const file = source.path;
  const name = parseRolloutName(basename(file));
  const rolloutId = source.meta?.rolloutId ?? name.rolloutId;
  // Without our own state a resume cannot know the thread's totals: read the
  // file again from the start (same dedupe keys, so nothing counts twice).
  const restored = opts.resume ? restoredState(opts.resume.state) : null;
  const resume = restored ? opts.resume : null;
  const st = restored ?? freshState(source.meta?.threadId ?? name.threadId ?? rolloutId);
  const r = new RolloutReader(file, rolloutId || '-', sink, st);

  let parsedLines = 0;
  const handle = (raw: Record<string, unknown>, line: number) => {
    parsedLines++;
    const l = rolloutLine(raw);
    if (l === null) return;
    const { ts, ordinal, record: rec } = l;
    if (rec?.type === 'session_meta') {
      if (line !== 1 && r.lin.origin !== null && !r.lin.done && ts !== null) r.classify(ordinal, ts);
      onSessionMeta(r, rec.meta, line, ts);
      if (ts !== null) st.lastTs = ts;
      return;
    }
    // A turn's start tells whose records follow (lineage.ts), before this one is classified.
    if (rec?.type === 'task_started') r.onTurn(rec.turnId, rec.startedAt);
    else if (rec?.type === 'turn_context' || rec?.type === 'token_usage_record') r.onTurn(rec.turnId, null);
    // A unit whose line also held a marker string (e.g. a tool call whose arguments mention token_count).
    if (l.unit) r.countUnit(l.unit, ts, ordinal, line);
    else r.flushTools(); // a usage line (or other parsed record) ends the response's calls
    if (rec === null) return; // a marker string inside some other record
    const copied = r.classify(ordinal, ts) !== null;
    switch (rec.type) {
      case 'turn_context':
        onTurnContext(r, rec, copied);
        break;
      case 'task_started':
        onTaskStarted(r, rec);
        break;
      case 'thread_settings':
        onThreadSettings(r, rec.settings);
        break;
      case 'thread_rolled_back':
        onRollback(r, copied);
        break;
      case 'token_count':
        if (!copied && ts !== null) r.limits.observe(rec.rateLimits, ts, line, st.threadId);
        onTokenCount(r, rec.info, line, ts);
        break;
      case 'token_usage_record':
        onUsageRecord(r, rec, line, ts);
        break;
      default:
        rec satisfies never;
    }
    if (ts !== null) st.lastTs = ts;
  };

  // Lines without a marker: units of work counted from their first bytes (units.ts), never parsed.
  const unmarkedHead = {
    bytes: UNIT_HEAD_BYTES,
    check: (buf: Buffer, start: number, end: number, line: number) => {
      const u = headUnit(buf, start, end);
      if (u) r.countUnit(u.kind, u.ts, u.ordinal, line);
      return false;
    },
  };
  let point: ResumePoint | null = null;
  if (source.kind === 'jsonl.zst') {
    await scanJsonlZstFile(file, { markers: MARKERS, unmarkedHead }, sink, handle);
  } else {
    point = await scanJsonlFile(file, { markers: MARKERS, resume, unmarkedHead }, sink, handle);
  }
  r.flush();
  if (!st.metaSeen && parsedLines > 0)
    sink.warn('first line is not a readable session_meta; thread id taken from the file name', { file, line: 1 });
  r.handOver();
  return point ? { ...point, state: st } : null;
}
