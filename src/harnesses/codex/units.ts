// Codex units of work (issue 27), read from the first bytes of a rollout
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

export interface LineUnit {
  kind: WorkUnitKind;
  ts: number | null;
  ordinal: number | null;
}

/** Bytes of a line's head read by headUnit: the envelope plus an item_completed's ids. */
export const UNIT_HEAD_BYTES = 320;

const b = (s: string) => Buffer.from(s, 'latin1');
const TS_OPEN = b('{"timestamp":"');
const ORDINAL = b(',"ordinal":');
const TYPE = b(',"type":"');
const PAYLOAD_TYPE = b('","payload":{"type":"');
const USER_ITEM = b('"item":{"type":"UserMessage"');

const TOOL_CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'tool_search_call', 'web_search_call', 'image_generation_call']);

/** The unit a record (type, payload) stands for, as 'user' for a user's message (a prompt or a subagent task), else null. */
export function unitKindOf(type: unknown, payloadType: unknown, itemType: unknown): WorkUnitKind | 'user' | null {
  if (type === 'response_item') return typeof payloadType === 'string' && TOOL_CALLS.has(payloadType) ? 'tool_call' : null;
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

/** buf holds `what` at pos (before end). A plain loop: Buffer.compare validates its five arguments on every call. */
function at(buf: Buffer, pos: number, end: number, what: Buffer): boolean {
  if (pos + what.length > end) return false;
  for (let i = 0; i < what.length; i++) if (buf[pos + i] !== what[i]) return false;
  return true;
}

/** The quoted name starting at `pos` (up to the next quote), or null. */
function nameAt(buf: Buffer, pos: number, end: number): [string, number] | null {
  const q = buf.indexOf(0x22, pos);
  if (q < 0 || q >= end || q - pos > 40) return null;
  return [buf.toString('latin1', pos, q), q];
}

/**
 * The unit of a rollout line from its first bytes (buf[start, end)), or null
 * when it is none (or is not laid out as Codex writes it: such a line is then
 * simply not counted). Kinds are as unitKindOf's.
 */
export function headUnit(buf: Buffer, start: number, end: number): { kind: WorkUnitKind | 'user'; ts: number | null; ordinal: number | null } | null {
  if (!at(buf, start, end, TS_OPEN)) return null;
  const tsStart = start + TS_OPEN.length;
  const tsEnd = buf.indexOf(0x22, tsStart);
  if (tsEnd < 0 || tsEnd >= end || tsEnd - tsStart > 40) return null;
  let pos = tsEnd + 1;
  let ordinal: number | null = null;
  if (at(buf, pos, end, ORDINAL)) {
    pos += ORDINAL.length;
    let n = 0;
    let digits = 0;
    while (pos < end && buf[pos]! >= 0x30 && buf[pos]! <= 0x39) {
      n = n * 10 + (buf[pos]! - 0x30);
      pos++;
      digits++;
    }
    if (!digits) return null;
    ordinal = n;
  }
  if (!at(buf, pos, end, TYPE)) return null;
  // Only two record types hold units: decided by their first bytes before anything is decoded.
  const first = buf[pos + TYPE.length];
  if (first !== 0x72 /* r(esponse_item) */ && first !== 0x65 /* e(vent_msg) */) return null;
  const type = nameAt(buf, pos + TYPE.length, end);
  if (!type) return null;
  pos = type[1];
  if (!at(buf, pos, end, PAYLOAD_TYPE)) return null;
  const ptype = nameAt(buf, pos + PAYLOAD_TYPE.length, end);
  if (!ptype) return null;
  const itemType = ptype[0] === 'item_completed' && buf.subarray(ptype[1], end).indexOf(USER_ITEM) >= 0 ? 'UserMessage' : null;
  const kind = unitKindOf(type[0], ptype[0], itemType);
  if (!kind) return null;
  const ts = Date.parse(buf.toString('latin1', tsStart, tsEnd));
  return { kind, ts: Number.isFinite(ts) ? ts : null, ordinal };
}
