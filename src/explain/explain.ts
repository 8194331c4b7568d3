// `tx-usage explain`: why each usage-bearing record of a source counts, or
// does not. Per source: the harness's own extract() reads it again, here, in
// this thread, into a sink that keeps every record's place (trace.ts); the
// store, just brought up to date, says which row it bills for each response
// and what that row adds to a report of the window (explain_rows.sql); the
// two are matched record by record (verdicts.ts). The totals are the
// report's own sums over the rows that added, so they are what `report`
// says for the same rows.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { HarnessScan } from '../ingest/discover.js';
import { knownProjects } from '../ingest/ingest.js';
import { readFailure } from '../ingest/collect.js';
import { metricsOf, sumTemplateRows, type CostMode, type Metrics } from '../report/summary.js';
import { grainFieldsOf, type GrainFields, type TemplateRow } from '../report/summary-rows.js';
import { loadTemplate, runTemplate } from '../report/template.js';
import { defineReportMacros } from '../report/macros.js';
import { counted } from '../core/plural.js';
import { resolveTargets, type Target } from './targets.js';
import { TraceSink } from './trace.js';
import { labelRecords, type ExplainRecord, type PriceBreakdown } from './verdicts.js';
import type { Pricer } from '../pricing/index.js';
import type { HarnessId } from '../core/types.js';

export interface ExplainParams {
  /** The window's first and last local days; null: no window (every record is in it). */
  since: string | null;
  until: string | null;
  tz: string;
  costMode: CostMode;
  /** Private temporary folder for extractors that copy a database. */
  tmpDir: string;
  /** The prices, for each record's price breakdown (null: none given). */
  pricer?: Pick<Pricer, 'unitCosts'> | null;
}

function breakdownOf(harness: string, r: ExplainRecord, pricer: Pick<Pricer, 'unitCosts'>): PriceBreakdown | null {
  if (!r.counted || r.computed_cost_usd === null || r.model === null) return null;
  const units = pricer.unitCosts({
    harness: harness as HarnessId,
    model: r.model,
    provider: null,
    ts: r.timestamp === null ? Date.now() : Date.parse(r.timestamp),
    input_tokens: r.input_tokens,
    cache_read_tokens: r.cache_read_tokens,
    cache_write_tokens: r.cache_write_tokens,
    cache_write_5m_tokens: null,
    cache_write_1h_tokens: null,
    output_tokens: r.output_tokens,
    reasoning_tokens: r.reasoning_tokens,
    requests: r.requests,
  });
  if (!units) return null;
  const categories = units.map((u) => ({
    category: u.unit,
    tokens: u.count,
    usd_per_mtok: u.usd_per_million,
    usd: u.usd,
  }));
  return { categories, sum_usd: Math.round(categories.reduce((n, c) => n + c.usd, 0) * 1e10) / 1e10 };
}

/** One source explained (one file or database; for a session id, that session's records of it). */
export interface ExplainedSource {
  harness: string;
  path: string;
  kind: string;
  /** The session asked for, when a session id was given. */
  session_id: string | null;
  /** Its file is gone: the rows are those the store keeps, not read again. */
  retained: boolean;
  records: ExplainRecord[];
  totals: Metrics & GrainFields;
  notes: string[];
}

export interface ExplainDocument {
  since: string | null;
  until: string | null;
  timezone: string;
  cost_mode: CostMode;
  sources: ExplainedSource[];
  totals: Metrics & GrainFields;
  warnings: string[];
}

// The window when none is asked for: every day a response can have.
const FIRST_DAY = '0001-01-01';
const LAST_DAY = '9999-12-31';

