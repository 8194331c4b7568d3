// Helpers for the Codex tests: run the real extractor over a Codex home via
// collectSource, and apply the store's dedupe rule to the events.
import { tmpdir } from 'node:os';
import { codex } from '../../src/harnesses/codex/index.js';
import { contender, winnerOrderOf } from '../../src/harnesses/dedupe.js';
import { harnessById } from '../../src/harnesses/registry.js';
import { collectSource, type Collected } from '../../src/ingest/collect.js';
import type { UsageEvent } from '../../src/core/types.js';
import type { ResumePoint, SourceRef } from '../../src/harnesses/types.js';
import { emptyTotals, utcDay, type Totals } from '../../fixtures/codex/ledger.js';

export async function discover(codexHome: string): Promise<SourceRef[]> {
  const roots = codex.roots({ home: '/nonexistent-home', env: { CODEX_HOME: codexHome }, rootOverrides: [] });
  const warnings: string[] = [];
  const refs = await codex.discover(roots, (m, at) => warnings.push(`${at.file}: ${m}`));
  if (warnings.length) throw new Error(warnings.join('\n'));
  return refs;
}

export function collect(ref: SourceRef, resume: ResumePoint | null = null): Promise<Collected> {
  return collectSource(codex, ref, { resume, tmpDir: tmpdir(), knownProjects: new Set() });
}

export async function collectAll(codexHome: string): Promise<Collected[]> {
  const out: Collected[] = [];
  // Rollouts only (session_index.jsonl, a source of thread names, holds no usage).
  for (const ref of await discover(codexHome)) if (ref.meta?.role !== 'thread-names') out.push(await collect(ref));
  return out;
}

/** The file's own responses, and the copies it holds of another thread's (dedupe_rank 2 to 5). */
export const own = (events: UsageEvent[]) => events.filter((e) => e.dedupe_rank < 2);
export const copies = (events: UsageEvent[]) => events.filter((e) => e.dedupe_rank >= 2);

export const eventTotal = (e: UsageEvent) =>
  e.input_tokens + e.cache_read_tokens + e.cache_write_tokens + e.output_tokens;

/** The store's rule: per (harness, dedupe_key) the row the harness's winner order keeps. */
export function storeLike(events: UsageEvent[]): UsageEvent[] {
  const best = new Map<string, UsageEvent>();
  for (const e of events) {
    const k = `${e.harness}\u0000${e.dedupe_key}`;
    const b = best.get(k);
    if (!b || winnerOrderOf(harnessById(e.harness)).compare(contender(e), contender(b)) < 0) best.set(k, e);
  }
  return [...best.values()];
}

export function totalsBy(events: UsageEvent[], key: (e: UsageEvent) => string): Map<string, Totals> {
  const out = new Map<string, Totals>();
  for (const e of events) {
    const k = key(e);
    let t = out.get(k);
    if (!t) out.set(k, (t = emptyTotals()));
    t.requests += e.requests;
    t.input_tokens += e.input_tokens;
    t.cache_read_tokens += e.cache_read_tokens;
    t.cache_write_tokens += e.cache_write_tokens;
    t.output_tokens += e.output_tokens;
    t.reasoning_tokens += e.reasoning_tokens;
    t.total_tokens += eventTotal(e);
  }
  return out;
}

export const byModelDay = (events: UsageEvent[]) => totalsBy(events, (e) => `${e.model}|${utcDay(e.ts)}`);

/** Maps compare as sorted entry lists (readable diffs in failures). */
export const sorted = <V>(m: Map<string, V>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export function skipCount(c: Collected, reason: string): number {
  return c.skips.find((s) => s.reason === reason)?.count ?? 0;
}
