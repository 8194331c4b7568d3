// Pi session file → usage events. Rules from the contract entry `pi` (see
// README.md beside this file for the full list and the ambiguity choices).
// The same reader serves harnesses that write pi's session format through
// pi's own SessionManager (OpenClaw): they pass a PiDialect saying what
// differs (their id, what else names a model, what is not a billed response).
import { scanJsonlFile, scanJsonlZstFile, type ScanOptions } from '../../io/jsonl.js';
import { checkCost, parseTimestamp, readTokenFields } from '../../core/numbers.js';
import type { HarnessId, UsageEvent } from '../../core/types.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { projectFromDirKey } from './paths.js';
import { digest128 } from '../../core/digest.js';
import { usageObjectPath } from '../../core/usage-object.js';
import { RULE } from './rules.js';

/**
 * Skip reasons (README.md): a file an extension wrote below a session's
 * folder without a pi session header is a debug copy of responses another
 * file holds (pi-subagents' `subagent-artifacts/*_transcript.jsonl`,
 * ccusage#1698, PiDeck#168); a usage object that is no carrier's sits in
 * tool or extension data.
 */
export const SKIP_DEBUG_COPY = "usage in a nested file without a pi session header (an extension's debug copy)";
export const SKIP_TOOL_DATA = 'usage object in tool or extension data (not a usage carrier)';

/**
 * Only lines holding one of these are parsed: every usage carrier has a
 * `"usage"` key (assistant/toolResult message.usage, usage entries,
 * compaction.usage, branch_summary.usage); model_change names a model; the
 * header is `{"type":"session",...}`. All other lines are tree nodes we only
 * need the parent link of, read from their first/last bytes (see HEAD_RE).
 */
export const MARKERS = ['"usage"', '"model_change"', '"session"'];

/**
 * The parent link of an unmarked line is read from its edges. pi builds most
 * entries as {type, id, parentId, timestamp, ...} (session-manager.ts; fork
 * copies keep the key order), but custom and custom_message entries put
 * id/parentId/timestamp LAST, after their (possibly large) payload. A line
 * matching neither is unknown to the tree (see ModelTree.add).
 */
const PEEK_BYTES = 256;
const HEAD_RE = /^\{"type":"[^"\\]*","id":"([^"\\]+)","parentId":(?:null|"([^"\\]+)")/;
const TAIL_RE = /"id":"([^"\\]+)","parentId":(?:null|"([^"\\]+)"),"timestamp":"[^"\\]*"\}$/;

/**
 * Units of work from the same edges (README "Units of work"): a user message
 * entry is a prompt (its envelope and role lead the line; its own
 * message.timestamp ends it), a session_info entry names the session (its
 * name ends the line).
 */
const USER_HEAD_RE =
  /^\{"type":"message","id":"([^"\\]+)","parentId":(?:null|"[^"\\]*"),"timestamp":"([^"\\]+)","message":\{"role":"user"/;
const USER_HEAD_V1_RE = /^\{"type":"message","timestamp":"([^"\\]+)","message":\{"role":"user"/;
const MSG_TS_TAIL_RE = /"timestamp":(\d+)\}\}$/;
const SESSION_INFO_HEAD = '{"type":"session_info",';
const NAME_TAIL_RE = /,"name":("(?:[^"\\]|\\.)*")\}$/;

/** Entry ids remembered for model inheritance (oldest forgotten first), in a scan and in ResumePoint.state. */
export const MAX_TRACKED_ENTRIES = 10_000;

const USAGE_FIELDS = {
  input: 'input',
  output: 'output',
  cacheRead: 'cacheRead',
  cacheWrite: 'cacheWrite',
  cacheWrite1h: 'cacheWrite1h',
  reasoning: 'reasoning',
} as const;

/** What survives between incremental reads of one file. JSON-serializable and bounded. */
export interface PiState {
  sessionId: string;
  project: string | null;
  /** Header has parentSession: a /fork, /clone or forkFrom() copy. */
  copy: boolean;
  /** Header version (absent = 1: linear, no ids). */
  version: number;
  /** A nested file whose first line is no session header: nothing in it counts. */
  debugCopy?: boolean;
  /** (model, provider) pairs referenced below. */
  models: [string, string | null][];
  /** Latest model named in file order, index into models or -1. */
  lastModel: number;
  /** Parallel arrays: entry id → index of the model it resolves to (-1 none), oldest first. */
  ids: string[];
  resolved: number[];
}

