// The first line of every MCP answer: what an agent must not get wrong when
// it repeats a figure. The period and time zone the answer covers, and
// whether its cost is complete, read from the answer's own JSON (the CLI's
// fields: since/until/timezone, cost_source, unpriced_requests).

/** Every `cost_source` in the document, wherever it is (rows, totals, nested reports). */
function costSources(doc: unknown, out: Set<string>, depth = 0): Set<string> {
  if (depth > 6 || doc === null || typeof doc !== 'object') return out;
  if (Array.isArray(doc)) {
    for (const x of doc) costSources(x, out, depth + 1);
    return out;
  }
  for (const [k, v] of Object.entries(doc)) {
    if (k === 'cost_source' && typeof v === 'string') out.add(v);
    else costSources(v, out, depth + 1);
  }
  return out;
}

/** since/until/timezone (or tz) of the document or of its first nested report. */
function periodOf(doc: unknown): { since?: string; until?: string; tz?: string } {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return {};
  const d = doc as Record<string, unknown>;
  const s = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : undefined);
  const here = { since: s('since'), until: s('until'), tz: s('timezone') ?? s('tz') };
  if (here.since || here.tz) return here;
  for (const v of Object.values(d)) {
    const p = periodOf(v);
    if (p.since || p.tz) return p;
  }
  return {};
}

export function answerHeadline(doc: unknown): string {
  const p = periodOf(doc);
  const period = p.since || p.until ? `period ${p.since ?? '…'} to ${p.until ?? 'today'}` : 'period: all stored usage';
  const sources = costSources(doc, new Set());
  const cost =
    sources.has('partial') || sources.has('none')
      ? 'cost PARTIAL: some responses have no price (see unpriced_requests); do not present the sum as complete'
      : sources.size
        ? 'cost complete (every response priced)'
        : 'no cost fields in this answer';
  return `${period}; time zone ${p.tz ?? 'UTC (SQL timestamps)'}; ${cost}. JSON follows (the same document \`tx-usage ... --format json\` prints).`;
}
