// A Grok Build session's updates.jsonl → usage events, one per (prompt, model)
// of each `turn_completed` update (README.md beside this file has every rule
// and its evidence). Lines: `{"timestamp": <s>, "method": "...session/update",
// "params": {"update": {"sessionUpdate": "turn_completed", "prompt_id", "usage": PromptUsage}}}`.
// Appended to only: read from the resume point.
import { join } from 'node:path';
import { parseTimestamp, readTokenFields } from '../../core/numbers.js';
import { readJsonFile } from '../../io/json-file.js';
import { scanJsonlFile } from '../../io/jsonl.js';
import { isFile } from '../roots.js';
import type { ExtractOptions, ExtractSink, ResumePoint, SourceRef } from '../types.js';
import { RULE } from './rules.js';

import { MARKERS } from './markers.js';
const FIELDS = {
  input: 'inputTokens',
  output: 'outputTokens',
  cacheRead: 'cachedReadTokens',
  cacheWrite: 'cacheCreationTokens',
  reasoning: 'reasoningTokens',
} as const;
/** costUsdTicks: 10^10 ticks to the dollar (grok notification.rs:73-78). */
const TICKS_PER_USD = 1e10;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const isObj = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);

export async function extractGrok(
  source: SourceRef,
  sink: ExtractSink,
  opts: ExtractOptions,
): Promise<ResumePoint | null> {
  const file = source.path;
  const sessionDir = source.meta!.sessionDir!;
  const summaryFile = join(sessionDir, 'summary.json');
  const summary = isFile(summaryFile) ? readJsonFile(summaryFile, sink) : null;
  const s = isObj(summary) ? summary : {};
  const session = str(s.info?.id) ?? source.meta!.session!;
  const project = str(s.info?.cwd) ?? str(s.git_root_dir);
  const title = str(s.generated_title);
  if (title)
    sink.sessionFact({ harness: 'grok', session_id: session, title, title_rank: 0, parent_session_id: null, seq: 0 });
  const currentModel = str(s.current_model_id);
  // A fork (or restore) copies its parent's updates verbatim (README "Forks"): its copies rank after.
  const rank = str(s.parent_session_id) ? 1 : 0;
  const child = source.meta!.subagentChild === '1';

  return scanJsonlFile(file, { markers: MARKERS, resume: opts.resume }, sink, (rec, line) => {
    const u = rec.params?.update;
    if (!isObj(u) || u.sessionUpdate !== 'turn_completed') return;
    const at = { file, line };
    const ts = typeof rec.timestamp === 'number' ? parseTimestamp(rec.timestamp * 1000) : parseTimestamp(rec.timestamp);
    if (ts === null) {
      sink.warn('turn_completed without a usable timestamp; not counted', at);
      return;
    }
    const prompt = str(u.prompt_id);
    if (prompt !== null && !child) {
      sink.unit({
        harness: 'grok',
        session_id: session,
        kind: 'prompt',
        dedupe_key: `grok:${prompt}`,
        dedupe_rank: rank,
        ts,
        count: 1,
      });
      sink.unit({
        harness: 'grok',
        session_id: session,
        kind: 'turn',
        dedupe_key: `grok:${prompt}`,
        dedupe_rank: rank,
        ts,
        count: 1,
      });
    }
    const usage = u.usage;
    if (!isObj(usage)) return; // a turn that ended before any model call
    if (child) {
      // README "Sub-agents": the parent's turn already holds the child's usage.
      sink.skip("sub-agent session's turn (its usage is in the parent's turn)", at);
      return;
    }
    const incomplete = usage.usageIsIncomplete === true;
    const perModel: [string | null, Record<string, unknown>, string][] = isObj(usage.modelUsage)
      ? Object.entries(usage.modelUsage)
          .filter((e): e is [string, Record<string, unknown>] => isObj(e[1]))
          .map(([m, v]) => [m, v, RULE.modelUsage])
      : [[currentModel, usage, RULE.flat]];
    for (const [model, mu, rule] of perModel) {
      const { values: v, invalid } = readTokenFields(mu, FIELDS);
      if (invalid.length) sink.warn(`invalid usage field(s) counted as 0: ${invalid.join(', ')}`, at);
      if (v.input + v.output === 0) {
        sink.skip('turn_completed model usage with no tokens', at);
        continue;
      }
      // inputTokens holds the whole prompt, cache reads and cache creation included (notification.rs:71-75).
      const fresh = v.input - v.cacheRead - v.cacheWrite;
      if (fresh < 0) sink.count('grok: input smaller than its cache reads and writes (uncached input taken as 0)');
      const calls = mu.modelCalls;
      const ticks = mu.costUsdTicks;
      const trusted =
        !incomplete && mu.costIsPartial !== true && typeof ticks === 'number' && Number.isFinite(ticks) && ticks >= 0;
      if (incomplete) sink.count('grok: turns whose usage Grok marked incomplete (counted as recorded, cost by model)');
      sink.event({
        harness: 'grok',
        session_id: session,
        project,
        model,
        provider: null,
        ts,
        // Re-emitted turns and fork copies share the prompt id (README "Counting once").
        dedupe_key: prompt !== null ? `grok:${prompt}:${model ?? ''}` : `grok:${session}:${line}:${model ?? ''}`,
        dedupe_rank: rank,
        requests: typeof calls === 'number' && Number.isInteger(calls) && calls > 0 ? calls : 1,
        input_tokens: Math.max(fresh, 0),
        cache_read_tokens: v.cacheRead,
        cache_write_tokens: v.cacheWrite,
        cache_write_5m_tokens: null,
        cache_write_1h_tokens: null,
        output_tokens: v.output,
        // reasoningTokens is part of outputTokens.
        reasoning_tokens: Math.min(v.reasoning, v.output),
        recorded_cost_usd: trusted ? (ticks as number) / TICKS_PER_USD : null,
        source_file: file,
        source_line: line,
        rule,
      });
    }
  });
}
