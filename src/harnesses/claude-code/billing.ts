// What one Claude Code response is billed for besides its top-level tokens
// (README "What a response is billed at"): the speed it was served
// at, the web searches it ran, and the sampling iterations an advisor turn
// is made of. Called once per response (message.id), on the line whose usage
// won (extract.ts), so every split line of the response yields these events
// once and the store's dedupe keys make every copy of them one.
import { readTokenFields } from '../../core/numbers.js';
import type { SourceLocation, UsageEvent } from '../../core/types.js';
import type { ExtractSink } from '../types.js';
import { GEO_KIND_PREFIX } from '../../pricing/regional.js';

/** Token fields of a `usage` object and of each `usage.iterations[]` entry (the same names). */
export const USAGE_FIELDS = {
  input: 'input_tokens',
  cacheRead: 'cache_read_input_tokens',
  cacheWrite: 'cache_creation_input_tokens',
  cache5m: 'cache_creation.ephemeral_5m_input_tokens',
  cache1h: 'cache_creation.ephemeral_1h_input_tokens',
  output: 'output_tokens',
  thinking: 'output_tokens_details.thinking_tokens',
  webSearches: 'server_tool_use.web_search_requests',
} as const;

/** The rules' names as the README states them (UsageEvent.rule, for `tx-usage explain`). */
export const RULE = {
  response: 'One response, one count',
  largest: 'Largest usage wins',
  forks: 'Forks',
  fast: 'Fast mode',
  webSearches: 'Web searches',
  mainIteration: 'Main-model iteration',
  advisor: 'Advisor iteration',
  regional: 'Regional pricing',
  cacheWrites: 'Cache writes',
} as const;

