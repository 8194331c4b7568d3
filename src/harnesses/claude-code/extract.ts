// Claude Code transcript → usage events. Rules from the contract entry
// `claude-code` (see README.md beside this file for the full list).
import { scanJsonlFile } from '../../io/jsonl.js';
import { checkCost, notAnObject, parseTimestamp, readTokenFields } from '../../core/numbers.js';
import type { UsageEvent } from '../../core/types.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { projectFromKey } from './paths.js';
import { cacheWrites, emitBilledEvents, RULE, USAGE_FIELDS, type ResponseLine } from './billing.js';
import { geoBillingKind } from '../../pricing/regional.js';
import {
  isTitleLine,
  personPrompt,
  PROMPT_MARKERS,
  TITLE_HEAD_BYTES,
  titleOf,
  TOOL_CALL_BLOCKS,
  TURN_ENDING_STOPS,
} from './units.js';
import { notBilledUsageReason, SKIP_USER_RECORD_USAGE } from './skips.js';
import { WINNER_ORDER } from './rules.js';
import { contender } from '../dedupe.js';

/**
 * Only lines containing one of these can carry usage or a cost estimate, or
 * be a prompt (units.ts: those are read at byte level, never parsed); the
 * rest are never parsed, but for title records, told by their first bytes.
 */
export const MARKERS = ['"usage"', '"cost-state"', ...PROMPT_MARKERS];

interface ClaudeState {
  lastCwd: string | null;
  /** uuid of the last prompt read (a turn is keyed by the prompt that started it, across appends). */
  lastPrompt?: string | null;
}

