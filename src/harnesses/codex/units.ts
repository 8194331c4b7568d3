// Codex units of work, read from the first bytes of a rollout
// line: Codex writes every line as {"timestamp":"…","ordinal":N,"type":"…",
// "payload":{"type":"…", so the record's kind, time and ordinal sit at its
// start, before any message text or tool output, and a few byte comparisons
// count it without decoding or parsing the line. Rules (contract `codex`,
// README.md beside this file):
// - prompts: event_msg user_message (legacy files) and event_msg
//   item_completed with a UserMessage item (paginated files): the user's own
//   input. Never response_item messages of role user (they include injected
//   context) — and never both views (gotcha: paginated files hold both).
// - turns: event_msg task_complete (alias turn_complete) and turn_aborted.
// - tool calls: response_item function_call, custom_tool_call,
//   local_shell_call, tool_search_call, web_search_call,
//   image_generation_call (contract concept tool-call); not the display
//   items (item_completed CommandExecution...) that repeat them.
// - a sub-agent thread's own user messages are its parent's task: subagent
//   tasks. Inherited records (a sub-agent's parent context, a legacy fork's
//   copy block) count nothing, as for usage.
import type { WorkUnitKind } from '../../core/types.js';

/** Bytes of a line's head read by headUnit: the envelope plus an item_completed's ids. */
export const UNIT_HEAD_BYTES = 320;

const b = (s: string) => Buffer.from(s, 'latin1');
const TS_OPEN = b('{"timestamp":"');
const ORDINAL = b(',"ordinal":');
const RESPONSE_ITEM = b(',"type":"response_item","payload":{"type":"');
const EVENT_MSG = b(',"type":"event_msg","payload":{"type":"');
const USER_ITEM = b('"item":{"type":"UserMessage"');

const TOOL_CALLS = [
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'tool_search_call',
  'web_search_call',
  'image_generation_call',
];
const TOOL_SET = new Set(TOOL_CALLS);

/** The unit a record (type, payload) stands for, as 'user' for a user's message (a prompt or a subagent task), else null. */
export function unitKindOf(type: unknown, payloadType: unknown, itemType: unknown): WorkUnitKind | 'user' | null {
  if (type === 'response_item')
    return typeof payloadType === 'string' && TOOL_SET.has(payloadType) ? 'tool_call' : null;
  if (type !== 'event_msg') return null;
  switch (payloadType) {
    case 'user_message':
      return 'user';
    case 'item_completed':
      return itemType === 'UserMessage' ? 'user' : null;
    case 'task_complete':
    case 'turn_complete':
    case 'turn_aborted':
      return 'turn';
    default:
      return null;
  }
}

const FUNCTION_CALL = b('function_call"');
const CUSTOM_TOOL_CALL = b('custom_tool_call"');
const LOCAL_SHELL_CALL = b('local_shell_call"');
const TOOL_SEARCH_CALL = b('tool_search_call"');
const WEB_SEARCH_CALL = b('web_search_call"');
const IMAGE_GENERATION_CALL = b('image_generation_call"');
const USER_MESSAGE = b('user_message"');
const TASK_COMPLETE = b('task_complete"');
const TURN_COMPLETE = b('turn_complete"');
const TURN_ABORTED = b('turn_aborted"');
const ITEM_COMPLETED = b('item_completed"');

/** buf holds `what` at pos (before end). A plain loop: Buffer.compare validates its five arguments on every call. */
function at(buf: Buffer, pos: number, end: number, what: Buffer): boolean {
  if (pos + what.length > end) return false;
  for (let i = 0; i < what.length; i++) if (buf[pos + i] !== what[i]) return false;
  return true;
}

/** A response_item payload type at pos that is a tool call (told by its first byte, then compared). */
function isToolCall(buf: Buffer, pos: number, end: number): boolean {
  switch (buf[pos]) {
    case 0x66 /* f */:
      return at(buf, pos, end, FUNCTION_CALL);
    case 0x63 /* c */:
      return at(buf, pos, end, CUSTOM_TOOL_CALL);
    case 0x6c /* l */:
      return at(buf, pos, end, LOCAL_SHELL_CALL);
    case 0x74 /* t */:
      return at(buf, pos, end, TOOL_SEARCH_CALL);
    case 0x77 /* w */:
      return at(buf, pos, end, WEB_SEARCH_CALL);
    case 0x69 /* i */:
      return at(buf, pos, end, IMAGE_GENERATION_CALL);
    default:
      return false;
  }
}

