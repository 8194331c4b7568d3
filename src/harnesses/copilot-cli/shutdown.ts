// Copilot CLI's `session-state/<id>/events.jsonl` → session-grain usage from
// its `session.shutdown` summaries, read only where a root has no
// session-store.db (README.md beside this file, "Shutdown summaries"). Each
// summary holds, per model, the usage of the process that exited: per leg
// (older CLIs, no `eventsFileSizeBytes`) or cumulative over the session's legs
// (newer CLIs, `eventsFileSizeBytes` set). A cumulative summary counts what it
// adds to the one before; a successful compaction, or a counter lower than the
// one before, starts the running totals again (codeburn copilot.ts:935-953;
// TracePilot aggregate.rs:60-87). Only clean exits write a summary.
import { checkTokenCount, parseTimestamp } from '../../core/numbers.js';
import type { UsageEvent } from '../../core/types.js';
import { scanJsonlFile } from '../../io/jsonl.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { RULE, SHUTDOWN_MARKERS } from './rules.js';

const KEYS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const;
type Counts = Record<(typeof KEYS)[number], number>;

/** Carried across appends: the last cumulative summary's counts per model, and the shutdowns seen. */
interface State {
  prev: Record<string, Counts>;
  n: number;
  /** session.start's context.cwd: the project. */
  cwd: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export async function extractCopilotShutdowns(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  const file = source.path;
  const session = source.meta?.session ?? file;
  const state: State = (opts.resume?.state as State | undefined) ?? { prev: {}, n: 0, cwd: null };
  const done = await scanJsonlFile(file, { markers: SHUTDOWN_MARKERS, resume: opts.resume }, sink, (rec, line) => {
    if (rec?.type === 'session.start' || rec?.type === 'session.resume') {
      const cwd = isObject(rec.data) && isObject(rec.data.context) ? rec.data.context.cwd : null;
      if (typeof cwd === 'string' && cwd) state.cwd = cwd;
      return;
    }
    if (rec?.type === 'session.compaction_complete') {
      // A successful compaction resets the running totals (codeburn copilot.ts:935-953, CLI 1.0.78).
      if (!isObject(rec.data) || rec.data.success !== false) state.prev = {};
      return;
    }
    if (rec?.type !== 'session.shutdown' || !isObject(rec.data)) return;
    const ts = parseTimestamp(rec.timestamp);
    if (ts === null) {
      sink.warn('session.shutdown without a valid timestamp; not counted', { file, line });
      return;
    }
    const metrics = isObject(rec.data.modelMetrics) ? rec.data.modelMetrics : {};
    const cumulative = rec.data.eventsFileSizeBytes !== undefined;
    const n = state.n++;
    for (const [model, m] of Object.entries(metrics)) {
      const u = isObject(m) && isObject(m.usage) ? m.usage : {};
      const now = Object.fromEntries(KEYS.map((k) => [k, checkTokenCount(u[k] ?? undefined).value])) as Counts;
      const before = cumulative ? state.prev[model] : undefined;
      // A counter below the last summary's: a new run of totals (a reset we did not see), counted whole.
      const fresh = !before || KEYS.some((k) => now[k] < before[k]);
      const d = Object.fromEntries(KEYS.map((k) => [k, fresh ? now[k] : now[k] - before![k]])) as Counts;
      if (cumulative) state.prev[model] = now;
      const cacheRead = d.cacheReadTokens;
      const cacheWrite = d.cacheWriteTokens;
      // inputTokens includes both cache buckets, as the store's rows (README "Tokens").
      const input = Math.max(0, d.inputTokens - cacheRead - cacheWrite);
      if (input + cacheRead + cacheWrite + d.outputTokens === 0) continue;
      const ev: UsageEvent = {
        harness: 'copilot-cli',
        session_id: session,
        project: state.cwd,
        model,
        provider: null,
        ts,
        dedupe_key: `copilot:${session}:shutdown:${n}:${model}`,
        dedupe_rank: 0,
        // A summary's share of a session: as every session total, it adds no requests.
        requests: 0,
        input_tokens: input,
        cache_read_tokens: cacheRead,
        cache_write_tokens: cacheWrite,
        cache_write_5m_tokens: null,
        cache_write_1h_tokens: null,
        output_tokens: d.outputTokens,
        reasoning_tokens: Math.min(d.reasoningTokens, d.outputTokens),
        recorded_cost_usd: null,
        source_file: file,
        source_line: line,
        billing_kind: null,
        request_units: null,
        grain: 'session',
        rule: cumulative ? RULE.shutdownCumulative : RULE.shutdownLeg,
      };
      sink.event(ev);
    }
  });
  return { ...done, state };
}