/** The store's rows of every target (explain_rows.sql), by target. */
async function storedRows(
  conn: DuckDBConnection,
  targets: Target[],
  p: ExplainParams,
): Promise<Map<string, TemplateRow[]>> {
  await defineReportMacros(conn);
  const rows = await runTemplate(conn, loadTemplate('explain_rows'), {
    harnesses: [...new Set(targets.map((t) => t.harness.id))],
    sources: targets.map((t) => t.sourceKey),
    sessions: targets.map((t) => t.session ?? ''),
    since: p.since ?? FIRST_DAY,
    until: p.until ?? LAST_DAY,
    tz: p.tz,
    cost_mode: p.costMode,
  });
  const out = new Map<string, TemplateRow[]>();
  for (const r of rows) {
    const id = targetId(String(r.target_source), String(r.target_session));
    const list = out.get(id);
    if (list) list.push(r);
    else out.set(id, [r]);
  }
  return out;
}

const targetId = (source: string, session: string) => `${source}\u0000${session}`;

async function explainTarget(
  t: Target,
  stored: TemplateRow[],
  p: ExplainParams,
  known: () => Promise<ReadonlySet<string>>,
): Promise<{ source: ExplainedSource; added: TemplateRow[] }> {
  const notes: string[] = [];
  let sink: TraceSink | null = null;
  if (t.source) {
    sink = new TraceSink();
    try {
      await t.harness.extract(t.source, sink, {
        resume: null,
        tmpDir: p.tmpDir,
        knownProjects: t.harness.usesKnownProjects ? await known() : new Set(),
      });
    } catch (e) {
      notes.push(
        `cannot read it: ${readFailure(e, t.source, t.harness.displayName)}; the records below are the rows the store keeps of it`,
      );
      sink = null;
    }
  } else
    notes.push(
      'its file is no longer found in the searched folders: the records below are the rows the store keeps of it (not read again, so without rule names)',
    );
  const labelled = labelRecords({
    sourceKey: t.sourceKey,
    trace: sink?.entries ?? null,
    stored,
    session: t.session,
    onlySession: t.onlySession,
  });
  const { added } = labelled;
  // Added after the documented fields: what a counted record's computed cost is made of.
  const records = labelled.records.map((r) => ({
    ...r,
    price_breakdown: p.pricer ? breakdownOf(t.harness.id, r, p.pricer) : null,
  }));
  if (sink?.contexts)
    notes.push(
      `${counted(sink.contexts, 'context row')}: context-window occupancy, not billed usage (the report lists ${sink.contexts === 1 ? 'it' : 'them'} apart)`,
    );
  if (t.session !== null && !t.onlySession && sink)
    notes.push(
      `it holds other sessions too: its skipped records and warnings are not tied to one session (tx-usage explain ${t.path} lists them)`,
    );
  return {
    source: {
      harness: t.harness.id,
      path: t.path,
      kind: t.kind,
      session_id: t.session,
      retained: t.source === null,
      records,
      totals: totalsOf(added),
      notes,
    },
    added,
  };
}

/** What rows add up to, with the report's fields: its metrics and the share resting on session totals. */
function totalsOf(rows: TemplateRow[]): Metrics & GrainFields {
  const sum = sumTemplateRows(rows);
  return { ...metricsOf(sum), ...grainFieldsOf(sum) };
}

/** Explains every source the arguments name (targets.ts), against a store that is up to date. */
export async function explain(
  conn: DuckDBConnection,
  scans: HarnessScan[],
  args: string[],
  p: ExplainParams,
  warnings: string[],
): Promise<ExplainDocument> {
  const targets = await resolveTargets(conn, scans, args);
  let projects: Promise<ReadonlySet<string>> | null = null;
  const known = () => (projects ??= knownProjects(conn));
  const stored = targets.length ? await storedRows(conn, targets, p) : new Map<string, TemplateRow[]>();
  const sources: ExplainedSource[] = [];
  // Each stored row once, though a file and a session asked for together may both list it.
  const added = new Map<string, TemplateRow>();
  for (const t of targets) {
    const r = await explainTarget(t, stored.get(targetId(t.sourceKey, t.session ?? '')) ?? [], p, known);
    sources.push(r.source);
    for (const row of r.added) added.set(String(row.row_id), row);
  }
  return {
    since: p.since,
    until: p.until,
    timezone: p.tz,
    cost_mode: p.costMode,
    sources,
    totals: totalsOf([...added.values()]),
    warnings,
  };
}
