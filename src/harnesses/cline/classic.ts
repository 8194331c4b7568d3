// A task's ui_messages.json (Cline, Roo Code, Kilo Code: one format, forked
// twice) → usage events. The rules, each with its evidence, are in README.md
// beside this file; roo-code/ and kilo-code/ pass the dialect that says how
// their records differ.
//
// The document is rewritten whole on every save, and requests can leave it
// (a checkpoint restore deletes every message after the restored one and
// adds one message summing what it deleted). So every read is a full read,
// and the state this reader returns remembers what it counted: a request that
// has left the file is counted again from memory, with its own key, and a sum
// of deleted requests adds only what the memory does not already hold.
import { readRegularBytes } from '../../io/regular-file.js';
import { basename, dirname } from 'node:path';
import { checkCost, checkTokenCount } from '../../core/numbers.js';
import type { HarnessId, SourceLocation, UsageEvent, WorkUnitKind } from '../../core/types.js';
import { scanJsonArray } from '../../io/json-array.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import {
  folderFromHistory,
  historyItem,
  historyModelStamps,
  taskMetadataModels,
  type ModelStamp,
} from './task-files.js';
import { RULE } from './rules.js';

export interface ClassicDialect {
  harness: HarnessId;
  /** Whether a request's `tokensIn` holds its cache reads and writes (README "Input tokens"); `sum` for a message summing several. */
  inputIncludesCache(r: { ts: number; apiProtocol: unknown; providerId: string | null; sum: boolean }): boolean;
  /** Where a request's model comes from when its message names none. */
  models: 'task-metadata' | 'history-stamps';
  /** The heading the extension prints the working folder in (task-files.ts folderFromHistory). */
  folderHeading: string;
  /** The skip reason for a request this harness must not count (billed in another harness's files), else null. */
  notBilled?(providerId: string | null): string | null;
}

/** One usage-bearing message as counted; also what the state remembers. */
interface Rec {
  /** req: a request; sum: deleted requests; sub: subagent usage; condense: a context condense call. */
  k: 'req' | 'sum' | 'sub' | 'condense';
  ts: number;
  /** tokensIn, tokensOut, cacheWrites, cacheReads as recorded (a sum's: what is left after what the memory holds). */
  ti: number;
  to: number;
  cw: number;
  cr: number;
  cost: number | null;
  model: string | null;
  provider: string | null;
  /** tokensIn includes the cache fields (1) or not (0). */
  inc: 0 | 1;
  /** Message index in the document (1-based), for locations. */
  at: number;
}

interface ClassicState {
  v: 1;
  recs: Rec[];
}

const RULES: Record<Rec['k'], string> = {
  req: RULE.request,
  sum: RULE.deletedSum,
  sub: RULE.subagentSum,
  condense: RULE.condense,
};
const KEPT_RULE = RULE.kept;
/** The skip reason (and rule name) of a request whose stream failed before any usage: not a request. */
const FAILED_EMPTY = 'failed request without usage (streaming_failed: not billed)';
const USAGE_FIELDS = ['tokensIn', 'tokensOut', 'cacheWrites', 'cacheReads', 'cost'];

