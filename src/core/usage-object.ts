// Where a parsed record holds a usage object that no counting rule took, so
// the extractor can name it (a skip reason in `tx-usage sources`) instead of
// leaving it out without a word (no silent zeros). Only called for
// records a harness already parsed and did not count: lines without a usage
// marker are never parsed for this.

/** Nesting searched below the record: far enough for tool results and progress copies, bounded for odd records. */
const MAX_DEPTH = 4;

/**
 * Dotted path of the first key `usage` whose value is an object (e.g.
 * `toolUseResult.usage`, `message.usage`), breadth first; null when there is
 * none within MAX_DEPTH levels. Arrays are not searched (content blocks hold
 * text, not usage).
 */
export function usageObjectPath(rec: unknown): string | null {
  let level: [string, Record<string, unknown>][] = isObj(rec) ? [['', rec]] : [];
  for (let depth = 0; depth < MAX_DEPTH && level.length; depth++) {
    const next: [string, Record<string, unknown>][] = [];
    for (const [path, o] of level) {
      for (const [k, v] of Object.entries(o)) {
        if (!isObj(v)) continue;
        const p = path ? `${path}.${k}` : k;
        if (k === 'usage') return p;
        next.push([p, v]);
      }
    }
    level = next;
  }
  return null;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