/** Working form of PiState during a scan. */
class ModelTree {
  private models: [string, string | null][] = [];
  private modelIndex = new Map<string, number>();
  private byId = new Map<string, number>();
  lastModel = -1;

  static from(s: PiState | null): ModelTree {
    const t = new ModelTree();
    if (!s) return t;
    s.models.forEach(([m, p]) => t.intern(m, p));
    t.lastModel = s.lastModel;
    s.ids.forEach((id, i) => t.byId.set(id, s.resolved[i] ?? -1));
    return t;
  }

  intern(model: string, provider: string | null): number {
    const k = `${model}\u0000${provider ?? ''}`;
    let i = this.modelIndex.get(k);
    if (i === undefined) {
      i = this.models.length;
      this.models.push([model, provider]);
      this.modelIndex.set(k, i);
    }
    return i;
  }

  model(i: number): [string, string | null] | null {
    return i >= 0 ? (this.models[i] ?? null) : null;
  }

  /**
   * Records an entry and returns the model it resolves to: its own, else its
   * parent's (parents always precede children in the file). A root has no
   * ancestor (-1); an unknown parent (undefined: v1 linear files, or an id we
   * never saw or already forgot) falls back to the latest model named earlier
   * in the file.
   */
  add(id: string | null, parentId: string | null | undefined, own: number): number {
    let r = own;
    if (r < 0 && parentId !== null)
      r = (parentId !== undefined ? this.byId.get(parentId) : undefined) ?? this.lastModel;
    if (own >= 0) this.lastModel = own;
    if (id !== null) {
      this.byId.delete(id);
      this.byId.set(id, r);
      if (this.byId.size > MAX_TRACKED_ENTRIES) this.byId.delete(this.byId.keys().next().value!);
    }
    return r;
  }

  toState(base: Omit<PiState, 'models' | 'lastModel' | 'ids' | 'resolved'>): PiState {
    // Keep only models still referenced, renumbered.
    const keep = new Map<number, number>();
    const models: [string, string | null][] = [];
    const remap = (i: number) => {
      if (i < 0) return -1;
      let j = keep.get(i);
      if (j === undefined) {
        j = models.length;
        models.push(this.models[i]!);
        keep.set(i, j);
      }
      return j;
    };
    const ids: string[] = [];
    const resolved: number[] = [];
    for (const [id, r] of this.byId) {
      ids.push(id);
      resolved.push(remap(r));
    }
    return { ...base, models, lastModel: remap(this.lastModel), ids, resolved };
  }
}

/**
 * What a harness writing pi's session format does differently. Pi's own
 * dialect (PI_DIALECT) changes nothing.
 */
export interface PiDialect {
  harness: HarnessId;
  /** Lines holding one of these are parsed too (besides usage, model_change and the header). */
  markers: readonly string[];
  /** A model a record names for its descendants besides assistant messages and model_change (OpenClaw's model-snapshot). */
  namesModel?(rec: Record<string, any>): [string, string | null] | null;
  /** The skip reason when an assistant message with usage is not a billed response (OpenClaw's delivery mirrors), else null. Such a message names no model. */
  notBilled?(message: Record<string, any>): string | null;
  /** Every record of the source is a copy of one another file holds (dedupe_rank 1), e.g. a backup. */
  copyOf?(source: SourceRef): boolean;
}

export const PI_DIALECT: PiDialect = { harness: 'pi', markers: [] };