/** `{"ts":N,"type":"say"|"ask","say"|"ask":"kind"` — how both extensions write a message's first keys. */
const HEAD_RE = /^\{\s*"ts"\s*:\s*(\d+)\s*,\s*"type"\s*:\s*"(say|ask)"\s*,\s*"(?:say|ask)"\s*:\s*"([a-z_]+)"/;
const HEAD_BYTES = 160;
/**
 * Messages that carry usage: a request; the sum of the requests a checkpoint
 * restore deleted (Cline `deleted_api_reqs`, Roo and Kilo `api_req_deleted`);
 * Cline's subagent sums; Roo's and Kilo's context condense calls.
 */
const USAGE_SAYS = new Set([
  'api_req_started',
  'deleted_api_reqs',
  'api_req_deleted',
  'subagent_usage',
  'condense_context',
]);
/** Messages typed by a person (README "Units of work"). */
const PROMPT_SAYS = new Set(['task', 'user_feedback']);
/** Messages that are one tool call each, asked for approval or auto-approved. */
const TOOL_KINDS = new Set(['tool', 'command', 'use_mcp_server', 'browser_action_launch']);

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

export async function extractClassicTask(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
  d: ClassicDialect,
): Promise<ResumePoint> {
  const file = source.path;
  const taskDir = dirname(file);
  const taskId = basename(taskDir);
  const prior = isPrior(opts.prior) ? opts.prior.recs : [];
  const usageSays = USAGE_SAYS;

  const buf = readRegularBytes(file);
  const present: Rec[] = [];
  /** Requests still in the file that count nothing (a failed stream): the memory must not count them as gone. */
  const held = new Set<string>();
  const units: { kind: WorkUnitKind; ts: number; key: string }[] = [];
  let index = 0;
  let badTexts = 0;
  let firstBad: SourceLocation | null = null;

  const onMessage = (m: Record<string, any>, at: number) => {
    const loc = { file, row: `message ${at}` };
    const ts = typeof m.ts === 'number' && Number.isFinite(m.ts) ? m.ts : null;
    const kind = m.type === 'say' ? m.say : m.type === 'ask' ? m.ask : null;
    if (ts === null || typeof kind !== 'string') return;
    if (m.type === 'say' && usageSays.has(kind)) {
      const r = usageOf(m, kind, ts, at, loc);
      if (r) present.push(r);
      return;
    }
    unitOf(m.type, kind, ts);
  };

  const unitOf = (type: string, kind: string, ts: number) => {
    if (type === 'say' && PROMPT_SAYS.has(kind)) {
      units.push({ kind: 'prompt', ts, key: `prompt:${taskId}:${ts}` });
      units.push({ kind: 'turn', ts, key: `prompt:${taskId}:${ts}` });
    } else if (TOOL_KINDS.has(kind)) units.push({ kind: 'tool_call', ts, key: `tool:${taskId}:${ts}` });
  };

  const usageOf = (m: Record<string, any>, say: string, ts: number, at: number, loc: SourceLocation): Rec | null => {
    if (say === 'condense_context') {
      const cost = checkCost(m.contextCondense?.cost);
      if (cost === null) {
        sink.skip('context condense without a cost', loc);
        return null;
      }
      return { k: 'condense', ts, ti: 0, to: 0, cw: 0, cr: 0, cost, model: null, provider: null, inc: 0, at };
    }
    let info: unknown;
    try {
      info = typeof m.text === 'string' ? JSON.parse(m.text) : undefined;
    } catch {
      info = undefined;
    }
    if (!isObj(info)) {
      if (badTexts++ === 0) firstBad = loc;
      return null;
    }
    const has = (f: string) => info[f] !== undefined && info[f] !== null;
    if (!USAGE_FIELDS.some(has)) {
      sink.skip(
        say === 'api_req_started' ? 'request without usage yet (placeholder or in flight)' : `${say} without usage`,
        loc,
      );
      return null;
    }
    // README "What counts": a stream that failed before any usage came back
    // is set to zeros with cancelReason "streaming_failed": not a billed
    // response, so not a request (a retry rewrites the same message).
    if (
      say === 'api_req_started' &&
      info.cancelReason === 'streaming_failed' &&
      USAGE_FIELDS.every((f) => !has(f) || info[f] === 0)
    ) {
      sink.skip(FAILED_EMPTY, loc);
      held.add(`req:${ts}`);
      return null;
    }
    const invalid: string[] = [];
    const tok = (f: string) => {
      const c = checkTokenCount(info[f]);
      if (!c.ok) invalid.push(`${f} ${c.reason}`);
      return c.value;
    };
    const r: Rec = {
      k: say === 'api_req_started' ? 'req' : say === 'subagent_usage' ? 'sub' : 'sum',
      ts,
      ti: tok('tokensIn'),
      to: tok('tokensOut'),
      cw: tok('cacheWrites'),
      cr: tok('cacheReads'),
      cost: null,
      model: null,
      provider: null,
      inc: 0,
      at,
    };
    if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, loc);
    if (has('cost')) {
      r.cost = checkCost(info.cost);
      if (r.cost === null) sink.warn('cost is not a valid USD amount; cost not recorded', loc);
    }
    if (r.k === 'req') {
      const mi = isObj(m.modelInfo) ? m.modelInfo : null;
      r.model = str(mi?.modelId);
      r.provider = str(mi?.providerId);
      const why = d.notBilled?.(r.provider) ?? null;
      if (why !== null) {
        sink.skip(why, loc);
        return null;
      }
      if (info.usageMissing === true) sink.count(`${d.harness}: request whose provider reported no usage`);
    }
    r.inc =
      d.inputIncludesCache({ ts, apiProtocol: info.apiProtocol, providerId: r.provider, sum: r.k !== 'req' }) &&
      r.ti >= r.cr + r.cw
        ? 1
        : 0;
    return r;
  };

  const problem = scanJsonArray(buf, (start, end) => {
    index++;
    const head = HEAD_RE.exec(buf.toString('latin1', start, Math.min(end, start + HEAD_BYTES)));
    // Only messages that carry usage are decoded; units come from the head.
    if (head && !(head[2] === 'say' && usageSays.has(head[3]!))) {
      unitOf(head[2]!, head[3]!, Number(head[1]));
      return;
    }
    let m: unknown;
    try {
      m = JSON.parse(buf.toString('utf8', start, end));
    } catch {
      if (badTexts++ === 0) firstBad = { file, row: `message ${index}` };
      return;
    }
    if (isObj(m)) onMessage(m, index);
  });
  if (badTexts > 0) sink.warn(`${badTexts} usage message(s) whose text is not JSON skipped`, firstBad!);

  const info = d.models === 'history-stamps' ? historyItem(taskDir) : { workspace: null, parent: null };
  const project = info.workspace ?? folderFromHistory(taskDir, d.folderHeading);
  if (problem !== null) {
    // Caught mid-write, or not a message list: what the last read counted stands.
    sink.warn(
      `not a complete message list (${problem}); ${prior.length ? 'what the last read counted is kept' : 'nothing read'}`,
      { file },
    );
    for (const r of prior) sink.event(eventOf(r, KEPT_RULE));
    return { offset: buf.length, lines: 0, state: { v: 1, recs: prior } satisfies ClassicState };
  }

  resolveModels(present, taskDir, d, sink, file);
  const recs = settle(present, prior, sink, held);
  const presentKeys = new Set(present.map(keyOf));
  for (const r of recs) {
    if (r.k === 'sum' && r.ti + r.to + r.cw + r.cr === 0 && !r.cost) continue; // all of it already counted
    sink.event(eventOf(r, presentKeys.has(keyOf(r)) ? RULES[r.k] : KEPT_RULE));
  }
  // A subtask's first message is its parent's instruction, not a person's prompt (README "Units of work").
  for (const u of units) {
    const kind = info.parent !== null && u.kind === 'prompt' && units[0]?.key === u.key ? 'subagent_task' : u.kind;
    if (info.parent !== null && u.kind === 'turn' && units[0]?.key === u.key) continue;
    sink.unit({ harness: d.harness, session_id: taskId, kind, dedupe_key: u.key, dedupe_rank: 0, ts: u.ts, count: 1 });
  }
  if (info.parent !== null)
    sink.sessionFact({
      harness: d.harness,
      session_id: taskId,
      title: null,
      title_rank: 0,
      parent_session_id: info.parent,
      seq: 0,
    });
  return { offset: buf.length, lines: index, state: { v: 1, recs } satisfies ClassicState };

  function eventOf(r: Rec, rule: string): UsageEvent {
    const cacheIn = r.inc ? r.cr + r.cw : 0;
    return {
      harness: d.harness,
      session_id: taskId,
      project,
      model: r.model,
      provider: r.provider,
      ts: r.ts,
      dedupe_key: keyOf(r),
      dedupe_rank: 0,
      // A sum stands for requests whose number is not recorded.
      requests: r.k === 'req' || r.k === 'condense' ? 1 : 0,
      input_tokens: Math.max(0, r.ti - cacheIn),
      cache_read_tokens: r.cr,
      cache_write_tokens: r.cw,
      cache_write_5m_tokens: null,
      cache_write_1h_tokens: null,
      output_tokens: r.to,
      reasoning_tokens: 0,
      // README "Cost": 0 for billed tokens is the extension's "no price known", not free.
      recorded_cost_usd: r.cost === 0 && r.ti + r.to + r.cw + r.cr > 0 ? null : r.cost,
      source_file: file,
      source_line: r.at,
      rule,
    };
  }

  function keyOf(r: Rec): string {
    return `${r.k}:${taskId}:${r.ts}`;
  }
}