/** An event_msg payload type at pos that is a unit ('item': an item_completed, to be looked into). */
function eventUnit(buf: Buffer, pos: number, end: number): 'user' | 'turn' | 'item' | null {
  switch (buf[pos]) {
    case 0x75 /* u */:
      return at(buf, pos, end, USER_MESSAGE) ? 'user' : null;
    case 0x74 /* t */:
      return at(buf, pos, end, TASK_COMPLETE) || at(buf, pos, end, TURN_COMPLETE) || at(buf, pos, end, TURN_ABORTED)
        ? 'turn'
        : null;
    case 0x69 /* i */:
      return at(buf, pos, end, ITEM_COMPLETED) ? 'item' : null;
    default:
      return null;
  }
}

/** What headUnit found: valid until the next call (one object, reused: this runs for every line). */
export interface HeadUnit {
  kind: WorkUnitKind | 'user';
  ts: number | null;
  ordinal: number | null;
}
const found: HeadUnit = { kind: 'turn', ts: null, ordinal: null };

/**
 * The unit of a rollout line from its first bytes (buf[start, end)), or null
 * when it is none (or is not laid out as Codex writes it: such a line is then
 * simply not counted). Kinds are as unitKindOf's. Byte comparisons only:
 * nothing is allocated for a line that is not a unit.
 */
export function headUnit(buf: Buffer, start: number, end: number): HeadUnit | null {
  if (!at(buf, start, end, TS_OPEN)) return null;
  const tsStart = start + TS_OPEN.length;
  // Codex writes YYYY-MM-DDTHH:MM:SS.mmmZ (24 characters); anything else is searched for its closing quote.
  let pos = buf[tsStart + 24] === 0x22 ? tsStart + 24 : tsStart;
  while (pos < end && pos - tsStart <= 40 && buf[pos] !== 0x22) pos++;
  if (pos >= end || buf[pos] !== 0x22) return null;
  const tsEnd = pos;
  pos++;
  let ordinal: number | null = null;
  if (buf[pos + 2] === 0x6f /* ,"o(rdinal) */ && at(buf, pos, end, ORDINAL)) {
    pos += ORDINAL.length;
    let n = 0;
    const first = pos;
    while (pos < end && buf[pos]! >= 0x30 && buf[pos]! <= 0x39) n = n * 10 + (buf[pos++]! - 0x30);
    if (pos === first) return null;
    ordinal = n;
  }
  // Only two record types hold units: the payload type's name is compared
  // first (most lines fail at its first byte), the envelope in full only
  // for a unit.
  let kind: WorkUnitKind | 'user' | 'item' | null = null;
  const t = buf[pos + 9];
  if (t === 0x72 /* r(esponse_item) */ && buf[pos + RESPONSE_ITEM.length - 1] === 0x22) {
    if (isToolCall(buf, pos + RESPONSE_ITEM.length, end) && at(buf, pos, end, RESPONSE_ITEM)) kind = 'tool_call';
  } else if (t === 0x65 /* e(vent_msg) */ && buf[pos + EVENT_MSG.length - 1] === 0x22) {
    kind = eventUnit(buf, pos + EVENT_MSG.length, end);
    if (kind !== null && !at(buf, pos, end, EVENT_MSG)) kind = null;
  }
  if (kind === null) return null;
  if (kind === 'item') {
    if (buf.subarray(pos, end).indexOf(USER_ITEM) < 0) return null;
    kind = 'user';
  }
  const ts = Date.parse(buf.toString('latin1', tsStart, tsEnd));
  found.kind = kind;
  found.ts = Number.isFinite(ts) ? ts : null;
  found.ordinal = ordinal;
  return found;
}
