// `tx-usage explain` as tables (one per source, then the sum of all) and as
// one CSV table (a line per record), for the shared renderers in src/render.
import { COST_PARTIAL, type Column, type DataRow, type Dataset } from '../render/columns.js';
import { unpricedNote } from '../render/cells.js';
import { periodLabel } from '../report/period.js';
import type { ExplainDocument, ExplainedSource } from './explain.js';
import type { ExplainRecord } from './verdicts.js';

/**
 * A record's verdict as one sentence in one style for every harness: what
 * it was counted as, then the harness README's rule that decided it
 * (`rule "Forks"`, `rule "event_msg token_count"`), or for a record not
 * counted, skipped or unreadable, the reason.
 */
export function verdictText(r: Pick<ExplainRecord, 'record' | 'counted_as' | 'rule'>): string {
  if (r.rule === null || r.rule === '') return r.counted_as;
  if (r.record === 'usage' || r.record === 'split line' || r.record === 'stored')
    return `${r.counted_as}; rule "${r.rule}"`;
  return `${r.counted_as}: ${r.rule}`;
}

/** Where a record is: its line, else its database row, else its response's key. */
const at = (r: ExplainRecord) => (r.line !== null ? String(r.line) : (r.row ?? r.key ?? ''));

// What a record added: empty for a record that added nothing (a `—` would read as "unknown").
const ADDED_COLUMNS: Column[] = [
  { field: 'requests', label: 'Reqs', kind: 'int' },
  { field: 'input_tokens', label: 'Input', kind: 'int' },
  { field: 'cache_read_tokens', label: 'Cache rd', kind: 'int' },
  { field: 'cache_write_tokens', label: 'Cache wr', kind: 'int' },
  { field: 'output_tokens', label: 'Output', kind: 'int' },
  { field: 'total_tokens', label: 'Added', kind: 'int', narrow: true },
  // A record's cost is a figure per unit of work (README "Money"): $0.0001400, not <$0.01.
  { field: 'cost_usd', label: 'Cost', kind: 'usd', narrow: true, partial: COST_PARTIAL, perUnit: true },
].map((c) => ({ ...c, blankUnless: 'counted' }) as Column);

const RECORD_COLUMNS: Column[] = [
  { field: 'at', label: 'Line', kind: 'key', narrow: true, keep: 'ends', none: '' },
  { field: 'timestamp', label: 'Time', kind: 'time' },
  // One sentence per record, whatever the harness: the verdict first, then the rule (or reason) behind it; wrapped, never cut.
  { field: 'verdict', label: 'Verdict', kind: 'key', narrow: true, keep: 'start', wrap: true },
  { field: 'record_tokens', label: 'Tokens', kind: 'int', narrow: true, drop: 1, none: '' },
  ...ADDED_COLUMNS,
];

const LEGEND =
  'Tokens: what the record carries; Added and Cost: what it adds to a report of the same window (each response once, at the record the store bills).';

function title(doc: ExplainDocument, s: ExplainedSource): string {
  const what = `${s.path} (${s.harness}${s.session_id !== null ? `, session ${s.session_id}` : ''})`;
  return doc.since !== null && doc.until !== null ? `${what} ${periodLabel(doc.since, doc.until, doc.timezone)}` : what;
}

function sourceDataset(doc: ExplainDocument, s: ExplainedSource): Dataset {
  const note = unpricedNote(s.totals.unpriced_requests, s.totals.unpriced_tokens);
  return {
    title: title(doc, s),
    columns: RECORD_COLUMNS,
    rows: s.records.map((r) => ({
      ...r,
      at: at(r),
      verdict: verdictText(r),
      counted: r.counted ? 1 : 0,
      counted_at: undefined,
    })) as DataRow[],
    totals: { ...s.totals, counted: 1 } as DataRow,
    notes: [...s.notes, ...(note ? [note] : [])],
    empty: 'no usage-bearing records',
    timezone: doc.timezone,
  };
}

/** One table per source, then, for several, their sum. */
export function explainTables(doc: ExplainDocument): Dataset[] {
  const out = doc.sources.map((s) => sourceDataset(doc, s));
  if (doc.sources.length > 1) {
    out.push({
      columns: [
        { field: 'what', label: 'All', kind: 'key', narrow: true },
        { ...ADDED_COLUMNS[0]!, narrow: true },
        ...ADDED_COLUMNS.slice(1),
      ],
      rows: [{ what: `${doc.sources.length} sources`, ...doc.totals, counted: 1 } as DataRow],
      notes: [LEGEND],
    });
  } else if (out.length) out[0]!.notes = [...(out[0]!.notes ?? []), LEGEND];
  return out;
}

/** Every record of every source as one CSV table, its columns named as the JSON fields. */
export function explainCsv(doc: ExplainDocument): Dataset {
  const fields = [
    'path',
    'harness',
    'line',
    'row',
    'key',
    'record',
    'counted',
    'counted_as',
    'rule',
    'session_id',
    'model',
    'timestamp',
    'record_tokens',
    'counted_at',
  ];
  // Added after the documented columns: what a usage record was made from.
  const added = ['grain'];
  const metrics = [
    'requests',
    'input_tokens',
    'cache_read_tokens',
    'cache_write_tokens',
    'output_tokens',
    'reasoning_tokens',
    'total_tokens',
    'cost_usd',
    'cost_source',
    'computed_cost_usd',
    'recorded_cost_usd',
    'unpriced_requests',
    'unpriced_tokens',
  ];
  const columns: Column[] = [...fields, ...metrics, ...added].map((f) => ({ field: f, label: f, kind: 'text' }));
  const rows = doc.sources.flatMap(
    (s) =>
      s.records.map((r) => ({
        ...r,
        path: s.path,
        harness: s.harness,
        counted: String(r.counted),
        counted_at:
          r.counted_at === null
            ? null
            : r.counted_at.line === null
              ? r.counted_at.path
              : `${r.counted_at.path}:${r.counted_at.line}`,
      })) as DataRow[],
  );
  return { columns, rows };
}