function isPrior(v: unknown): v is ClassicState {
  return isObj(v) && v.v === 1 && Array.isArray(v.recs);
}

/**
 * Each request's model: its own message's (Cline since late 2025), else the
 * latest task_metadata entry at or before it (Cline), else the latest
 * environment-details stamp before the next request (Roo, Kilo: the prompt
 * is written just after its request's message). Sums take the model of the
 * time they were written.
 */
function resolveModels(recs: Rec[], taskDir: string, d: ClassicDialect, sink: ExtractSink, file: string): void {
  if (recs.every((r) => r.model !== null || r.k === 'condense')) return;
  let stamps: ModelStamp[];
  if (d.models === 'task-metadata') {
    const t = taskMetadataModels(taskDir);
    if (t.problem) sink.warn(t.problem, { file });
    stamps = t.stamps;
  } else stamps = historyModelStamps(taskDir);
  if (!stamps.length) return;
  const reqTs = recs.filter((r) => r.k === 'req').map((r) => r.ts);
  for (const r of recs) {
    if (r.model !== null) continue;
    let limit = r.ts;
    if (d.models === 'history-stamps') {
      const next = reqTs.find((t) => t > r.ts);
      limit = next === undefined ? Infinity : next - 1;
    }
    let s: ModelStamp | undefined;
    for (const st of stamps) if (st.ts <= limit) s = st;
    s ??= stamps[0];
    r.model = s!.model;
    r.provider ??= s!.provider;
  }
}

