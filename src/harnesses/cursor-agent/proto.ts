// Decoders for Cursor's `agent.v1` blob messages, from the checked-in
// proto/cursor-agent.proto (loaded by src/io/proto.ts).
import type protobuf from 'protobufjs';
import { loadProto, num } from '../../io/proto.js';

/** The parsed `agent.v1` schema (loaded once, snake_case field names kept). */
export function agentProto(): protobuf.Root {
  return loadProto('cursor-agent.proto');
}

export function agentType(name: string): protobuf.Type {
  return agentProto().lookupType(`agent.v1.${name}`);
}

export interface TokenDetails {
  used_tokens: number;
  max_tokens: number;
}

export interface StateMsg {
  root_prompt_messages_json: Uint8Array[];
  turns: Uint8Array[];
  token_details: TokenDetails | null;
  turn_timings: { duration_ms: number; timestamp_ms: number }[];
  subagent_states: Record<string, SubagentMsg>;
  subagent_state_refs: Record<string, Uint8Array>;
  conversation_started_timestamp_ms: number;
}

export interface SubagentMsg {
  conversation_state: StateMsg | null;
  created_timestamp_ms: number;
  last_used_timestamp_ms: number;
  model_id: string;
}

export interface TurnMsg {
  /** 'agent' | 'shell' | null (no oneof case set: an unknown or empty turn). */
  kind: 'agent' | 'shell' | null;
  user_message: Uint8Array | null;
  /** ConversationStep blob ids of an agent turn, in order. */
  steps: Uint8Array[];
}

export interface UserMsg {
  conversation_state_blob_id: Uint8Array | null;
  started_at_ms: number;
  completed_at_ms: number;
  message_id: string;
  /** A system-injected 'user' message (background task done, plan execution, goal continuation...). */
  is_simulated_msg: boolean;
}

type Raw = Record<string, any>;

function stateFrom(m: Raw): StateMsg {
  const td = m.token_details as Raw | null | undefined;
  const subs: Record<string, SubagentMsg> = {};
  for (const [k, v] of Object.entries((m.subagent_states ?? {}) as Record<string, Raw>)) subs[k] = subagentFrom(v);
  return {
    root_prompt_messages_json: m.root_prompt_messages_json ?? [],
    turns: m.turns ?? [],
    token_details: td ? { used_tokens: num(td.used_tokens), max_tokens: num(td.max_tokens) } : null,
    turn_timings: ((m.turn_timings ?? []) as Raw[]).map((t) => ({
      duration_ms: num(t.duration_ms),
      timestamp_ms: num(t.timestamp_ms),
    })),
    subagent_states: subs,
    subagent_state_refs: { ...((m.subagent_state_refs ?? {}) as Record<string, Uint8Array>) },
    conversation_started_timestamp_ms: num(m.conversation_started_timestamp_ms),
  };
}

function subagentFrom(m: Raw): SubagentMsg {
  return {
    conversation_state: m.conversation_state ? stateFrom(m.conversation_state) : null,
    created_timestamp_ms: num(m.created_timestamp_ms),
    last_used_timestamp_ms: num(m.last_used_timestamp_ms),
    model_id: typeof m.model_id === 'string' ? m.model_id : '',
  };
}

// Each decoder throws on bytes that are not a well-formed message of its type.
export function decodeState(buf: Uint8Array): StateMsg {
  return stateFrom(agentType('ConversationStateStructure').decode(buf) as Raw);
}

export function decodeSubagent(buf: Uint8Array): SubagentMsg {
  return subagentFrom(agentType('SubagentPersistedState').decode(buf) as Raw);
}

export function decodeTurn(buf: Uint8Array): TurnMsg {
  const m = agentType('ConversationTurnStructure').decode(buf) as Raw;
  if (m.agent_conversation_turn) {
    const um = m.agent_conversation_turn.user_message as Uint8Array | undefined;
    return {
      kind: 'agent',
      user_message: um && um.length ? um : null,
      steps: (m.agent_conversation_turn.steps as Uint8Array[] | undefined) ?? [],
    };
  }
  if (m.shell_conversation_turn) return { kind: 'shell', user_message: null, steps: [] };
  return { kind: null, user_message: null, steps: [] };
}

export function decodeUserMessage(buf: Uint8Array): UserMsg {
  const m = agentType('UserMessage').decode(buf) as Raw;
  const id = m.conversation_state_blob_id as Uint8Array | undefined;
  return {
    conversation_state_blob_id: id && id.length ? id : null,
    started_at_ms: num(m.started_at_ms),
    completed_at_ms: num(m.completed_at_ms),
    message_id: typeof m.message_id === 'string' ? m.message_id : '',
    is_simulated_msg: m.is_simulated_msg === true,
  };
}
