// Gemini CLI session file → usage events, units of work and the session's
// title. The rules, with their evidence, are in README.md beside this file.
//
// A `.jsonl` session (chatRecordingService.ts since 2026-04) is a header line
// ({sessionId, projectHash, startTime, lastUpdated, kind}), then whole
// MessageRecords appended on every change, `{"$set":{…}}` metadata updates
// and `{"$rewindTo":"<id>"}` records. Only these lines are parsed: a message
// with a `tokens` object (the marker), the header and `$set` of a summary
// (their first bytes); user messages are read from their first bytes only.
import { basename } from 'node:path';
import { scanJsonlFile } from '../../io/jsonl.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { MessageCounter, type SessionInfo } from './messages.js';
import { projectOfSource } from './project.js';
import { extractLegacyConversation } from './legacy.js';
import { RULE } from './rules.js';

/**
 * A message's `tokens` (the marker): one JSON string, so a line is found
 * whatever whitespace its writer put between tokens (README "Bad input").
 * A model message without tokens says `"tokens":null` and is parsed for
 * nothing; `$set` checkpoints hold the tokens of every message in them.
 */
const MARKERS = ['"tokens"'];
/**
 * Small lines parsed for what they say about the session: the header (the
 * first line; `sessionId` leads it at 5411f113, `kind` did in builds peers
 * saw, https://github.com/Dicklesworthstone/coding_agent_session_search/issues/341)
 * and a generated summary (the title).
 */
