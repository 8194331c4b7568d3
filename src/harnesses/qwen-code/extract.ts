// Qwen Code session file → usage events, units of work and the session's
// title. The rules, with their evidence, are in README.md beside this file.
//
// A session is JSONL, one ChatRecord per line ({uuid, parentUuid, sessionId,
// timestamp, type, [provenance,] cwd, version, gitBranch, …}), appended only.
// Parsed: lines holding an assistant's usageMetadata, an api_response
// telemetry record or a custom title (the markers). A user's prompt is read
// from the first and last bytes of its line only.
import { parseTimestamp, readTokenFields } from '../../core/numbers.js';
import type { UsageEvent } from '../../core/types.js';
import { scanJsonlFile } from '../../io/jsonl.js';
import { extractLegacyConversation } from '../gemini-cli/legacy.js';
import { normalizeGeminiCounts, usageEventCounts } from '../gemini-cli/usage.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { CallPairs, figures, type PairState } from './pairing.js';
import { RULE } from './rules.js';

const API_RESPONSE = 'qwen-code.api_response';
export const MARKERS = ['"usageMetadata"', `"${API_RESPONSE}"`, '"custom_title"'];

/** usageMetadata of an assistant record (Gemini's GenerateContentResponseUsageMetadata). */
const USAGE_FIELDS = {
  prompt: 'promptTokenCount',
  candidates: 'candidatesTokenCount',
  cached: 'cachedContentTokenCount',
  thoughts: 'thoughtsTokenCount',
  tool: 'toolUsePromptTokenCount',
  total: 'totalTokenCount',
} as const;
/** The same figures in an api_response telemetry event (telemetry/types.ts ApiResponseEvent). */
const TELEMETRY_FIELDS = {
  prompt: 'input_token_count',
  candidates: 'output_token_count',
  cached: 'cached_content_token_count',
  thoughts: 'thoughts_token_count',
  tool: 'tool_token_count',
  total: 'total_token_count',
} as const;

