// Claude Code units of work, read at byte level where the record
// carries no usage. Rules (contract entry `claude-code`, README.md beside
// this file):
// - prompts: `type: "user"` records whose message content is a string or an
//   array starting with a text block, not written by the harness (isMeta,
//   compaction summaries, tool results, command and shell echoes, other
//   agents' messages). Found by two markers of the line scan; never parsed.
// - subagent tasks: the same records in a subagent's own file: the prompts
//   its parent agent wrote for it.
// - tool calls: tool_use / server_tool_use / mcp_tool_use blocks of a
//   response (parsed anyway for its usage), once per block id.
// - turns: responses of the main thread that stop for good.
// - titles: custom-title, agent-name, ai-title and legacy summary records,
//   recognised by their first bytes (`{"type":"ai-title"...`).

/** Markers (of the shared line scan) of user records whose content is text: a string, or an array beginning with a text block. */
export const PROMPT_MARKERS = ['"role":"user","content":"', '"role":"user","content":[{"type":"text"'] as const;

/**
 * Structural byte strings that mark a user record as not typed by a person
 * (one regular expression, matched once over the record outside its text).
 * Quotes inside JSON string values are escaped (\"), so these can only match
 * the record's own keys and values, never prompt text.
 */
const NOT_A_PERSON = new RegExp(
  [
    '"isMeta":true', // caveats, reminders, hook output, skill and command expansions
    '"isCompactSummary":true',
    '"isVisibleInTranscriptOnly":true',
    '"repeatsCompactSummary":true',
    '"toolUseResult":', // a tool's result carried as a user message
    '"sourceToolAssistantUUID":"',
    '"sourceToolUseID":"',
    '"promptSource":"system"',
    '"turnOrigin":"peer"',
    '"turnOrigin":"task_notification"',
    '"kind":"peer"', // origin.kind: another agent, a task notification, a coordinator
    '"kind":"task-notification"',
    '"kind":"coordinator"',
    '"turnCompanion":true',
    '"queueTranscriptOnly":true',
    '"isVirtual":true',
  ].join('|'),
);

/** How text that Claude Code itself writes as a user message begins: slash-command and shell echoes, interruptions, notices. */
const HARNESS_TEXT =
  /^(?:<command-name>|<command-message>|<command-args>|<local-command-|<bash-input>|<bash-stdout>|<bash-stderr>|<task-notification>|<user-memory-input>|\[Request interrupted|Caveat: )/;

const UUID_RE = /"uuid":"([^"\\]+)"/;
const TS_RE = /"timestamp":"([^"\\]+)"/;

export interface UserLine {
  /** The record's uuid: its identity across fork copies. */
  uuid: string;
  ts: string;
  /** A /branch copy (forkedFrom): loses to the original. */
  copy: boolean;
}

/**
 * A user record typed by a person (or, in a subagent's file, written for it
 * by its parent), from the text of a line that holds a prompt marker; null
 * for anything else. Byte-level: the line is never parsed, and the message's
 * text (most of the line) is passed over: the record's own fields are looked
 * for before and after it.
 */
export function personPrompt(text: string): UserLine | null {
  const at = contentStart(text);
  if (at < 0) return null;
  if (HARNESS_TEXT.test(text.slice(at, at + 24))) return null;
  const end = stringEnd(text, at);
  const head = text.slice(0, at);
  const tail = end < 0 ? '' : text.slice(end);
  // "type":"user" is an envelope field: not a copy of the message inside another record (api-request-blob).
  if (!head.includes('"type":"user"') && !tail.includes('"type":"user"')) return null;
  if (NOT_A_PERSON.test(head) || NOT_A_PERSON.test(tail)) return null;
  const uuid = (UUID_RE.exec(head) ?? UUID_RE.exec(tail))?.[1];
  const ts = (TS_RE.exec(head) ?? TS_RE.exec(tail))?.[1];
  if (!uuid || !ts) return null;
  return { uuid, ts, copy: head.includes('"forkedFrom":{') || tail.includes('"forkedFrom":{') };
}

/** Index of the quote that closes the JSON string whose text starts at `from`, or -1. */
function stringEnd(text: string, from: number): number {
  for (let q = text.indexOf('"', from); q >= 0; q = text.indexOf('"', q + 1)) {
    let bs = 0;
    while (text.charCodeAt(q - 1 - bs) === 0x5c /* \ */) bs++;
    if (bs % 2 === 0) return q;
  }
  return -1;
}

/** Where the message's text begins (after either prompt marker), or -1. */
function contentStart(text: string): number {
  const s = text.indexOf(PROMPT_MARKERS[0]);
  if (s >= 0) return s + PROMPT_MARKERS[0].length;
  const a = text.indexOf(PROMPT_MARKERS[1]);
  if (a < 0) return -1;
  const rest = a + PROMPT_MARKERS[1].length;
  return text.startsWith(',"text":"', rest) ? rest + ',"text":"'.length : rest;
}

/** Title records and their precedence (lower wins): a user-set title, an agent's name, the generated title, a legacy summary. */
const TITLE_RECORDS: [prefix: Buffer, type: string, field: string, rank: number][] = [
  ['custom-title', 'customTitle', 0],
  ['agent-name', 'agentName', 1],
  ['ai-title', 'aiTitle', 2],
  ['summary', 'summary', 3],
].map(([type, field, rank]) => [Buffer.from(`{"type":"${type}"`), type as string, field as string, rank as number]);

/** Bytes of a line's head that decide whether it is a title record. */
export const TITLE_HEAD_BYTES = 24;

/** unmarkedHead check: the line is a title record (written type first), to be parsed. */
export function isTitleLine(buf: Buffer, start: number, end: number): boolean {
  // Conversation records start with {"parentUuid": one byte tells them apart.
  if (end - start < 12 || buf[start + 2] !== 0x74 /* t */) return false;
  outer: for (const [prefix] of TITLE_RECORDS) {
    if (end - start < prefix.length) continue;
    for (let i = 0; i < prefix.length; i++) if (buf[start + i] !== prefix[i]) continue outer;
    return true;
  }
  return false;
}

/** The title a parsed title record names, with its rank; null when the record is not one. */
export function titleOf(rec: Record<string, unknown>): { title: string; rank: number } | null {
  for (const [, type, field, rank] of TITLE_RECORDS) {
    if (rec.type === type)
      return typeof rec[field] === 'string' ? { title: (rec[field] as string).trim(), rank } : null;
  }
  return null;
}

/** Content block types that invoke a tool (contract contentBlocks, concept tool-call). */
export const TOOL_CALL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

/** stop_reason of a response after which the model does not go on by itself (not tool_use, pause_turn or unknown). */
export const TURN_ENDING_STOPS = new Set([
  'end_turn',
  'stop_sequence',
  'max_tokens',
  'refusal',
  'model_context_window_exceeded',
]);
