// What one Gemini CLI MessageRecord counts for (README.md "What counts",
// "Units of work"), wherever it was read: a line of a `.jsonl` session or an
// element of a legacy `.json` conversation's `messages`. Also used by Qwen
// Code's legacy `.json` conversations (a fork of the same format, whose
// model messages say `type: "qwen"`).
import { parseTimestamp, readTokenFields } from '../../core/numbers.js';
import type { HarnessId, SourceLocation, UsageEvent, WorkUnitKind } from '../../core/types.js';
import type { ExtractSink } from '../types.js';
import { normalizeGeminiCounts, usageEventCounts } from './usage.js';

/** TokensSummary (chatRecordingTypes.ts) field by field. */
const TOKEN_FIELDS = {
  input: 'input',
  output: 'output',
  cached: 'cached',
  thoughts: 'thoughts',
  tool: 'tool',
  total: 'total',
} as const;

/** User content that is not a person's prompt (sessionUtils.ts isIgnoredUserContent: injected context). */
const INJECTED = /^"?(?:\[\s*\{\s*"text"\s*:\s*")?<(?:session_context|hook_context)>/;
/** A tool's answer, recorded as a `user` message (geminiChat.ts recordSyntheticMessage). */
const TOOL_ANSWER = /^\[\s*\{\s*"function(?:Response|Call)"/;

export interface SessionInfo {
  harness: HarnessId;
  sessionId: string;
  project: string | null;
  /** Events and units of a copy lose ties to the original (README "Copies of a session"). */
  rank: number;
  /** A subagent's own conversation: its typed messages are the tasks its parent wrote. */
  subagent: boolean;
  /** Model of the latest response read (a response whose message names none takes it). */
  lastModel: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * Counts messages of one session. A message is written again on every
 * change (tokens, then tool calls), so one id is seen several times: it is
 * counted once per read here, and once in the store across reads (same key).
 */
export class MessageCounter {
  /** Message id → the token figures it was counted with in this read. */
  private readonly counted = new Map<string, string>();
  private readonly unitKeys = new Set<string>();

  constructor(
    private readonly info: SessionInfo,
    private readonly sink: ExtractSink,
    private readonly file: string,
    private readonly assistantType: string,
    /** The rule name events carry (README heading), e.g. 'message tokens'. */
    private readonly rule: string,
  ) {}

  /** A model message (`type` gemini/qwen) that has a `tokens` object. True when it was counted here (not a message this read counted before). */
  response(rec: Record<string, any>, at: SourceLocation, line: number | null, rule = this.rule): boolean {
    const id = str(rec.id);
    const tokens = rec.tokens;
    if (tokens === null || tokens === undefined) {
      this.sink.skip('model message without tokens (they come on a later line of the same message)', at);
      return false;
    }
    if (typeof tokens !== 'object' || Array.isArray(tokens)) {
      this.sink.warn('model message: tokens is not an object; not counted', at);
      return false;
    }
    if (!id) {
      this.sink.warn('model message without an id; not counted', at);
      return false;
    }
    const ts = parseTimestamp(rec.timestamp);
    if (ts === null) {
      this.sink.warn('model message without a usable timestamp; not counted', at);
      return false;
    }
    const { values: v, invalid } = readTokenFields(tokens, TOKEN_FIELDS);
    if (invalid.length) this.sink.warn(`invalid token field(s) counted as 0: ${invalid.join(', ')}`, at);
    const hasTotal = typeof tokens.total === 'number' && !invalid.some((s) => s.startsWith('total'));
    const n = normalizeGeminiCounts({
      prompt: v.input,
      cached: v.cached,
      candidates: v.output,
      thoughts: v.thoughts,
      tool: v.tool,
      total: hasTotal ? v.total : null,
    });
    if (n.cachedOverPrompt)
      this.sink.warn('tokens.cached exceeds tokens.input (which includes it); uncached input counted as 0', at);
    if (n.shape) this.sink.count(`${this.info.harness}: tokens read as ${n.shape} (their total says so)`);

    const figures = `${n.input}:${n.cacheRead}:${n.output}:${n.reasoning}`;
    const before = this.counted.get(id);
    this.countToolCalls(rec, id, ts);
    if (before === figures) return false; // the same message again (tool calls merged in, a later copy)
    if (before !== undefined)
      this.sink.count(`${this.info.harness}: a message written again with other tokens (the store keeps the larger)`);
    this.counted.set(id, figures);

    let model = str(rec.model);
    if (model) this.info.lastModel = model;
    else if (this.info.lastModel) {
      model = this.info.lastModel;
      this.sink.count(`${this.info.harness}: model taken from the previous response (the message names none)`);
    }
    const ev: UsageEvent = {
      harness: this.info.harness,
      session_id: this.info.sessionId,
      project: this.info.project,
      model,
      provider: null,
      ts,
      // Message ids are random UUIDs; copies of a session keep them and its id.
      dedupe_key: `${this.info.sessionId}:${id}`,
      dedupe_rank: this.info.rank,
      ...usageEventCounts(n),
      source_file: this.file,
      source_line: line,
      rule,
    };
    this.sink.event(ev);
    return true;
  }

  /** The tool calls a model message holds (toolCalls[], each with its own id), once each. */
  private countToolCalls(rec: Record<string, any>, id: string, ts: number): void {
    if (!Array.isArray(rec.toolCalls)) return;
    for (const call of rec.toolCalls) {
      const callId = str(call?.id);
      if (!callId) continue;
      this.unit('tool_call', `${this.info.sessionId}:${id}:${callId}`, ts);
    }
  }

  /**
   * A `user` message, by its id, time and the first bytes of its `content`
   * as written (JSON): typed text is a prompt (in a subagent's conversation,
   * the task its parent wrote), a tool's answer or injected context is not.
   */
  user(id: string | null, tsText: unknown, contentHead: string): void {
    if (!id || TOOL_ANSWER.test(contentHead) || INJECTED.test(contentHead)) return;
    const ts = parseTimestamp(tsText);
    if (ts === null) return;
    const key = `${this.info.sessionId}:${id}`;
    if (this.info.subagent) this.unit('subagent_task', key, ts);
    else {
      // Gemini CLI records no turn ends: each prompt is also a turn.
      this.unit('prompt', key, ts);
      this.unit('turn', key, ts);
    }
  }

  /** A user message read as an object (legacy files, or a line parsed for another reason). */
  userRecord(rec: Record<string, any>): void {
    const content = rec.content;
    const head =
      typeof content === 'string'
        ? JSON.stringify(content.slice(0, 40))
        : Array.isArray(content)
          ? JSON.stringify(content.slice(0, 1)).slice(0, 60)
          : '';
    if (head) this.user(str(rec.id), rec.timestamp, head);
  }

  private unit(kind: WorkUnitKind, key: string, ts: number): void {
    const k = `${kind}\u0000${key}`;
    if (this.unitKeys.has(k)) return;
    this.unitKeys.add(k);
    this.sink.unit({
      harness: this.info.harness,
      session_id: this.info.sessionId,
      kind,
      dedupe_key: key,
      dedupe_rank: this.info.rank,
      ts,
      count: 1,
    });
  }

  /** Whether `type` is this format's model message. */
  isResponse(type: unknown): boolean {
    return type === this.assistantType;
  }
}
