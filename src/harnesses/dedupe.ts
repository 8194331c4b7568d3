// Which of the rows of one billed response (one dedupe key: split lines of a
// streamed response, fork copies, a moved file) is the one counted. One rule
// object per order, used everywhere that choice is made: by an extractor that
// folds the rows of one read (Claude Code's split lines), by the store across
// files and runs (src/store/billed.ts, as SQL), and by the status line's
// merge of appended lines (src/live/merge.ts). A harness names its order in
// its Harness object (`winnerOrder`); most take LARGEST_USAGE_FIRST.
import type { UsageEvent } from '../core/types.js';

/** What of a harness the order is read from (Harness.winnerOrder). */
interface OrderOwner {
  id: string;
  winnerOrder?: WinnerOrder;
}

/** What the order compares of a row. */
export interface Contender {
  /** input + cache read + cache write + output tokens. */
  usage: number;
  dedupe_rank: number;
  source_file: string;
  source_line: number | null;
}

/** One ORDER BY term over the store's row columns (usage_rows joined with event_attrs, or usage_events). */
export interface OrderTerm {
  expr: string;
  desc?: true;
}

export interface WinnerOrder {
  /** Negative when `a` is kept over `b`, positive when `b` is, 0 when the order cannot tell them apart. */
  compare(a: Contender, b: Contender): number;
  /** The same order in SQL: the first row is kept. */
  terms: readonly OrderTerm[];
}

/**
 * The largest usage (a split line's placeholder usage loses to the response's
 * final usage), then the lowest dedupe_rank (originals before copies), then
 * the source file and line (a stable choice among equals).
 */
export const LARGEST_USAGE_FIRST: WinnerOrder = {
  compare: (a, b) =>
    b.usage - a.usage ||
    a.dedupe_rank - b.dedupe_rank ||
    (a.source_file < b.source_file ? -1 : a.source_file > b.source_file ? 1 : 0) ||
    // SQL sorts a missing line last.
    (a.source_line ?? Infinity) - (b.source_line ?? Infinity) ||
    0,
  terms: [
    { expr: 'input_tokens + cache_read_tokens + cache_write_tokens + output_tokens', desc: true },
    { expr: 'dedupe_rank' },
    { expr: 'source_file' },
    { expr: 'source_line' },
  ],
};

export function contender(e: UsageEvent): Contender {
  return {
    usage: e.input_tokens + e.cache_read_tokens + e.cache_write_tokens + e.output_tokens,
    dedupe_rank: e.dedupe_rank,
    source_file: e.source_file,
    source_line: e.source_line,
  };
}

/** A harness's order (LARGEST_USAGE_FIRST unless it names another). */
export function winnerOrderOf(h: Pick<OrderOwner, 'winnerOrder'> | undefined): WinnerOrder {
  return h?.winnerOrder ?? LARGEST_USAGE_FIRST;
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * The ORDER BY that applies each harness's order to its own rows (a row's
 * `harness` column picks it): the common order as it is when every harness
 * takes the same, else one CASE per term (the orders must then have their
 * terms in the same number and directions).
 */
export function winnerOrderSql(harnesses: readonly OrderOwner[]): string {
  const orders = harnesses.map((h) => [h.id, winnerOrderOf(h)] as const);
  const first = orders[0]![1];
  const term = (t: OrderTerm) => `${t.expr}${t.desc ? ' DESC' : ''}`;
  if (orders.every(([, o]) => o === first)) return first.terms.map(term).join(', ');
  return first.terms
    .map((t, i) => {
      const cases = orders.map(([id, o]) => {
        const own = o.terms[i];
        if (o.terms.length !== first.terms.length || !own || own.desc !== t.desc)
          throw new Error(`winner order of ${id}: its terms must match the other harnesses' in number and direction`);
        return `WHEN ${sqlString(id)} THEN ${own.expr}`;
      });
      return `CASE harness ${cases.join(' ')} END${t.desc ? ' DESC' : ''}`;
    })
    .join(', ');
}
