// Shared by the pi tests: run the real pi harness over a fixture home via
// collectSource, and apply the store's documented dedupe rule to the events.
import { tmpdir } from 'node:os';
import type { UsageEvent } from '../../src/core/types.js';
import { collectSource, type Collected } from '../../src/ingest/collect.js';
import { pi } from '../../src/harnesses/pi/index.js';
import type { ResumePoint, SourceRef } from '../../src/harnesses/types.js';
import type { LedgerRow } from '../../fixtures/pi/session.js';

export async function discover(
  home: string,
  env: NodeJS.ProcessEnv = {},
  rootOverrides: string[] = [],
): Promise<SourceRef[]> {
  const warnings: string[] = [];
  const roots = pi.roots({ home, env, rootOverrides });
  const sources = await pi.discover(roots, (m) => warnings.push(m));
  if (warnings.length) throw new Error(warnings.join('\n'));
  return sources;
}

export function collect(source: SourceRef, resume: ResumePoint | null = null): Promise<Collected> {
  return collectSource(pi, source, { resume, tmpDir: tmpdir(), knownProjects: new Set() });
}

export async function collectAll(sources: SourceRef[]): Promise<Collected[]> {
  const out: Collected[] = [];
  for (const s of sources) out.push(await collect(s));
  return out;
}

const totalOf = (e: UsageEvent) => e.input_tokens + e.cache_read_tokens + e.cache_write_tokens + e.output_tokens;

/** The store's rule (common brief): per dedupe_key keep the largest total, then lowest rank, then source path. */
export function storeView(events: UsageEvent[]): UsageEvent[] {
  const best = new Map<string, UsageEvent>();
  for (const e of events) {
    const b = best.get(e.dedupe_key);
    if (
      !b ||
      totalOf(e) > totalOf(b) ||
      (totalOf(e) === totalOf(b) &&
        (e.dedupe_rank < b.dedupe_rank || (e.dedupe_rank === b.dedupe_rank && e.source_file < b.source_file)))
    )
      best.set(e.dedupe_key, e);
  }
  return [...best.values()];
}

/** A comparable, order-free form of a billed response. */
export interface Billed {
  session: string;
  project: string | null;
  model: string | null;
  provider: string | null;
  ts: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number | null;
  cacheWrite5m: number | null;
  output: number;
  reasoning: number;
  cost: number | null;
}

export function fromEvent(e: UsageEvent): Billed {
  return {
    session: e.session_id,
    project: e.project,
    model: e.model,
    provider: e.provider,
    ts: e.ts,
    input: e.input_tokens,
    cacheRead: e.cache_read_tokens,
    cacheWrite: e.cache_write_tokens,
    cacheWrite1h: e.cache_write_1h_tokens,
    cacheWrite5m: e.cache_write_5m_tokens,
    output: e.output_tokens,
    reasoning: e.reasoning_tokens,
    cost: e.recorded_cost_usd,
  };
}

export function fromLedger(r: LedgerRow): Billed {
  return {
    session: r.session,
    project: r.project,
    model: r.model,
    provider: r.provider,
    ts: r.ts,
    input: r.input,
    cacheRead: r.cacheRead,
    cacheWrite: r.cacheWrite,
    cacheWrite1h: r.cacheWrite1h,
    cacheWrite5m: r.cacheWrite1h === null ? null : r.cacheWrite - r.cacheWrite1h,
    output: r.output,
    reasoning: Math.min(r.reasoning, r.output),
    cost: r.cost,
  };
}

export function sorted(b: Billed[]): Billed[] {
  return [...b].sort((x, y) => x.ts - y.ts || x.session.localeCompare(y.session) || x.input - y.input);
}
