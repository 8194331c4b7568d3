// Kimi wire files → usage events, units of work and session titles. Two
// products, one wire file name (README.md beside this file has every rule
// and its evidence):
//   kimi-cli: `{"timestamp": <s>, "message": {"type": "StatusUpdate", "payload": {"token_usage": …, "message_id": …}}}`,
//             one usage-bearing StatusUpdate per LLM step; a foreground sub-agent's
//             steps are in its own wire AND wrapped (SubagentEvent) in the parent's.
//   Kimi Code: `{"type":"usage.record","model":<alias>,"usage":{…},"time":<ms>}`, one per
//             LLM request; the model id is on the `llm.request` before it.
// Both are appended to only: read from the resume point, with what a later
// line needs of earlier ones carried in the resume state.
import { join } from 'node:path';
import { parseTimestamp, readTokenFields } from '../../core/numbers.js';
import type { UsageEvent, WorkUnit } from '../../core/types.js';
import { readJsonFile } from '../../io/json-file.js';
import { scanJsonlFile } from '../../io/jsonl.js';
import { isFile } from '../roots.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { projectOfBucket, readCliConfig, subagentModel, type CliConfig, type ModelSource } from './config.js';
import { CLI_MARKERS, CODE_MARKERS } from './markers.js';
import { RULE } from './rules.js';

const CLI_FIELDS = {
  fresh: 'input_other',
  output: 'output',
  cacheRead: 'input_cache_read',
  cacheWrite: 'input_cache_creation',
} as const;
const CODE_FIELDS = {
  fresh: 'inputOther',
  output: 'output',
  cacheRead: 'inputCacheRead',
  cacheWrite: 'inputCacheCreation',
} as const;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The session's state.json, or null (absent, or not JSON: named by the reader). */
function readState(sessionDir: string, sink: ExtractSink): Record<string, any> | null {
  const file = join(sessionDir, 'state.json');
  if (!isFile(file)) return null;
  const doc = readJsonFile(file, sink);
  return isObj(doc) ? doc : null;
}

type Counts = Record<'fresh' | 'output' | 'cacheRead' | 'cacheWrite', number>;

/**
 * A usage object's four counts (both products write kosong's TokenUsage,
 * under their own spellings), or null when it is not one or holds no tokens
 * (a warning or a skip naming `what` at `at`).
 */
function countsOf(
  usage: unknown,
  fields: typeof CLI_FIELDS | typeof CODE_FIELDS,
  what: string,
  sink: ExtractSink,
  at: { file: string; line: number },
): Counts | null {
  if (!isObj(usage)) {
    sink.warn(`${what} usage is not an object; not counted`, at);
    return null;
  }
  const { values: v, invalid } = readTokenFields(usage, fields);
  if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, at);
  if (v.fresh + v.output + v.cacheRead + v.cacheWrite === 0) {
    // Kimi Code writes a zero record when the provider returned no usage: nothing known to count.
    sink.skip(`${what} with no tokens`, at);
    return null;
  }
  return v;
}

function event(
  source: SourceRef,
  session: string,
  project: string | null,
  model: string | null,
  ts: number,
  key: string,
  rank: number,
  v: Counts,
  line: number,
  rule: string,
): UsageEvent {
  return {
    harness: 'kimi',
    session_id: session,
    project,
    model,
    provider: null,
    ts,
    dedupe_key: key,
    dedupe_rank: rank,
    requests: 1,
    // input_other / inputOther exclude both cache buckets (kosong TokenUsage): nothing to subtract.
    input_tokens: v.fresh,
    cache_read_tokens: v.cacheRead,
    cache_write_tokens: v.cacheWrite,
    cache_write_5m_tokens: null,
    cache_write_1h_tokens: null,
    output_tokens: v.output,
    reasoning_tokens: 0,
    recorded_cost_usd: null,
    source_file: source.path,
    source_line: line,
    rule,
  };
}

const CLI_RULES: Record<'own' | 'wrapped', Record<ModelSource, string>> = {
  own: { meta: RULE.stepMeta, toml: RULE.stepToml, json: RULE.stepJson, default: RULE.stepDefault },
  wrapped: { meta: RULE.wrappedMeta, toml: RULE.wrappedToml, json: RULE.wrappedJson, default: RULE.wrappedDefault },
};