/**
 * The records to count: those in the file, each request the memory holds
 * that has left it (kept, README "Deleted requests"), and for each message
 * summing deleted requests only what the memory does not account for: it
 * takes, in time order, the left records written before it.
 */
function settle(present: Rec[], prior: Rec[], sink: ExtractSink, held: ReadonlySet<string>): Rec[] {
  const here = new Set([...present.map((r) => `${r.k}:${r.ts}`), ...held]);
  const gone = prior.filter((r) => !here.has(`${r.k}:${r.ts}`)).sort((a, b) => a.ts - b.ts);
  if (gone.length)
    sink.count('requests kept from an earlier read (no longer in the file)', gone.filter((r) => r.k === 'req').length);
  const out: Rec[] = [...gone];
  let g = 0;
  for (const r of [...present].sort((a, b) => a.ts - b.ts)) {
    if (r.k !== 'sum') {
      out.push(r);
      continue;
    }
    const left = { ...r };
    for (; g < gone.length && gone[g]!.ts < r.ts; g++) {
      const x = gone[g]!;
      left.ti -= x.ti;
      left.to -= x.to;
      left.cw -= x.cw;
      left.cr -= x.cr;
      if (left.cost !== null) left.cost -= x.cost ?? 0;
    }
    left.ti = Math.max(0, left.ti);
    left.to = Math.max(0, left.to);
    left.cw = Math.max(0, left.cw);
    left.cr = Math.max(0, left.cr);
    // Float noise of summed costs.
    if (left.cost !== null && left.cost < 1e-9) left.cost = 0;
    if (left.ti + left.to + left.cw + left.cr < r.ti + r.to + r.cw + r.cr)
      sink.count('deleted requests already counted from an earlier read');
    left.inc = r.inc && left.ti >= left.cr + left.cw ? 1 : 0;
    out.push(left);
  }
  return out.sort((a, b) => a.ts - b.ts || a.k.localeCompare(b.k));
}
