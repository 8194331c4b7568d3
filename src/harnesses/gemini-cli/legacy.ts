// A legacy conversation file: one JSON document ({sessionId, projectHash,
// startTime, lastUpdated, messages[], summary?, kind?}) that Gemini CLI
// rewrote whole on every change until it moved to JSONL (f744913584,
// 2026-04-09), and that Qwen Code wrote in `~/.qwen/tmp/<hash>/chats/` before
// its own JSONL format (messages of type `qwen`). README.md "Legacy .json".
import type { HarnessId } from '../../core/types.js';
import { readJsonFile } from '../../io/json-file.js';
import type { ExtractSink, SourceRef } from '../types.js';
import { MessageCounter, type SessionInfo } from './messages.js';
import { RULE } from './rules.js';

export interface LegacyOptions {
  harness: HarnessId;
  /** `type` of the model's messages: `gemini`, or `qwen` in Qwen Code's files. */
  assistantType: string;
  /** The project, given the document's projectHash. */
  project: (projectHash: string | null) => string | null;
}

export function extractLegacyConversation(source: SourceRef, sink: ExtractSink, o: LegacyOptions): void {
  const file = source.path;
  const doc = readJsonFile(file, sink);
  if (doc === null) return;
  if (typeof doc !== 'object' || Array.isArray(doc) || !Array.isArray((doc as any).messages)) {
    sink.warn('not a conversation (no messages list); nothing read from it', { file });
    return;
  }
  const d = doc as Record<string, any>;
  const meta = source.meta ?? {};
  const sessionId =
    typeof d.sessionId === 'string' && d.sessionId ? d.sessionId : file.replace(/^.*[\\/]/, '').replace(/\.json$/, '');
  const info: SessionInfo = {
    harness: o.harness,
    sessionId,
    project: o.project(typeof d.projectHash === 'string' ? d.projectHash : null),
    rank: meta.copy === '1' ? 1 : 0,
    subagent: d.kind === 'subagent' || meta.parentSession !== undefined,
    lastModel: null,
  };
  const counter = new MessageCounter(info, sink, file, o.assistantType, RULE.legacy);
  d.messages.forEach((m: unknown, i: number) => {
    if (m === null || typeof m !== 'object' || Array.isArray(m)) return;
    const rec = m as Record<string, any>;
    const at = { file, row: `message ${i + 1}` };
    if (counter.isResponse(rec.type)) counter.response(rec, at, null);
    else if (rec.type === 'user') counter.userRecord(rec);
  });
  if (typeof d.summary === 'string' && d.summary.trim()) {
    sink.sessionFact({
      harness: o.harness,
      session_id: sessionId,
      title: d.summary.trim(),
      title_rank: 0,
      parent_session_id: null,
      seq: 0,
    });
  }
  if (meta.parentSession)
    sink.sessionFact({
      harness: o.harness,
      session_id: sessionId,
      title: null,
      title_rank: 1,
      parent_session_id: meta.parentSession,
      seq: 0,
    });
}