/** kimi-cli: a session's wire (agent `main`) or a sub-agent's own (subagents/<agent>/wire.jsonl). */
async function extractCli(source: SourceRef, sink: ExtractSink, opts: ExtractOptions): Promise<ResumePoint> {
  const m = source.meta!;
  const file = source.path;
  const { session, sessionDir, agent } = m as Record<string, string>;
  const config: CliConfig = readCliConfig(m.home!, sink);
  const project = projectOfBucket(m.home!, m.bucket!, sink);
  const state = agent === 'main' ? readState(sessionDir!, sink) : null;
  const customTitle = str(state?.custom_title);
  // A fork copies its source's wire lines verbatim (README "Forks"): its copies rank after the source's.
  const fork = customTitle?.startsWith('Fork: ') ?? false;
  if (customTitle)
    sink.sessionFact({
      harness: 'kimi',
      session_id: session!,
      title: customTitle,
      title_rank: 0,
      parent_session_id: null,
      seq: 0,
    });
  const models = new Map<string, { model: string; source: ModelSource }>();
  const modelOf = (agentId: string): { model: string; source: ModelSource } => {
    let r = models.get(agentId);
    if (!r) {
      const own = agentId === 'main' ? null : subagentModel(join(sessionDir!, 'subagents', agentId), config, sink);
      r = own !== null ? { model: own, source: 'meta' } : { model: config.model, source: config.source };
      models.set(agentId, r);
    }
    return r;
  };
  const unit = (kind: WorkUnit['kind'], key: string, ts: number) =>
    sink.unit({
      harness: 'kimi',
      session_id: session!,
      kind,
      dedupe_key: key,
      dedupe_rank: fork ? 2 : 0,
      ts,
      count: 1,
    });

  const count = (p: unknown, agentId: string, wrapped: boolean, ts: number, stamp: unknown, line: number) => {
    if (!isObj(p) || p.token_usage === null || p.token_usage === undefined) return; // plan mode, /compact, MCP status: no usage
    const at = { file, line };
    const v = countsOf(p.token_usage, CLI_FIELDS, 'StatusUpdate', sink, at);
    if (v === null) return;
    const messageId = str(p.message_id);
    if (messageId === null && wrapped && isFile(join(sessionDir!, 'subagents', agentId, 'wire.jsonl'))) {
      // Without an id the copy cannot be matched: the sub-agent's own wire counts it (README "Sub-agents").
      sink.skip("SubagentEvent without message_id (counted from the sub-agent's own wire)", at);
      return;
    }
    const key = messageId !== null ? `kimi:${messageId}` : `kimi:${session}:${agentId}:${String(stamp)}`;
    const { model, source: how } = modelOf(agentId);
    sink.event(
      event(
        source,
        session!,
        project,
        model,
        ts,
        key,
        (wrapped ? 1 : 0) + (fork ? 2 : 0),
        v,
        line,
        CLI_RULES[wrapped ? 'wrapped' : 'own'][how],
      ),
    );
  };

  /** A SubagentEvent's payload: the event it wraps (which may wrap another). */
  const unwrap = (p: unknown, ts: number, stamp: unknown, line: number, depth: number) => {
    if (!isObj(p) || !isObj(p.event) || depth > 8) return;
    const agentId = str(p.agent_id) ?? str(p.task_tool_call_id) ?? 'subagent';
    if (p.event.type === 'StatusUpdate') count(p.event.payload, agentId, true, ts, stamp, line);
    else if (p.event.type === 'SubagentEvent') unwrap(p.event.payload, ts, stamp, line, depth + 1);
  };

  return scanJsonlFile(file, { markers: CLI_MARKERS, resume: opts.resume }, sink, (rec, line) => {
    const msg = rec.message;
    if (!isObj(msg)) return;
    const ts = typeof rec.timestamp === 'number' ? parseTimestamp(rec.timestamp * 1000) : null;
    if (ts === null) {
      if (msg.type === 'StatusUpdate' || msg.type === 'SubagentEvent')
        sink.warn(`${msg.type} without a usable timestamp; not counted`, { file, line });
      return;
    }
    if (msg.type === 'StatusUpdate') count(msg.payload, agent!, false, ts, rec.timestamp, line);
    else if (msg.type === 'SubagentEvent') unwrap(msg.payload, ts, rec.timestamp, line, 0);
    else if (msg.type === 'TurnBegin' && agent === 'main')
      unit('prompt', `kimi:prompt:${session}:${rec.timestamp}`, ts);
    else if (msg.type === 'ToolCall')
      unit('tool_call', `kimi:tool:${str(msg.payload?.id) ?? `${session}:${agent}:${rec.timestamp}`}`, ts);
  });
}

