// Runs one harness extractor over one source into memory. The ingest writes
// the result to the store; tests use it to check an extractor directly.
import type {
  ContextRow,
  RateLimitSnapshot,
  SessionEstimate,
  SessionFact,
  SourceLocation,
  UsageEvent,
  WorkUnit,
} from '../core/types.js';
import { UnitColumns } from '../core/unit-columns.js';
import { formatLocation } from '../core/types.js';
import { nowMs } from '../live/clock.js';
import type { ExtractOptions, Harness, ResumePoint, SourceRef, WarnOptions } from '../harnesses/types.js';

export interface SkipTally {
  reason: string;
  count: number;
  first: string;
}

export interface Collected {
  source: SourceRef;
  events: UsageEvent[];
  estimates: SessionEstimate[];
  contexts: ContextRow[];
  /** Plan rate-limit snapshots (Codex); absent where a result was made without them. */
  rateLimits?: RateLimitSnapshot[];
  /** Units of work (prompts, turn ends, tool calls, subagent tasks), as columns. */
  units: UnitColumns;
  /** Session titles and lineage. */
  facts: SessionFact[];
  /** Human-readable, each naming file and line/row. */
  warnings: string[];
  /** Warnings about bytes past the resume point (see WarnOptions.untilResumed). */
  tailWarnings: string[];
  skips: SkipTally[];
  counts: Record<string, number>;
  resume: ResumePoint | null;
  /** The extractor threw: the source could not be read at all. */
  failed: boolean;
}

export async function collectSource(
  harness: Pick<Harness, 'extract' | 'displayName'>,
  source: SourceRef,
  opts: ExtractOptions,
): Promise<Collected> {
  const out: Collected = {
    source,
    events: [],
    estimates: [],
    contexts: [],
    rateLimits: [],
    units: new UnitColumns(),
    facts: [],
    warnings: [],
    tailWarnings: [],
    skips: [],
    counts: {},
    resume: null,
    failed: false,
  };
  const skips = new Map<string, SkipTally>();
  const sink = {
    event: (e: UsageEvent) => void out.events.push(e),
    sessionEstimate: (e: SessionEstimate) => void out.estimates.push(e),
    context: (c: ContextRow) => void out.contexts.push(c),
    rateLimit: (r: RateLimitSnapshot) => void out.rateLimits!.push(r),
    unit: (u: WorkUnit) => out.units.push(u),
    sessionFact: (f: SessionFact) => void out.facts.push(f),
    warn: (m: string, at: SourceLocation, o?: WarnOptions) =>
      void (o?.untilResumed ? out.tailWarnings : out.warnings).push(`${formatLocation(at)}: ${m}`),
    skip: (reason: string, at: SourceLocation) => {
      const t = skips.get(reason);
      if (t) t.count++;
      else skips.set(reason, { reason, count: 1, first: formatLocation(at) });
    },
    count: (name: string, n = 1) => void (out.counts[name] = (out.counts[name] ?? 0) + n),
  };
  try {
    out.resume = await harness.extract(source, sink, opts);
    futureWarning(out);
  } catch (e) {
    out.warnings.push(`${source.path}: cannot read: ${readFailure(e, source, harness.displayName)}`);
    out.failed = true;
  }
  out.skips = [...skips.values()];
  return out;
}

/** Responses dated this far past the read are dated in the future (clocks of two machines may differ a little). */
export const FUTURE_SKEW_MS = 10 * 60_000;

/**
 * One warning per source for responses dated in the future (a wrong clock,
 * a made-up file): reports count them on their dates; the live views leave
 * them out (src/live/events.ts readEvents), so no block far ahead is active.
 */
function futureWarning(out: Collected): void {
  const limit = nowMs() + FUTURE_SKEW_MS;
  let n = 0;
  let first: UsageEvent | null = null;
  for (const e of out.events) {
    if (e.ts <= limit) continue;
    n++;
    if (first === null) first = e;
  }
  if (first === null) return;
  const at = formatLocation({ file: first.source_file, line: first.source_line ?? undefined });
  out.warnings.push(
    `${at}: ${n} response${n > 1 ? 's' : ''} dated in the future (the first ${new Date(first.ts).toISOString()}); counted on ${n > 1 ? 'their dates' : 'its date'} in reports, left out of the live views (blocks, watch, status line, budgets, limits)`,
  );
}

/** Why an extractor could not read a source at all, in a user's words. */
export function readFailure(e: unknown, source: SourceRef, displayName: string): string {
  const err = e as NodeJS.ErrnoException;
  return err.code === 'EACCES'
    ? 'permission denied'
    : err.code === 'EISDIR'
      ? 'is a directory'
      : err.code === 'ENOENT'
        ? 'not found (dangling link?)'
        : // SQLite naming a table/column the extractor relies on: a schema this build does not know.
          source.kind === 'sqlite' && /^no such (table|column)\b/.test(err.message ?? '')
          ? `unrecognised database schema (${err.message}); written by a newer ${displayName}? nothing read from it`
          : err.message;
}
