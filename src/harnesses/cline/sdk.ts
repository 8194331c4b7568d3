// A Cline SDK session's `<stem>.messages.json` (Cline 4: the VS Code
// extension, the CLI and JetBrains all write sessions this way) → usage
// events (README.md "Cline SDK sessions"). Each assistant message carries
// its one model call's `metrics`; the document is rewritten whole, and a
// message that has left it is counted again from what this reader remembers.
import { readRegularBytes } from '../../io/regular-file.js';
import { basename, dirname, join } from 'node:path';
import { checkCost, checkTokenCount } from '../../core/numbers.js';
import type { UsageEvent, WorkUnitKind } from '../../core/types.js';
import { scanJsonArray, topLevelValue } from '../../io/json-array.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { RULE } from './rules.js';

/** What a read remembers of one counted message (to count it again should it leave the file). */
type Kept = [
  key: string,
  ts: number,
  input: number,
  cacheRead: number,
  cacheWrite: number,
  output: number,
  cost: number | null,
  model: string | null,
  provider: string | null,
  at: number,
];

interface SdkState {
  v: 1;
  kept: Kept[];
}

const ROLE_RE = /"role"\s*:\s*"(user|assistant)"/;
const HEAD_BYTES = 400;
const TOOL_RESULT = Buffer.from('"tool_result"');
const METRICS = Buffer.from('"metrics"');
const COMPACTION = Buffer.from('"compaction_summary"');

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

function has(buf: Buffer, needle: Buffer, start: number, end: number): boolean {
  const at = buf.indexOf(needle, start);
  return at >= 0 && at < end;
}

/** The session's manifest `<root>/<root>.json`: its working folder, model, and whether it is a fork. */
function manifestOf(
  dir: string,
  root: string,
): { cwd: string | null; model: string | null; provider: string | null; fork: boolean } {
  try {
    const m = JSON.parse(readRegularBytes(join(dir, `${root}.json`), 1 << 20).toString('utf8'));
    return {
      cwd: str(m?.cwd) ?? str(m?.workspace_root),
      model: str(m?.model),
      provider: str(m?.provider),
      fork: isObj(m?.metadata?.fork),
    };
  } catch {
    return { cwd: null, model: null, provider: null, fork: false };
  }
}