export async function extractClaude(source: SourceRef, sink: ExtractSink, opts: ExtractOptions): Promise<ResumePoint> {
  const file = source.path;
  const meta = source.meta ?? {};
  const sessionId = meta.sessionId ?? 'unknown';
  const prior = opts.resume?.state as ClaudeState | undefined;
  const state: ClaudeState = { lastCwd: prior?.lastCwd ?? null, lastPrompt: prior?.lastPrompt ?? null };
  // Split lines of one streamed response repeat its usage; subagent files
  // before 2.1.307 carry placeholder usage on early split lines. Keep, per
  // message.id, the line the harness's winner order keeps (the largest
  // usage; rules.ts), which the store applies across files and appends. Its
  // usage object is kept to make the response's billed events from
  // (billing.ts) once the file is read.
  const byMessage = new Map<string, ResponseLine>();
  const noProject: UsageEvent[] = [];
  // Units of work (units.ts). A subagent's file holds no prompts of a
  // person: its user records are what the parent agent wrote for it.
  const main = meta.role !== 'subagent';
  // A turn runs from a prompt to the response that ends it: one turn per
  // prompt at most, however many responses stop for good before the next
  // prompt (a Stop hook can make the model go on). Keyed by the prompt that
  // started it (carried across appends), so a read that ends inside a turn
  // and the next read count it once; emitted at the next prompt or the end
  // of the read.
  let turnEnd: { key: string; rank: number; ts: number } | null = null;
  const endTurn = () => {
    if (!turnEnd) return;
    sink.unit({
      harness: 'claude-code',
      session_id: sessionId,
      kind: 'turn',
      dedupe_key: turnEnd.key,
      dedupe_rank: turnEnd.rank,
      ts: turnEnd.ts,
      count: 1,
    });
    turnEnd = null;
  };
  let title: { title: string; rank: number; line: number } | null = null;

  /** A user-role line (a marker matched): counted at byte level here and never parsed (it carries no usage). */
  const userLine = (text: string, line: number): boolean => {
    const r = text.indexOf('"role":"');
    if (r < 0 || text.charCodeAt(r + 8) !== 0x75 /* u(ser) */) return false;
    // An Agent tool result's usage summary (toolUseResult.usage): named, not
    // billed. `"usage":{` occurs in the bytes only as a key (quotes inside
    // strings are escaped).
    if (text.includes('"usage":{')) sink.skip(SKIP_USER_RECORD_USAGE, { file, line });
    const p = personPrompt(text);
    const ts = p ? parseTimestamp(p.ts) : null;
    if (p && ts !== null) {
      if (main) {
        endTurn();
        state.lastPrompt = p.uuid;
      }
      sink.unit({
        harness: 'claude-code',
        session_id: sessionId,
        kind: main ? 'prompt' : 'subagent_task',
        dedupe_key: `uuid:${p.uuid}`,
        dedupe_rank: p.copy ? 1 : 0,
        ts,
        count: 1,
      });
    }
    return true;
  };

  const scanOpts = {
    markers: MARKERS,
    resume: opts.resume,
    beforeParse: userLine,
    unmarkedHead: {
      bytes: TITLE_HEAD_BYTES,
      check: (buf: Buffer, start: number, end: number) => main && isTitleLine(buf, start, end),
    },
  };
  const resume = await scanJsonlFile(file, scanOpts, sink, (rec, line) => {
    const at = { file, line };
    const t = main && rec.type !== 'assistant' ? titleOf(rec) : null;
    if (t) {
      // Re-appended many times: the lowest rank, then the last, wins.
      if (t.title && (!title || t.rank <= title.rank)) title = { ...t, line };
      return;
    }
    if (typeof rec.cwd === 'string' && rec.cwd) {
      state.lastCwd = rec.cwd;
      // Lines before the first cwd take the nearest following one.
      for (const e of noProject.splice(0)) e.project = rec.cwd;
    }
    if (rec.type === 'cost-state') {
      // Client-side estimate of the whole session; last record wins. Kept
      // apart from per-response costs, never added to them.
      const cost = checkCost(rec.totalCostUSD);
      if (cost !== null)
        sink.sessionEstimate({
          harness: 'claude-code',
          session_id: typeof rec.sessionId === 'string' ? rec.sessionId : sessionId,
          recorded_cost_usd: cost,
          ts: parseTimestamp(rec.timestamp),
        });
      return;
    }
    if (rec.type !== 'assistant') {
      // e.g. queued_command / progress summaries: not billed responses, named in `sources`.
      const reason = notBilledUsageReason(rec);
      if (reason) sink.skip(reason, at);
      return;
    }
    const msg = rec.message;
    if (!msg || typeof msg !== 'object' || msg.usage === undefined) return;
    if (rec.isApiErrorMessage === true || msg.model === '<synthetic>') {
      sink.skip('synthetic API-error message (not billed)', at);
      return;
    }
    // A response whose usage is null, a string, a list…: named, as an invalid count is, not passed over.
    const notObject = notAnObject(msg.usage);
    if (notObject) {
      sink.warn(`message.usage is ${notObject}, not an object; response not counted`, at);
      return;
    }
    const ts = parseTimestamp(rec.timestamp);
    if (ts === null) {
      sink.warn('assistant response without a usable timestamp skipped', at);
      return;
    }
    const { values: u, invalid } = readTokenFields(msg.usage, USAGE_FIELDS);
    if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, at);
    const has5m1h = msg.usage.cache_creation && typeof msg.usage.cache_creation === 'object';
    // README "Cache writes": older builds wrote the flat count as 0 beside the real 5m/1h split.
    const w = cacheWrites(u, has5m1h);
    const msgId = typeof msg.id === 'string' && msg.id ? msg.id : null;
    // message.id identifies the API response; requestId is the same for every
    // split line, so keying on message.id alone also merges lines whose
    // requestId was stripped (contract gotcha: envelope fields may be missing).
    const dedupeKey = msgId ? `msg:${msgId}` : `line:${source.key}:${line}`;
    const ev: UsageEvent = {
      harness: 'claude-code',
      session_id: sessionId,
      project: state.lastCwd,
      model: typeof msg.model === 'string' ? msg.model : null,
      provider: 'anthropic',
      ts,
      dedupe_key: dedupeKey,
      // /branch copies earlier responses (with forkedFrom) into the new file:
      // the original session keeps the credit.
      dedupe_rank: rec.forkedFrom ? 1 : 0,
      requests: 1,
      input_tokens: u.input,
      cache_read_tokens: u.cacheRead,
      cache_write_tokens: w.total,
      cache_write_5m_tokens: w.w5m,
      cache_write_1h_tokens: w.w1h,
      output_tokens: u.output,
      reasoning_tokens: Math.min(u.thinking, u.output),
      recorded_cost_usd: null,
      web_search_requests: u.webSearches > 0 ? u.webSearches : null,
      // README "Regional pricing": usage.inference_geo "us" is billed 1.1× (src/pricing/regional.ts).
      billing_kind: geoBillingKind(msg.usage.inference_geo),
      source_file: file,
      source_line: line,
      rule: rec.forkedFrom ? RULE.forks : w.total > u.cacheWrite ? RULE.cacheWrites : RULE.response,
    };
    if (ev.project === null) noProject.push(ev);
    // Tool calls: one block per split line, each once by its id (fork copies keep ids).
    if (Array.isArray(msg.content)) {
      for (const b of msg.content) {
        if (b && typeof b === 'object' && TOOL_CALL_BLOCKS.has(b.type) && typeof b.id === 'string' && b.id) {
          sink.unit({
            harness: 'claude-code',
            session_id: sessionId,
            kind: 'tool_call',
            dedupe_key: `${dedupeKey}#${b.id}`,
            dedupe_rank: ev.dedupe_rank,
            ts,
            count: 1,
          });
        }
      }
    }
    // A turn ends with a main-thread response that stops for good (keyed like the response).
    if (main && rec.isSidechain !== true && TURN_ENDING_STOPS.has(msg.stop_reason)) {
      turnEnd = { key: `turn:${state.lastPrompt ?? `start:${sessionId}`}`, rank: ev.dedupe_rank, ts };
    }
    const prev = byMessage.get(dedupeKey);
    const mine = contender(ev);
    const theirs = prev ? contender(prev.ev) : null;
    if (!prev || WINNER_ORDER.compare(mine, theirs!) < 0) {
      if (prev) {
        ev.ts = Math.min(ev.ts, prev.ev.ts);
        sink.merged?.(prev.ev, RULE.largest);
      }
      byMessage.set(dedupeKey, {
        ev,
        usage: msg.usage,
        advisorModel: typeof rec.advisorModel === 'string' && rec.advisorModel ? rec.advisorModel : null,
      });
    } else sink.merged?.(ev, mine.usage < theirs!.usage ? RULE.largest : RULE.response);
  });

  const fallback = projectFromKey(meta.projectKey ?? '');
  for (const e of noProject) e.project = fallback || null;
  for (const r of byMessage.values()) emitBilledEvents(r, sink);
  endTurn();
  const named = title as { title: string; rank: number; line: number } | null;
  if (named)
    sink.sessionFact({
      harness: 'claude-code',
      session_id: sessionId,
      title: named.title,
      title_rank: named.rank,
      parent_session_id: null,
      seq: named.line,
    });
  return { ...resume, state };
}