/** The line whose usage stands for a response: its event (top-level usage), the usage object and the envelope's advisor model. */
export interface ResponseLine {
  ev: UsageEvent;
  usage: Record<string, unknown>;
  advisorModel: string | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `usage.speed` where it is not the standard speed ("fast"); null for standard, absent or not a string. */
function speedOf(v: unknown): string | null {
  return typeof v === 'string' && v !== '' && v !== 'standard' ? v : null;
}

/** An iteration's type, safe to name in `tx-usage sources` (a harness identifier, never content). */
function typeName(v: unknown): string {
  return typeof v === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(v) ? v : 'unknown';
}

interface Tokens {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  cache5m: number;
  cache1h: number;
  output: number;
  thinking: number;
  webSearches: number;
  /** The object records its 5m / 1h cache-write split. */
  split: boolean;
}

function tokensOf(o: Obj, what: string, at: SourceLocation, sink: ExtractSink): Tokens {
  const { values, invalid } = readTokenFields(o, USAGE_FIELDS);
  if (invalid.length)
    sink.warn(`invalid usage field(s) counted as 0: ${invalid.map((f) => `${what}${f}`).join(', ')}`, at);
  const split = isObj(o.cache_creation);
  const w = cacheWrites(values, split);
  return { ...values, cacheWrite: w.total, cache5m: w.w5m ?? 0, cache1h: w.w1h ?? 0, split };
}

/**
 * A usage object's cache writes (README "Cache writes"): the flat
 * `cache_creation_input_tokens`, or the 5-minute plus 1-hour split where
 * that is larger — builds before v2.1.152 wrote the flat count as 0 beside
 * the real split. Each part keeps its own rate: the 1-hour writes are the
 * split's, the rest 5-minute. No split recorded: the flat count, part
 * unknown (null).
 */
export function cacheWrites(
  t: { cacheWrite: number; cache5m: number; cache1h: number },
  split: boolean,
): { total: number; w5m: number | null; w1h: number | null } {
  if (!split) return { total: t.cacheWrite, w5m: null, w1h: null };
  const total = Math.max(t.cacheWrite, t.cache5m + t.cache1h);
  const w1h = Math.min(t.cache1h, total);
  return { total, w5m: total - w1h, w1h };
}

/** `total` handed out in order, each part taking at most its cap (what is left over stays unassigned). */
function spread(total: number, caps: number[]): number[] {
  let left = total;
  return caps.map((cap) => {
    const n = Math.min(left, cap);
    left -= n;
    return n;
  });
}

/**
 * Emits the billed events of one response:
 * - the response itself, at its speed (`usage.speed` other than "standard":
 *   "fast" is priced at the model's fast-mode rates) with its web searches
 *   (`usage.server_tool_use.web_search_requests`, a fee each);
 * - on a turn whose `usage.iterations[]` holds two or more main-model
 *   (`message`) iterations that add up to the top-level usage (an advisor
 *   turn: claude-code#81620), one event per iteration instead, so each is
 *   priced on its own input (the long-context tier is per request): the
 *   first keeps the response's key and its one request, the others are
 *   `requests: 0`, keyed by their index;
 * - one event per `advisor_message` iteration: a response of the advisor's
 *   own model (the iteration's `model`, else the line's `advisorModel`),
 *   whose tokens the top-level usage leaves out (ccusage#1115, #1423;
 *   codeburn#659).
 * Iterations of another type are named as a skip reason, not counted.
 */
export function emitBilledEvents(r: ResponseLine, sink: ExtractSink): void {
  const { ev, usage } = r;
  const speed = speedOf(usage.speed);
  const searches = ev.web_search_requests ?? null;
  // The response as it stands (the extractor's own event, completed in place: no copy per response).
  const whole = ev;
  whole.speed = speed;
  // A fork copy keeps the extractor's rule name ('Forks'); fast mode and web searches name the price rule.
  whole.rule = speed
    ? RULE.fast
    : searches
      ? RULE.webSearches
      : whole.billing_kind?.startsWith(GEO_KIND_PREFIX)
        ? RULE.regional
        : (whole.rule ?? RULE.response);
  const iterations = Array.isArray(usage.iterations) ? (usage.iterations as unknown[]) : null;
  if (!iterations) {
    sink.event(whole);
    return;
  }
  const at: SourceLocation = { file: ev.source_file, line: ev.source_line ?? undefined };

  const main: { index: number; t: Tokens }[] = [];
  const advisors: { index: number; it: Obj; t: Tokens }[] = [];
  iterations.forEach((it, index) => {
    if (!isObj(it)) return;
    const what = `usage.iterations[${index}].`;
    if (it.type === 'message') main.push({ index, t: tokensOf(it, what, at, sink) });
    else if (it.type === 'advisor_message') advisors.push({ index, it, t: tokensOf(it, what, at, sink) });
    else
      sink.skip(
        `usage iteration of type "${typeName(it.type)}" (not counted: neither the main model's nor an advisor's)`,
        at,
      );
  });

  const sum = (f: 'input' | 'cacheRead' | 'cacheWrite' | 'output') => main.reduce((n, m) => n + m.t[f], 0);
  const addsUp =
    main.length >= 2 &&
    sum('input') === ev.input_tokens &&
    sum('cacheRead') === ev.cache_read_tokens &&
    sum('cacheWrite') === ev.cache_write_tokens &&
    sum('output') === ev.output_tokens;
  if (main.length >= 2 && !addsUp)
    sink.count('responses whose main-model iterations do not add up to their usage (priced whole)');
  if (addsUp) {
    // Reasoning and the 1h cache-write share, where the iterations do not state them, handed out in order.
    const thinking = main.every((m) => m.t.thinking > 0)
      ? main.map((m) => Math.min(m.t.thinking, m.t.output))
      : spread(
          ev.reasoning_tokens,
          main.map((m) => m.t.output),
        );
    const ownSplit = main.every((m) => m.t.split);
    const oneHour = ownSplit
      ? main.map((m) => m.t.cache1h)
      : spread(
          ev.cache_write_1h_tokens ?? 0,
          main.map((m) => m.t.cacheWrite),
        );
    const splitKnown = ownSplit || ev.cache_write_1h_tokens !== null;
    main.forEach((m, k) => {
      const w1h = Math.min(oneHour[k]!, m.t.cacheWrite);
      sink.event({
        ...whole,
        dedupe_key: k === 0 ? ev.dedupe_key : `${ev.dedupe_key}#iteration:${m.index}`,
        requests: k === 0 ? 1 : 0,
        iteration: m.index,
        input_tokens: m.t.input,
        cache_read_tokens: m.t.cacheRead,
        cache_write_tokens: m.t.cacheWrite,
        cache_write_5m_tokens: splitKnown ? m.t.cacheWrite - w1h : null,
        cache_write_1h_tokens: splitKnown ? w1h : null,
        output_tokens: m.t.output,
        reasoning_tokens: thinking[k]!,
        web_search_requests: k === 0 ? searches : null,
        rule: RULE.mainIteration,
      });
    });
  } else {
    sink.event(whole);
  }

  for (const a of advisors) {
    const model = typeof a.it.model === 'string' && a.it.model ? a.it.model : r.advisorModel;
    sink.event({
      ...ev,
      model,
      dedupe_key: `${ev.dedupe_key}#iteration:${a.index}`,
      requests: 1,
      iteration: a.index,
      input_tokens: a.t.input,
      cache_read_tokens: a.t.cacheRead,
      cache_write_tokens: a.t.cacheWrite,
      cache_write_5m_tokens: a.t.split ? a.t.cache5m : null,
      cache_write_1h_tokens: a.t.split ? a.t.cache1h : null,
      output_tokens: a.t.output,
      reasoning_tokens: Math.min(a.t.thinking, a.t.output),
      // The advisor's own speed and searches, where its iteration states them (not the executor's).
      speed: speedOf(a.it.speed),
      web_search_requests: a.t.webSearches > 0 ? a.t.webSearches : null,
      recorded_cost_usd: null,
      rule: RULE.advisor,
    });
  }
}