export async function extractSdkSession(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint> {
  const file = source.path;
  const dir = dirname(file);
  const root = basename(dir);
  const stem = basename(file).replace(/\.messages\.json$/, '');
  // A sub-agent's file sits in its root session's folder: its own session, the root its parent.
  const sessionId = stem;
  const man = manifestOf(dir, root);
  const prior =
    isObj(opts.prior) && opts.prior.v === 1 && Array.isArray(opts.prior.kept) ? (opts.prior as SdkState).kept : [];
  const rank = man.fork ? 1 : 0;
  const buf = readRegularBytes(file);
  const kept: Kept[] = [];
  const units: { kind: WorkUnitKind; ts: number; key: string; count: number }[] = [];
  let index = 0;

  const at = topLevelValue(buf, 'messages');
  // A bare array is read too (the SDK's own reader accepts one).
  const first = buf.toString('latin1', 0, 64).trimStart()[0];
  const start = at >= 0 ? at : first === '[' ? 0 : -1;
  const problem = start < 0 ? 'no messages list' : scanJsonArray(buf, (s, e) => onElement(s, e), start);

  function onElement(s: number, e: number): void {
    index++;
    const role = ROLE_RE.exec(buf.toString('latin1', s, Math.min(e, s + HEAD_BYTES)))?.[1];
    if (role === 'user') {
      // A prompt unless it carries tool results or a compaction summary (README "Units of work").
      if (has(buf, TOOL_RESULT, s, e) || has(buf, COMPACTION, s, e)) return;
      const m = parse(s, e);
      if (m && typeof m.ts === 'number') {
        const key = `sdk:${str(m.id) ?? `${sessionId}:${index}`}:${m.ts}`;
        // In a sub-agent's file the user messages are its parent agent's instructions.
        if (stem !== root) units.push({ kind: 'subagent_task', ts: m.ts, key, count: 1 });
        else units.push({ kind: 'prompt', ts: m.ts, key, count: 1 }, { kind: 'turn', ts: m.ts, key, count: 1 });
      }
      return;
    }
    if (role !== 'assistant' || !has(buf, METRICS, s, e)) return;
    const m = parse(s, e);
    if (!m || !isObj(m.metrics)) return;
    const loc = { file, row: `message ${index}` };
    if (m.metadata?.displayOnly === true) {
      sink.skip('display-only message (an error banner, no model call)', loc);
      return;
    }
    const ts = typeof m.ts === 'number' ? m.ts : null;
    if (ts === null) {
      sink.warn('assistant message without a usable ts skipped', loc);
      return;
    }
    const invalid: string[] = [];
    const tok = (f: string) => {
      const c = checkTokenCount(m.metrics[f]);
      if (!c.ok) invalid.push(`metrics.${f} ${c.reason}`);
      return c.value;
    };
    const total = tok('inputTokens');
    const cr = tok('cacheReadTokens');
    const cw = tok('cacheWriteTokens');
    const out = tok('outputTokens');
    if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, loc);
    let cost = m.metrics.cost === undefined ? null : checkCost(m.metrics.cost);
    if (cost === 0 && total + out > 0) cost = null; // no price known, not free (README "Cost")
    const tools = Array.isArray(m.content) ? m.content.filter((b: any) => b?.type === 'tool_use').length : 0;
    const key = `sdk:${str(m.id) ?? `${sessionId}:${index}`}:${ts}`;
    if (tools) units.push({ kind: 'tool_call', ts, key, count: tools });
    // inputTokens is the whole prompt, cache included (README "Input tokens").
    kept.push([
      key,
      ts,
      Math.max(0, total - cr - cw),
      cr,
      cw,
      out,
      cost,
      str(m.modelInfo?.id) ?? man.model,
      str(m.modelInfo?.provider) ?? man.provider,
      index,
    ]);
  }

  function parse(s: number, e: number): Record<string, any> | null {
    try {
      const m = JSON.parse(buf.toString('utf8', s, e));
      return isObj(m) ? m : null;
    } catch {
      sink.warn('message is not JSON; skipped', { file, row: `message ${index}` });
      return null;
    }
  }

  if (problem !== null) {
    sink.warn(
      `not a complete session messages file (${problem}); ${prior.length ? 'what the last read counted is kept' : 'nothing read'}`,
      { file },
    );
    for (const k of prior) sink.event(eventOf(k, RULE.kept));
    return { offset: buf.length, lines: 0, state: { v: 1, kept: prior } satisfies SdkState };
  }
  const here = new Set(kept.map((k) => k[0]));
  const gone = prior.filter((k) => !here.has(k[0]));
  if (gone.length) sink.count('messages kept from an earlier read (no longer in the file)', gone.length);
  for (const k of gone) sink.event(eventOf(k, RULE.kept));
  for (const k of kept) sink.event(eventOf(k, RULE.sdkCall));
  for (const u of units)
    sink.unit({
      harness: 'cline',
      session_id: sessionId,
      kind: u.kind,
      dedupe_key: u.key,
      dedupe_rank: rank,
      ts: u.ts,
      count: u.count,
    });
  if (stem !== root)
    sink.sessionFact({
      harness: 'cline',
      session_id: sessionId,
      title: null,
      title_rank: 0,
      parent_session_id: root,
      seq: 0,
    });
  return { offset: buf.length, lines: index, state: { v: 1, kept: [...gone, ...kept] } satisfies SdkState };

  function eventOf(k: Kept, rule: string): UsageEvent {
    return {
      harness: 'cline',
      session_id: sessionId,
      project: man.cwd,
      model: k[7],
      provider: k[8],
      ts: k[1],
      dedupe_key: k[0],
      // A fork copies its source's messages with their ids: the source keeps the credit.
      dedupe_rank: rank,
      requests: 1,
      input_tokens: k[2],
      cache_read_tokens: k[3],
      cache_write_tokens: k[4],
      cache_write_5m_tokens: null,
      cache_write_1h_tokens: null,
      output_tokens: k[5],
      reasoning_tokens: 0,
      recorded_cost_usd: k[6],
      source_file: file,
      source_line: k[9],
      rule,
    };
  }
}
