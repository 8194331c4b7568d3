// Walking a chat's blob graph from meta.latestRootBlobId. Only what the
// latest root references is read (contract gotcha: most rows are stale roots
// and superseded steps; walking all blobs double-counts turns and reports a
// wrong peak).
//
//   root ─turns[]→ ConversationTurnStructure ─user_message→ UserMessage
//                                              └ conversation_state_blob_id → pre-turn root (peak only)
//   root ─subagent_states{} (inline) / subagent_state_refs{} → SubagentPersistedState → nested root
import type { SqliteDb } from '../../io/sqlite.js';
import type { ExtractSink } from '../types.js';
import {
  decodeState,
  decodeSubagent,
  decodeTurn,
  decodeUserMessage,
  type StateMsg,
  type SubagentMsg,
} from './proto.js';

/** SHA-256 of zero bytes: the id an empty ConversationStateStructure would have. */
export const EMPTY_STATE_ID = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** One agent turn as units of work (extract.ts makes WorkUnits of it). */
export interface TurnUnits {
  /** UserMessage.message_id, else the user message's blob id: forks copy both. */
  key: string;
  started: number | null;
  /** UserMessage.completed_at_ms: the turn ended. */
  completed: number | null;
  /** Written by a person (not a simulated, system-injected message). */
  person: boolean;
  /** Steps of the turn that are tool calls. */
  tools: number;
}

export interface StateSummary {
  /** The agent turns (with a user message), for units of work. */
  turnUnits: TurnUnits[];
  turns: number;
  latest_used_tokens: number | null;
  max_tokens: number | null;
  peak_used_tokens: number | null;
  /** Activity times (epoch ms) seen in the state: turn timings, user-message starts, conversation start. */
  times: number[];
}

export interface FoundSubagent {
  id: string;
  state: SubagentMsg;
  /** Blob id of the SubagentPersistedState when stored out of line, else null (inline). */
  blob: string | null;
}

/**
 * Epoch value to ms. The contract notes readers normalise seconds, micro- and
 * nanoseconds too; 0 and garbage mean "not recorded".
 */
export function epochMs(v: number): number | null {
  if (!Number.isFinite(v) || v <= 0) return null;
  if (v < 1e11) return Math.round(v * 1000); // seconds
  if (v < 1e14) return Math.round(v); // milliseconds
  if (v < 1e17) return Math.round(v / 1e3); // microseconds
  return Math.round(v / 1e6); // nanoseconds
}

export function hexId(ref: Uint8Array): string {
  return Buffer.from(ref.buffer, ref.byteOffset, ref.byteLength).toString('hex');
}

export class BlobGraph {
  /** Every blob id the walk read successfully (the stale-root census skips these). */
  readonly reachable = new Set<string>();
  /** Root checkpoints decoded: the latest root and every distinct pre-turn root. */
  readonly liveRoots = new Set<string>();
  private readonly get: (id: string) => unknown;

  constructor(
    db: SqliteDb,
    private readonly file: string,
    private readonly sink: ExtractSink,
  ) {
    const stmt = db.prepare('SELECT data FROM blobs WHERE id = ?').pluck();
    this.get = (id) => stmt.get(id);
    // A step's kind is its first field: read its first bytes only (a tool
    // call's blob holds the call's whole result, file contents included).
    const head = db.prepare('SELECT substr(data, 1, 5) FROM blobs WHERE id = ?').pluck();
    this.head = (id) => head.get(id);
  }

  private readonly head: (id: string) => unknown;