export interface CodeState {
  /** The model id of the last llm.request of each alias, and of the last one. */
  aliases: Record<string, string>;
  last: string | null;
  /** The last usage.record's identity and how many times in a row it came (identical records stay apart). */
  prevKey: string | null;
  prevN: number;
}

/** Kimi Code: one agent's wire (agents/<agent>/wire.jsonl). */
async function extractCode(source: SourceRef, sink: ExtractSink, opts: ExtractOptions): Promise<ResumePoint> {
  const m = source.meta!;
  const file = source.path;
  const { session, sessionDir, agent } = m as Record<string, string>;
  const st: CodeState = {
    aliases: {},
    last: null,
    prevKey: null,
    prevN: 0,
    ...(opts.resume?.state as CodeState | undefined),
  };
  st.aliases = { ...st.aliases };
  const state = readState(sessionDir!, sink);
  const project = str(state?.cwd) ?? str(state?.workDir) ?? str(state?.custom?.cwd);
  const title = str(state?.title);
  if (title && agent === 'main')
    sink.sessionFact({ harness: 'kimi', session_id: session!, title, title_rank: 0, parent_session_id: null, seq: 0 });
  // Held until the read ends: lines before the last `forked` record were copied from the source session (README "Forks").
  const events: UsageEvent[] = [];
  const units: (WorkUnit & { line: number })[] = [];
  let forkedAt = 0;
  const scanned = await scanJsonlFile(file, { markers: CODE_MARKERS, resume: opts.resume }, sink, (rec, line) => {
    const at = { file, line };
    switch (rec.type) {
      case 'llm.request': {
        const model = str(rec.model);
        if (model === null) return;
        st.last = model;
        const alias = str(rec.modelAlias);
        if (alias !== null) st.aliases[alias] = model;
        return;
      }
      case 'forked':
        forkedAt = line;
        return;
      case 'turn.prompt': {
        const ts = parseTimestamp(rec.time);
        if (ts !== null && agent === 'main')
          units.push({
            harness: 'kimi',
            session_id: session!,
            kind: 'prompt',
            dedupe_key: `kimicode:prompt:${agent}:${rec.time}`,
            dedupe_rank: 0,
            ts,
            count: 1,
            line,
          });
        return;
      }
      case 'context.append_loop_event': {
        const ts = parseTimestamp(rec.time);
        if (ts !== null && isObj(rec.event) && rec.event.type === 'tool.call') {
          units.push({
            harness: 'kimi',
            session_id: session!,
            kind: 'tool_call',
            dedupe_key: `kimicode:tool:${agent}:${str(rec.event.uuid) ?? rec.time}`,
            dedupe_rank: 0,
            ts,
            count: 1,
            line,
          });
        }
        return;
      }
      case 'usage.record':
        break;
      default:
        return;
    }
    const v = countsOf(rec.usage, CODE_FIELDS, 'usage.record', sink, at);
    if (v === null) return;
    const ts = parseTimestamp(rec.time);
    if (ts === null) {
      sink.warn('usage.record without a usable time; not counted', at);
      return;
    }
    const alias = str(rec.model);
    let model: string | null;
    let rule: string;
    if (alias !== null && st.aliases[alias] !== undefined) [model, rule] = [st.aliases[alias]!, RULE.recordAlias];
    else if (st.last !== null) [model, rule] = [st.last, RULE.recordPreceding];
    else [model, rule] = [alias, RULE.recordAliasOnly];
    // Identity without the session folder: a fork's copied lines are the same calls (README "Forks").
    const base = `kimicode:${agent}:${rec.time}:${alias ?? ''}:${v.fresh}:${v.output}:${v.cacheRead}:${v.cacheWrite}`;
    st.prevN = base === st.prevKey ? st.prevN + 1 : 0;
    st.prevKey = base;
    events.push(event(source, session!, project, model, ts, st.prevN ? `${base}:${st.prevN}` : base, 0, v, line, rule));
  });
  for (const e of events) sink.event(e.source_line! < forkedAt ? { ...e, dedupe_rank: 1 } : e);
  for (const { line, ...u } of units) sink.unit(line < forkedAt ? { ...u, dedupe_rank: 1 } : u);
  return { ...scanned, state: st };
}

export async function extractKimi(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  return source.meta?.layout === 'code' ? extractCode(source, sink, opts) : extractCli(source, sink, opts);
}
