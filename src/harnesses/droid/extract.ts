// Factory Droid `<id>.settings.json` → one usage row per session, of grain
// `session` (README.md beside this file has every rule and its evidence):
// Droid keeps no per-call usage on disk, only the session's running totals
// (`tokenUsage`), rewritten in place. The row is placed at the session's
// last activity (the latest message time in `<id>.jsonl`), keyed by the
// session id so that a rewritten snapshot replaces it and a second file of
// the same session counts once.
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkTokenCount, parseTimestamp } from '../../core/numbers.js';
import type { SessionFact, UsageEvent } from '../../core/types.js';
import { readJsonFile } from '../../io/json-file.js';
import { scanJsonlFile } from '../../io/jsonl.js';
import { kindOf } from '../../io/observed-fs.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { DROID_MARKERS, RULE } from './rules.js';

/** billing_kind of a session whose Factory credits Droid recorded (request_units holds them). */
export const CREDITS_KIND = 'factory-credits';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

interface Transcript {
  /** Prompts typed (README "Units of work"): a user message with text that is not a system reminder. */
  prompts: { id: string; ts: number }[];
  lastTs: number | null;
  cwd: string | null;
  title: string | null;
  /** The model the last system reminder names (`Model: …`), for a session whose settings name none (README "Model"). */
  model: string | null;
}

/** `Model: <name>` on a line of a system reminder (ccusage parser.rs extract_droid_model_from_line; tokscale droid.rs). */
const REMINDER_MODEL = /^[ \t]*Model:[ \t]*(\S[^\n]*?)[ \t]*$/m;

async function readTranscript(file: string, sink: ExtractSink): Promise<Transcript> {
  const out: Transcript = { prompts: [], lastTs: null, cwd: null, title: null, model: null };
  if (kindOf(file) !== 'file') return out;
  await scanJsonlFile(file, { markers: DROID_MARKERS }, sink, (rec) => {
    if (rec.type === 'session_start') {
      out.cwd ??= text(rec.cwd);
      out.title ??= text(rec.sessionTitle) ?? text(rec.title);
    }
    const ts = parseTimestamp(rec.timestamp);
    if (ts !== null && (out.lastTs === null || ts > out.lastTs)) out.lastTs = ts;
    const m = rec.type === 'message' && isObject(rec.message) ? rec.message : null;
    if (
      ts !== null &&
      m?.role === 'user' &&
      Array.isArray(m.content) &&
      m.content.some(
        (b: unknown) =>
          isObject(b) &&
          b.type === 'text' &&
          typeof b.text === 'string' &&
          !b.text.trimStart().startsWith('<system-reminder>'),
      )
    ) {
      out.prompts.push({ id: text(rec.id) ?? String(ts), ts });
    }
    // Only the model's name is taken from a reminder; nothing else of its text is kept.
    if (m?.role === 'user' && Array.isArray(m.content)) {
      for (const b of m.content) {
        if (
          !isObject(b) ||
          b.type !== 'text' ||
          typeof b.text !== 'string' ||
          !b.text.trimStart().startsWith('<system-reminder>')
        )
          continue;
        const found = REMINDER_MODEL.exec(b.text);
        if (found) out.model = found[1]!;
      }
    }
  });
  return out;
}

/** The session's own usage (README "What counts"), and the rule that chose it; null: none. */
function ownUsage(doc: Record<string, unknown>): { u: Record<string, unknown>; rule: string } | null {
  if (isObject(doc.tokenUsage)) return { u: doc.tokenUsage, rule: RULE.tokenUsage };
  const children = doc.childInclusiveTokenUsageBySessionId;
  const noChildren =
    children === undefined || children === null || (isObject(children) && Object.keys(children).length === 0);
  if (isObject(doc.inclusiveTokenUsage) && noChildren) return { u: doc.inclusiveTokenUsage, rule: RULE.inclusiveOnly };
  return null;
}

export async function extractDroid(
  source: SourceRef,
  sink: ExtractSink,
  _opts: ExtractOptions,
): Promise<ResumePoint | null> {
  const file = source.path;
  const doc = readJsonFile(file, sink);
  if (doc === null) return null;
  if (!isObject(doc)) {
    sink.warn('not a JSON object; nothing read from it', { file });
    return null;
  }
  const session = source.meta?.session ?? file;
  const transcript = await readTranscript(join(dirname(file), `${session}.jsonl`), sink);
  for (const p of transcript.prompts)
    sink.unit({
      harness: 'droid',
      session_id: session,
      kind: 'prompt',
      dedupe_key: `droid:${session}:${p.id}`,
      dedupe_rank: 0,
      ts: p.ts,
      count: 1,
    });
  const parent = Array.isArray(doc.tags)
    ? (doc.tags
        .map((t) => (isObject(t) && isObject(t.metadata) ? text(t.metadata.callingSessionId) : null))
        .find((p) => p !== null) ?? null)
    : null;
  if (transcript.title !== null || parent !== null) {
    const fact: SessionFact = {
      harness: 'droid',
      session_id: session,
      title: transcript.title,
      title_rank: 0,
      parent_session_id: parent,
      seq: 0,
    };
    sink.sessionFact(fact);
  }
  const own = ownUsage(doc);
  if (own === null) {
    sink.skip(
      isObject(doc.inclusiveTokenUsage)
        ? 'only inclusiveTokenUsage, which holds child sessions counted in their own files'
        : 'no tokenUsage',
      { file },
    );
    return null;
  }
  const invalid: string[] = [];
  const tok = (k: string) => {
    const ck = checkTokenCount(own.u[k] ?? undefined);
    if (!ck.ok) invalid.push(`${k} ${ck.reason}`);
    return ck.value;
  };
  const input = tok('inputTokens');
  const output = tok('outputTokens');
  const cacheWrite = tok('cacheCreationTokens');
  const cacheRead = tok('cacheReadTokens');
  const thinking = tok('thinkingTokens');
  if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, { file });
  if (input + output + cacheWrite + cacheRead + thinking === 0) {
    sink.skip('session without tokens (all counters 0)', { file });
    return null;
  }
  // README "Model": the settings' alias, else the last model the transcript's reminders name.
  const settingsModel = text(doc.model);
  const model = settingsModel ?? transcript.model;
  const rule =
    settingsModel === null && model !== null
      ? own.rule === RULE.tokenUsage
        ? RULE.tokenUsageTranscriptModel
        : RULE.inclusiveOnlyTranscriptModel
      : own.rule;
  // README "Time": the last message of the transcript, else when the snapshot was last written.
  const ts = transcript.lastTs ?? Math.floor(statSync(file).mtimeMs);
  const credits =
    typeof own.u.factoryCredits === 'number' && Number.isFinite(own.u.factoryCredits) && own.u.factoryCredits > 0
      ? own.u.factoryCredits
      : null;
  const ev: UsageEvent = {
    harness: 'droid',
    session_id: session,
    project: transcript.cwd,
    model,
    provider: null,
    ts,
    dedupe_key: `droid:${session}`,
    dedupe_rank: 0,
    // A session's total: how many responses it holds is not recorded.
    requests: 0,
    input_tokens: input,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    cache_write_5m_tokens: null,
    cache_write_1h_tokens: null,
    // README "Tokens": thinking is counted on top of output, as every peer prices it.
    output_tokens: output + thinking,
    reasoning_tokens: thinking,
    recorded_cost_usd: null,
    source_file: file,
    source_line: null,
    billing_kind: credits === null ? null : CREDITS_KIND,
    request_units: credits,
    grain: 'session',
    rule,
  };
  sink.event(ev);
  return null;
}