  /**
   * The field number of a ConversationStep's first field (its oneof case:
   * 1 assistant_message, 2 tool_call, 3 thinking_message), read from the
   * blob's first bytes without decoding it; null when missing or malformed.
   */
  stepField(id: string): number | null {
    const v = this.head(id);
    if (v === undefined || v === null) return null;
    const b = Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'latin1');
    let tag = 0;
    for (let i = 0, shift = 0; i < b.length && i < 5; i++, shift += 7) {
      tag |= (b[i]! & 0x7f) << shift;
      if ((b[i]! & 0x80) === 0) return tag >>> 3 || null;
    }
    return null;
  }

  private warn(message: string, blob: string) {
    this.sink.warn(message, { file: this.file, row: `blob ${blob}` });
  }

  /** The bytes of blob `id`, or null (with a warning naming the referrer) when absent. */
  blob(id: string, what: string, quiet = false): Buffer | null {
    const data = this.get(id);
    if (data === undefined || data === null) {
      if (!quiet) this.warn(`missing blob (${what})`, id);
      return null;
    }
    this.reachable.add(id);
    return Buffer.isBuffer(data) ? data : Buffer.from(String(data), 'utf8');
  }

  /** A 32-byte reference as hex, or null with a warning when it has another length. */
  ref(bytes: Uint8Array, what: string, from: string): string | null {
    if (bytes.length === 32) return hexId(bytes);
    this.warn(`malformed blob reference (${bytes.length} bytes, want 32) as ${what}`, from);
    return null;
  }

  decode<T>(decoder: (b: Uint8Array) => T, data: Buffer, type: string, id: string): T | null {
    try {
      return decoder(data);
    } catch (e) {
      this.warn(`undecodable ${type}: ${(e as Error).message}`, id);
      return null;
    }
  }

  /** Decodes the root checkpoint `id` (the chat's latest root); null when missing or undecodable. */
  root(id: string): StateMsg | null {
    const data = this.blob(id, 'meta.latestRootBlobId');
    if (!data) return null;
    const state = this.decode(decodeState, data, 'ConversationStateStructure', id);
    if (state) this.liveRoots.add(id);
    return state;
  }

  /**
   * Turns, occupancy, peak and activity times of one conversation state.
   * @param selfId blob id of the state (null for a state nested inline in a subagent)
   * @param ancestors blob ids of the states enclosing this one; a pre-turn root among them is a cycle
   */
  summarize(
    state: StateMsg,
    selfId: string | null,
    label: string,
    ancestors: ReadonlySet<string> = new Set(),
  ): StateSummary {
    const from = selfId ?? label;
    const enclosing = new Set(ancestors);
    if (selfId) enclosing.add(selfId);
    const latest = state.token_details ? state.token_details.used_tokens : null;
    const out: StateSummary = {
      turnUnits: [],
      turns: state.turns.length,
      latest_used_tokens: latest,
      max_tokens: state.token_details ? state.token_details.max_tokens : null,
      peak_used_tokens: latest,
      times: [],
    };
    const addTime = (v: number) => {
      const ms = epochMs(v);
      if (ms !== null) out.times.push(ms);
    };
    for (const t of state.turn_timings) addTime(t.timestamp_ms);
    addTime(state.conversation_started_timestamp_ms);

    const preRoots = new Set<string>();
    let missingPreRoots = 0;
    let firstMissing = '';
    state.turns.forEach((turnRef, i) => {
      const what = `turn ${i + 1} of ${from}`;
      const turnId = this.ref(turnRef, what, from);
      if (!turnId) return;
      const turnData = this.blob(turnId, what);
      if (!turnData) return;
      const turn = this.decode(decodeTurn, turnData, 'ConversationTurnStructure', turnId);
      if (!turn || !turn.user_message) return; // shell turns carry no UserMessage
      const umWhat = `user_message of turn ${turnId}`;
      const umId = this.ref(turn.user_message, umWhat, turnId);
      if (!umId) return;
      const umData = this.blob(umId, umWhat);
      if (!umData) return;
      const um = this.decode(decodeUserMessage, umData, 'UserMessage', umId);
      if (!um) return;
      addTime(um.started_at_ms);
      // Tool-call steps (field 2 of ConversationStep), by their first bytes.
      let tools = 0;
      for (const ref of turn.steps) {
        const stepId = ref.length === 32 ? hexId(ref) : null;
        if (stepId && this.stepField(stepId) === 2) tools++;
      }
      out.turnUnits.push({
        key: um.message_id ? `msg:${um.message_id}` : `um:${umId}`,
        started: epochMs(um.started_at_ms),
        completed: epochMs(um.completed_at_ms),
        person: !um.is_simulated_msg,
        tools,
      });
      if (!um.conversation_state_blob_id) return;
      const preId = this.ref(um.conversation_state_blob_id, `conversation_state_blob_id of user message ${umId}`, umId);
      if (!preId || preRoots.has(preId)) return;
      preRoots.add(preId);
      if (enclosing.has(preId)) {
        this.warn(
          `reference cycle: user message ${umId} names an enclosing root as the state before its turn; not followed`,
          preId,
        );
        return;
      }
      const preData = this.blob(preId, '', true);
      if (!preData) {
        // The state before the first turn may be the empty checkpoint, never stored.
        if (preId !== EMPTY_STATE_ID) {
          if (!missingPreRoots) firstMissing = preId;
          missingPreRoots++;
        }
        return;
      }
      const pre = this.decode(decodeState, preData, 'ConversationStateStructure (pre-turn root)', preId);
      if (!pre) return;
      this.liveRoots.add(preId);
      const used = pre.token_details?.used_tokens;
      if (used !== undefined && (out.peak_used_tokens === null || used > out.peak_used_tokens))
        out.peak_used_tokens = used;
    });
    if (missingPreRoots) {
      this.warn(
        `missing blob: ${missingPreRoots} pre-turn root(s) of ${from} not in the store (peak computed from the rest)`,
        firstMissing,
      );
    }
    return out;
  }

  /**
   * Subagents of a state, depth first: out-of-line refs (the newer form) before
   * inline states; an id seen once is not reported again; a ref chain that
   * returns to a blob already on it is a cycle and is not followed.
   */
  subagents(
    state: StateMsg,
    from: string,
    chain: ReadonlySet<string> = new Set(),
    seen = new Set<string>(),
    out: FoundSubagent[] = [],
  ): FoundSubagent[] {
    for (const [id, refBytes] of Object.entries(state.subagent_state_refs).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    )) {
      const what = `subagent_state_refs[${id}] of ${from}`;
      const blobId = this.ref(refBytes, what, from);
      if (!blobId) continue;
      if (chain.has(blobId)) {
        this.warn(`reference cycle: ${what} points back to an enclosing subagent state; not followed`, blobId);
        continue;
      }
      if (seen.has(id)) continue;
      const data = this.blob(blobId, what);
      if (!data) continue;
      const sub = this.decode(decodeSubagent, data, 'SubagentPersistedState', blobId);
      if (!sub) continue;
      seen.add(id);
      out.push({ id, state: sub, blob: blobId });
      if (sub.conversation_state)
        this.subagents(sub.conversation_state, blobId, new Set([...chain, blobId]), seen, out);
    }
    for (const [id, sub] of Object.entries(state.subagent_states).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ id, state: sub, blob: null });
      if (sub.conversation_state) this.subagents(sub.conversation_state, `subagent ${id}`, chain, seen, out);
    }
    return out;
  }
}