/** A user record, up to its message: what decides whether it is a person's prompt. */
const PEEK_BYTES = 640;
const USER_RE = /"uuid":"([^"\\]+)"[^]*?"timestamp":"([^"\\]+)","type":"user"(,"provenance":"([^"\\]+)")?/;
/** Context Qwen Code injects as a user message (splitrail's is_internal_session_context). */
const INJECTED = '"parts":[{"text":"<session_context>';

export interface QwenState {
  project: string | null;
  pairs: PairState;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

export async function extractQwen(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  if (source.kind === 'json') {
    // A Gemini CLI conversation under another name: its cwd is not in it (only a hash of it).
    extractLegacyConversation(source, sink, { harness: 'qwen-code', assistantType: 'qwen', project: () => null });
    return null;
  }
  const file = source.path;
  const fallbackSession = source.meta?.sessionId ?? 'unknown';
  const prev = (opts.resume?.state as QwenState | undefined) ?? null;
  let project = prev?.project ?? null;
  const pairs = new CallPairs(prev?.pairs ?? null);
  let title: { text: string; rank: number; line: number; session: string } | null = null;

  const unit = (
    kind: 'prompt' | 'turn' | 'tool_call' | 'subagent_task',
    session: string,
    key: string,
    rank: number,
    ts: number,
    count = 1,
  ) => sink.unit({ harness: 'qwen-code', session_id: session, kind, dedupe_key: key, dedupe_rank: rank, ts, count });

  /** Counts one call from either of its records (see pairing.ts). */
  const countCall = (
    rec: Record<string, any>,
    usage: Record<string, unknown>,
    fields: typeof USAGE_FIELDS | typeof TELEMETRY_FIELDS,
    model: unknown,
    rule: string,
    line: number,
  ): boolean => {
    const at = { file, line };
    const uuid = str(rec.uuid);
    const ts = parseTimestamp(rec.timestamp);
    if (!uuid || ts === null) {
      sink.warn(`${rule}: record without ${uuid ? 'a usable timestamp' : 'a uuid'}; not counted`, at);
      return false;
    }
    const { values: v, invalid } = readTokenFields(usage, fields);
    if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, at);
    if (v.prompt + v.candidates + v.cached + v.thoughts + v.tool + v.total === 0) {
      // A provider that sent no usage: nothing is known of the call's size (the other record may know).
      sink.skip(`${rule} with no token counts`, at);
      return false;
    }
    const f = figures(v.prompt, v.candidates, v.cached, v.thoughts);
    if (fields === TELEMETRY_FIELDS ? pairs.telemetrySeen(f, line) : pairs.assistantSeen(f, line)) {
      sink.skip(
        fields === TELEMETRY_FIELDS
          ? 'api_response repeating an assistant record already counted'
          : 'assistant usage repeating its api_response record (counted there)',
        at,
      );
      return true;
    }
    const n = normalizeGeminiCounts({
      prompt: v.prompt,
      cached: v.cached,
      candidates: v.candidates,
      thoughts: v.thoughts,
      tool: v.tool,
      total: v.total > 0 ? v.total : null,
    });
    if (n.cachedOverPrompt)
      sink.warn('cached tokens exceed the prompt tokens (which include them); uncached input counted as 0', at);
    if (n.shape) sink.count(`qwen-code: usage read as ${n.shape} (its total says so)`);
    if (str(rec.cwd)) project = rec.cwd;
    const copy = isObj(rec.forkedFrom);
    const ev: UsageEvent = {
      harness: 'qwen-code',
      session_id: str(rec.sessionId) ?? fallbackSession,
      project,
      model: str(model),
      provider: null,
      ts,
      // /branch copies records with their uuid (sessionService.ts forkSession).
      dedupe_key: `uuid:${uuid}`,
      dedupe_rank: copy ? 1 : 0,
      ...usageEventCounts(n),
      source_file: file,
      source_line: line,
      rule,
    };
    sink.event(ev);
    return true;
  };

  const scanned = await scanJsonlFile(
    file,
    {
      markers: MARKERS,
      resume: opts.resume,
      unmarkedPeek: {
        bytes: PEEK_BYTES,
        onPeek: (head, tail, line) => {
          const u = USER_RE.exec(head);
          if (!u) return;
          // A person's prompt: no subtype (notification, cron, slash command...), provenance real_user where written, not injected context.
          const rest = head.slice(u.index + u[0].length);
          const msg = rest.indexOf('"message":');
          const before = msg >= 0 ? rest.slice(0, msg) : rest;
          if (before.includes('"subtype":"') || (u[4] !== undefined && u[4] !== 'real_user') || rest.includes(INJECTED))
            return;
          const ts = parseTimestamp(u[2]);
          if (ts === null) return;
          const rank = tail.includes('"forkedFrom":{') ? 1 : 0;
          const session = /"sessionId":"([^"\\]+)"/.exec(head)?.[1] ?? fallbackSession;
          const key = `uuid:${u[1]}`;
          if (head.includes('"isSidechain":true') || tail.includes('"isSidechain":true'))
            unit('subagent_task', session, key, rank, ts);
          else {
            // Qwen Code writes no turn end outside its daemon: each prompt is also a turn.
            unit('prompt', session, key, rank, ts);
            unit('turn', session, key, rank, ts);
          }
        },
      },
    },
    sink,
    (rec, line) => {
      if (rec.type === 'assistant') {
        if (!isObj(rec.usageMetadata)) return;
        if (!countCall(rec, rec.usageMetadata, USAGE_FIELDS, rec.model, RULE.withoutApiResponse, line)) return;
        // The response's tool calls (functionCall parts), once with it.
        const parts = rec.message?.parts;
        const calls = Array.isArray(parts) ? parts.filter((p: any) => isObj(p) && isObj(p.functionCall)).length : 0;
        const ts = parseTimestamp(rec.timestamp);
        if (calls > 0 && ts !== null)
          unit(
            'tool_call',
            str(rec.sessionId) ?? fallbackSession,
            `uuid:${rec.uuid}`,
            isObj(rec.forkedFrom) ? 1 : 0,
            ts,
            calls,
          );
        return;
      }
      if (rec.type !== 'system') return;
      if (rec.subtype === 'ui_telemetry') {
        const ev = rec.systemPayload?.uiEvent;
        if (isObj(ev) && ev['event.name'] === API_RESPONSE)
          countCall(rec, ev, TELEMETRY_FIELDS, ev.model, RULE.apiResponse, line);
      } else if (rec.subtype === 'custom_title') {
        const p = rec.systemPayload;
        const text = isObj(p) ? str(p.customTitle)?.trim() : null;
        // A title the user set (/rename, or one written before titleSource existed) wins over a generated one.
        if (text)
          title = {
            text,
            rank: p.titleSource === 'auto' ? 1 : 0,
            line,
            session: str(rec.sessionId) ?? fallbackSession,
          };
      }
    },
  );
  const t = title as { text: string; rank: number; line: number; session: string } | null;
  if (t)
    sink.sessionFact({
      harness: 'qwen-code',
      session_id: t.session,
      title: t.text,
      title_rank: t.rank,
      parent_session_id: null,
      seq: t.line,
    });
  const state: QwenState = { project, pairs: pairs.toState() };
  return { ...scanned, state };
}