/** The lines a dialect's reader parses: pi's markers and its own. */
export function dialectMarkers(d: PiDialect): readonly string[] {
  return d.markers.length ? [...MARKERS, ...d.markers] : MARKERS;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where one counted usage object sits, for dedupe, model and the `sources` counters. */
interface Carrier {
  what: string;
  usage: unknown;
  /** Model named by the record itself (assistant message, usage entry). */
  model: string | null;
  provider: string | null;
  /** message.timestamp (Unix ms) for message entries: copied verbatim into forks. */
  msgTs: unknown;
}

function carrierOf(rec: Record<string, any>): Carrier | null {
  switch (rec.type) {
    case 'message': {
      const m = rec.message;
      if (!isObj(m)) return null;
      if (m.role === 'assistant') {
        const what =
          m.stopReason === 'error' ? RULE.errored : m.stopReason === 'aborted' ? RULE.aborted : RULE.response;
        return { what, usage: m.usage, model: str(m.model), provider: str(m.provider), msgTs: m.timestamp };
      }
      // Nested model work done by a tool (message.usage only; details are tool UI data).
      if (m.role === 'toolResult' && m.usage !== undefined)
        return { what: RULE.toolNested, usage: m.usage, model: null, provider: null, msgTs: m.timestamp };
      return null;
    }
    case 'usage':
      // Open-ended kind (cache_warm, extensions): unknown kinds count as normal usage.
      return {
        what: RULE.usageEntry,
        usage: rec.usage,
        model: str(rec.model),
        provider: str(rec.provider),
        msgTs: undefined,
      };
    case 'compaction':
    case 'branch_summary':
      return rec.usage === undefined
        ? null
        : {
            what: rec.type === 'compaction' ? RULE.compaction : RULE.branchSummary,
            usage: rec.usage,
            model: null,
            provider: null,
            msgTs: undefined,
          };
    default:
      return null;
  }
}

export async function extractPi(source: SourceRef, sink: ExtractSink, opts: ExtractOptions): Promise<ResumePoint> {
  return (await extractPiSession(source, sink, opts, PI_DIALECT))!;
}

/** Reads one file in pi's session format; null for a compressed (`.jsonl.zst`) file, which cannot be resumed. */
export async function extractPiSession(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
  d: PiDialect,
): Promise<ResumePoint | null> {
  const file = source.path;
  const harness = d.harness;
  const markedCopy = d.copyOf?.(source) ?? false;
  const meta = source.meta ?? {};
  const prev = (opts.resume?.state as PiState | undefined) ?? null;
  const tree = ModelTree.from(prev);
  const info = {
    sessionId: prev?.sessionId ?? meta.sessionId ?? 'unknown',
    project: prev ? prev.project : meta.dirKey ? projectFromDirKey(meta.dirKey) : null,
    copy: prev?.copy ?? markedCopy,
    version: prev?.version ?? 3,
    debugCopy: prev?.debugCopy ?? false,
  };
  // Below a session's folder (paths.ts): a session of its own only with a header.
  const nested = meta.nested === '1';
  // A resumed read already saw line 1.
  let headerChecked = prev !== null || (opts.resume?.lines ?? 0) > 0;
  const checkHeader = (line: number, rec: Record<string, any> | null) => {
    if (headerChecked) return;
    headerChecked = true;
    // The first line is the header (blank or unparsable lines before it are tolerated).
    if (rec && rec.type === 'session') {
      if (str(rec.id)) info.sessionId = rec.id;
      if (str(rec.cwd)) info.project = rec.cwd; // very old files may lack it: keep the dir-name fallback
      info.copy = markedCopy || (typeof rec.parentSession === 'string' && rec.parentSession.length > 0);
      info.version = typeof rec.version === 'number' ? rec.version : 1;
    } else if (nested) {
      info.debugCopy = true;
    } else {
      sink.warn('no session header before the first entry; session id taken from the file name', { file, line });
    }
  };
  /** A debug copy's line: named when it carries a usage object (byte test: `"usage":{` occurs only as a key), never parsed. */
  const debugLine = (text: string, line: number): boolean => {
    if (!info.debugCopy) return false;
    if (text.includes('"usage":{')) sink.skip(SKIP_DEBUG_COPY, { file, line });
    return true;
  };

  // Units of work: a prompt is also the turn it starts (pi records no turn
  // ends). In a nested session (an extension's subagent) the user messages
  // are the tasks its parent agent wrote, not a person's prompts.
  const rank = () => (info.copy ? 1 : 0);
  const promptKinds = nested ? (['subagent_task'] as const) : (['prompt', 'turn'] as const);
  let name: { title: string; line: number } | null = null;
  const onUnmarked = (head: string, tail: string, line: number) => {
    const u = USER_HEAD_RE.exec(head);
    const v1 = u ? null : USER_HEAD_V1_RE.exec(head);
    if (u || v1) {
      const ts = parseTimestamp(u ? u[2] : v1![1]);
      if (ts === null) return;
      // As for usage: message.timestamp is copied verbatim into forks, ids are only 8 hex.
      const key = u ? `entry:${u[1]}:${MSG_TS_TAIL_RE.exec(tail)?.[1] ?? ts}` : `v1:${info.sessionId}:${line}`;
      for (const kind of promptKinds)
        sink.unit({ harness, session_id: info.sessionId, kind, dedupe_key: key, dedupe_rank: rank(), ts, count: 1 });
      return;
    }
    if (head.startsWith(SESSION_INFO_HEAD)) {
      // The latest entry wins; one without a name clears it ('').
      const n = NAME_TAIL_RE.exec(tail);
      let title = '';
      try {
        title = n ? String(JSON.parse(n[1]!)).trim() : '';
      } catch {
        return;
      }
      name = { title, line };
    }
  };

  const scanOpts: ScanOptions = {
    markers: dialectMarkers(d),
    resume: opts.resume,
    beforeParse: debugLine,
    unmarkedPeek: {
      bytes: PEEK_BYTES,
      onPeek: (head, tail, line) => {
        checkHeader(line, null);
        if (info.debugCopy) return;
        const m = HEAD_RE.exec(head) ?? TAIL_RE.exec(tail);
        if (m) tree.add(m[1]!, m[2] ?? null, -1);
        onUnmarked(head, tail, line);
      },
    },
  };
  const onRecord = (rec: Record<string, any>, line: number) => {
    checkHeader(line, rec);
    const at = { file, line };
    if (info.debugCopy) {
      if (usageObjectPath(rec) !== null) sink.skip(SKIP_DEBUG_COPY, at);
      return;
    }
    if (rec.type === 'session') return;
    const id = str(rec.id);
    // v1 files have no id/parentId: the tree is the line order, so the
    // nearest ancestor is the previous entry (parent = "unknown" → lastModel).
    const parentId = id === null ? undefined : rec.parentId === null ? null : (str(rec.parentId) ?? undefined);

    const c = carrierOf(rec);
    // An assistant message the dialect says was not billed is transparent.
    const notBilled =
      c && rec.type === 'message' && rec.message.role === 'assistant' && d.notBilled ? d.notBilled(rec.message) : null;
    let own = -1;
    if (rec.type === 'model_change' && str(rec.modelId)) own = tree.intern(rec.modelId, str(rec.provider));
    const snapshot = d.namesModel?.(rec);
    if (snapshot) own = tree.intern(snapshot[0], snapshot[1]);
    // Only assistant messages and model_change name the model for
    // descendants; a usage entry names its own model but is transparent.
    if (c && c.model && rec.type === 'message' && notBilled === null) own = tree.intern(c.model, c.provider);
    const resolved = tree.add(id, parentId, own);
    if (!c) {
      // e.g. a tool's details.usage, an extension's custom entry: named, not counted.
      if (usageObjectPath(rec) !== null) sink.skip(SKIP_TOOL_DATA, at);
      return;
    }
    if (notBilled !== null) {
      sink.skip(notBilled, { file, line });
      return;
    }

    if (!isObj(c.usage)) {
      if (c.usage !== undefined) sink.warn(`${c.what}: usage is not an object; not counted`, at);
      else sink.skip(`${c.what} without usage`, at);
      return;
    }
    const ts = parseTimestamp(rec.timestamp) ?? parseTimestamp(c.msgTs);
    if (ts === null) {
      sink.warn(`${c.what} without a usable timestamp skipped`, at);
      return;
    }
    const { values: u, invalid } = readTokenFields(c.usage, USAGE_FIELDS);
    if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, at);

    // cacheWrite1h is the 1-hour share of cacheWrite; the rest is 5-minute.
    let w1h: number | null = null;
    let w5m: number | null = null;
    if (
      c.usage.cacheWrite1h !== undefined &&
      c.usage.cacheWrite1h !== null &&
      !invalid.some((s) => s.startsWith('cacheWrite1h'))
    ) {
      if (u.cacheWrite1h > u.cacheWrite) sink.warn('usage.cacheWrite1h exceeds cacheWrite; capped at cacheWrite', at);
      w1h = Math.min(u.cacheWrite1h, u.cacheWrite);
      w5m = u.cacheWrite - w1h;
    }

    let cost: number | null = null;
    if (isObj(c.usage.cost) && c.usage.cost.total !== undefined && c.usage.cost.total !== null) {
      cost = checkCost(c.usage.cost.total);
      if (cost === null) sink.warn('usage.cost.total is not a valid USD amount; cost not recorded', at);
      // pi writes cost 0 for models missing from its catalogue: a zero for
      // billed tokens means "unknown", not "free", so computed prices apply.
      else if (cost === 0 && u.input + u.output + u.cacheRead + u.cacheWrite > 0) cost = null;
    } else if (c.usage.cost !== undefined && !isObj(c.usage.cost)) {
      sink.warn('usage.cost is not an object; cost not recorded', at);
    }

    // Model: the record's own, else the nearest ancestor's; no ancestor
    // naming one → the latest model named earlier in the file.
    if (!c.model && resolved < 0 && tree.lastModel >= 0)
      sink.count('pi: model taken from file order (no ancestor names one)');
    const inherited = tree.model(resolved >= 0 ? resolved : tree.lastModel);
    const model = c.model ?? inherited?.[0] ?? null;
    const provider = c.model ? c.provider : (inherited?.[1] ?? null);

    // Identity of the billed response across files: fork/clone copies keep
    // entry ids and timestamps; ids alone (8 hex) repeat across sessions.
    let dedupeKey: string;
    if (id !== null) {
      const idTs = (rec.type === 'message' ? parseTimestamp(c.msgTs) : null) ?? ts;
      dedupeKey = `entry:${id}:${idTs}`;
    } else if (rec.type === 'message' && parseTimestamp(c.msgTs) !== null) {
      // README "Entries without an id": the same line written twice (OpenClaw,
      // ccusage's deduplicates_repeated_openclaw_records) is one response:
      // known by its session, its own millisecond timestamp, model and usage.
      dedupeKey = `same:${info.sessionId}:${parseTimestamp(c.msgTs)}:${digest128(JSON.stringify([model, provider, c.usage]))}`;
      sink.count(`${harness}: entries without an id, known by their time and usage`);
    } else if (info.version < 2) {
      // v1 is append-only and linear: the line is stable; the file is never rewritten by us.
      dedupeKey = `v1:${info.sessionId}:${line}`;
    } else {
      sink.warn(`${c.what} without an entry id; keyed by file and line`, at);
      dedupeKey = `line:${source.key}:${line}`;
    }

    if (c.what !== 'response') sink.count(`${harness}: counted ${c.what}`);
    // The response's tool calls (toolCall content blocks), once with it: keyed like it.
    const toolCalls =
      rec.type === 'message' && rec.message?.role === 'assistant' && Array.isArray(rec.message.content)
        ? rec.message.content.filter((b: any) => b && b.type === 'toolCall').length
        : 0;
    if (toolCalls > 0)
      sink.unit({
        harness,
        session_id: info.sessionId,
        kind: 'tool_call',
        dedupe_key: dedupeKey,
        dedupe_rank: rank(),
        ts,
        count: toolCalls,
      });
    const ev: UsageEvent = {
      harness,
      session_id: info.sessionId,
      project: info.project,
      model,
      provider,
      ts,
      dedupe_key: dedupeKey,
      // Fork/clone copies lose ties so the original session keeps the credit.
      dedupe_rank: info.copy ? 1 : 0,
      requests: 1,
      input_tokens: u.input,
      cache_read_tokens: u.cacheRead,
      cache_write_tokens: u.cacheWrite,
      cache_write_5m_tokens: w5m,
      cache_write_1h_tokens: w1h,
      output_tokens: u.output,
      reasoning_tokens: Math.min(u.reasoning, u.output),
      recorded_cost_usd: cost,
      source_file: file,
      source_line: line,
      // README "What counts": the carrier's row (an entry without an id: README "Entries without an id").
      rule: dedupeKey.startsWith('same:') ? RULE.noId : c.what,
    };
    sink.event(ev);
  };
  const scanned =
    source.kind === 'jsonl.zst'
      ? (await scanJsonlZstFile(file, { ...scanOpts, resume: null }, sink, onRecord), null)
      : await scanJsonlFile(file, scanOpts, sink, onRecord);
  const named = name as { title: string; line: number } | null;
  if (named)
    sink.sessionFact({
      harness,
      session_id: info.sessionId,
      title: named.title,
      title_rank: 0,
      parent_session_id: null,
      seq: named.line,
    });
  return scanned ? { ...scanned, state: tree.toState(info) } : null;
}