const HEADER_RE = /^\{\s*"sessionId"\s*:/;
const SUMMARY_RE = /^\{\s*"\$set"\s*:\s*\{\s*"summary"\s*:/;
/** Bytes enough for either test above, whatever whitespace the writer used. */
const HEAD_TEST_BYTES = 64;
/** A user message: {id, timestamp, type, content, …} (chatRecordingService.ts newMessage, key order kept by re-writes). */
const USER_HEAD_RE =
  /^\{\s*"id"\s*:\s*"([^"\\]+)"\s*,\s*"timestamp"\s*:\s*"([^"\\]+)"\s*,\s*"type"\s*:\s*"user"\s*,\s*"content"\s*:\s*/;
const REWIND_RE = /^\{\s*"\$rewindTo"\s*:/;
const PEEK_BYTES = 320;

/** What a read carries to the next one (ResumePoint.state). */
export interface GeminiState {
  sessionId: string;
  project: string | null;
  subagent: boolean;
  lastModel: string | null;
}

/** The first bytes of a line, for the tests above (latin1: only ASCII structure is tested). */
const headOf = (buf: Buffer, start: number, end: number) =>
  buf.toString('latin1', start, Math.min(end, start + HEAD_TEST_BYTES));
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `session-2026-04-09T10-00-<first 8 of id>.jsonl` or a subagent's `<id>.jsonl`: the best id the name gives (only a header has the whole id). */
function sessionIdFromName(file: string): string {
  const name = basename(file).replace(/\.jsonl?(?:\.unreadable-\d+)?$/, '');
  const m = /^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-(.+)$/.exec(name);
  return m ? m[1]! : name;
}

export async function extractGemini(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  if (source.kind === 'json') {
    extractLegacyConversation(source, sink, {
      harness: 'gemini-cli',
      assistantType: 'gemini',
      project: (hash) => projectOfSource(source, hash),
    });
    return null;
  }
  const file = source.path;
  const meta = source.meta ?? {};
  const prev = (opts.resume?.state as GeminiState | undefined) ?? null;
  const info: SessionInfo = {
    harness: 'gemini-cli',
    sessionId: prev?.sessionId ?? sessionIdFromName(file),
    project: prev ? prev.project : projectOfSource(source, null),
    rank: meta.copy === '1' ? 1 : 0,
    subagent: prev?.subagent ?? meta.parentSession !== undefined,
    lastModel: prev?.lastModel ?? null,
  };
  const counter = new MessageCounter(info, sink, file, 'gemini', RULE.message);
  let headerSeen = prev !== null || (opts.resume?.lines ?? 0) > 0;
  let title: { text: string; line: number } | null = null;

  const onHeader = (rec: Record<string, any>, line: number) => {
    // The first line; a resume of a legacy session writes a new file with its own header.
    if (headerSeen) return;
    headerSeen = true;
    if (typeof rec.sessionId === 'string' && rec.sessionId) info.sessionId = rec.sessionId;
    if (rec.kind === 'subagent') info.subagent = true;
    if (info.project === null && typeof rec.projectHash === 'string')
      info.project = projectOfSource(source, rec.projectHash);
    if (typeof rec.summary === 'string' && rec.summary.trim()) title = { text: rec.summary.trim(), line };
  };
  const noHeader = (line: number) => {
    if (headerSeen) return;
    headerSeen = true;
    sink.warn('no session header before the first record; session id taken from the file name', { file, line });
  };

  const scanned = await scanJsonlFile(
    file,
    {
      markers: MARKERS,
      resume: opts.resume,
      unmarkedHead: {
        bytes: HEAD_TEST_BYTES,
        check: (buf, start, end, line) => {
          if (line === 1) return true;
          const head = headOf(buf, start, end);
          return HEADER_RE.test(head) || SUMMARY_RE.test(head);
        },
      },
      unmarkedPeek: {
        bytes: PEEK_BYTES,
        onPeek: (head, _tail, line) => {
          const u = USER_HEAD_RE.exec(head);
          if (u) {
            noHeader(line);
            counter.user(u[1]!, u[2]!, head.slice(u[0].length));
          } else if (REWIND_RE.test(head)) {
            // Hidden from the conversation, still billed: nothing is taken back.
            sink.count('gemini-cli: rewinds seen (the messages they hide stay counted)');
          }
        },
      },
    },
    sink,
    (rec, line) => {
      const at = { file, line };
      if (rec.$set !== undefined) {
        const s = rec.$set?.summary;
        if (typeof s === 'string' && s.trim()) title = { text: s.trim(), line };
        // README "$set checkpoints": every message id counts once, whether
        // first seen on a line of its own or inside a checkpoint (gemini-cli's
        // loader rebuilds the conversation from `$set.messages`).
        const messages = rec.$set?.messages;
        if (Array.isArray(messages)) {
          let added = 0;
          for (const m of messages) {
            if (!isObj(m)) continue;
            if (counter.isResponse(m.type) && m.tokens !== null && m.tokens !== undefined)
              added += counter.response(m, at, line, RULE.checkpoint) ? 1 : 0;
            else if (m.type === 'user') counter.userRecord(m);
          }
          if (!added) sink.skip('$set checkpoint (repeats messages written before it)', at);
        }
        return;
      }
      if (typeof rec.sessionId === 'string' && rec.id === undefined && rec.type === undefined) {
        onHeader(rec, line);
        return;
      }
      noHeader(line);
      if (counter.isResponse(rec.type)) counter.response(rec, at, line);
      else if (rec.type === 'user') counter.userRecord(rec);
    },
  );
  const t = title as { text: string; line: number } | null;
  if (t)
    sink.sessionFact({
      harness: 'gemini-cli',
      session_id: info.sessionId,
      title: t.text,
      title_rank: 0,
      parent_session_id: null,
      seq: t.line,
    });
  if (meta.parentSession && (opts.resume?.lines ?? 0) === 0) {
    sink.sessionFact({
      harness: 'gemini-cli',
      session_id: info.sessionId,
      title: null,
      title_rank: 1,
      parent_session_id: meta.parentSession,
      seq: 0,
    });
  }
  const state: GeminiState = {
    sessionId: info.sessionId,
    project: info.project,
    subagent: info.subagent,
    lastModel: info.lastModel,
  };
  return { ...scanned, state };
}

/** The lines parsed (Harness.scanMarkers). */
export { MARKERS };
