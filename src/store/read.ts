// Reading bookkeeping back out of the store: warnings for reports and the
// per-source figures behind `tx-usage sources`.
import { LIST, VARCHAR, listValue, type DuckDBConnection } from './duckdb.js';

/** Warnings recorded when sources of these harnesses were last read (each names its file and line). */
export async function storedWarnings(conn: DuckDBConnection, harnesses: string[]): Promise<string[]> {
  const r = await conn.runAndReadAll(
    `SELECT i.reason FROM source_issues i JOIN sources s USING (source_key)
     WHERE i.kind IN ('warning', 'warning-tail') AND list_contains($h, s.harness) ORDER BY s.harness, s.path, i.reason`,
    { h: listValue(harnesses) },
    { h: LIST(VARCHAR) },
  );
  return (r.getRowObjectsJson() as { reason: string }[]).map((x) => x.reason);
}

/**
 * Whether any stored response lacks a computed cost: the unpriced-model
 * warnings (cli/pricing.ts) can only find rows among these. One scan of a
 * column (~1 ms on the benchmark store) instead of the billed-rows view the
 * warnings query reads (~10-20 ms on a cold run's tail), in the usual case
 * where every model has a price.
 */
export async function hasUnpricedResponses(conn: DuckDBConnection): Promise<boolean> {
  const r = await conn.runAndReadAll(
    `SELECT EXISTS (SELECT 1 FROM usage_events WHERE computed_cost_e10 IS NULL AND requests > 0) AS some`,
  );
  return (r.getRowObjectsJson()[0] as { some: boolean }).some === true;
}

/**
 * Whether the store holds any usage row of these harnesses, whatever its day:
 * a report that found no harness folder on disk still answers from them
 * (history outlives the transcripts, cli/report.ts). One EXISTS probe.
 */
export async function hasStoredRows(conn: DuckDBConnection, harnesses: string[]): Promise<boolean> {
  const r = await conn.runAndReadAll(
    `SELECT EXISTS (SELECT 1 FROM usage_events WHERE list_contains($h, harness)) AS some`,
    { h: listValue(harnesses) },
    { h: LIST(VARCHAR) },
  );
  return (r.getRowObjectsJson()[0] as { some: boolean }).some === true;
}

export interface SourceFigures {
  source_key: string;
  harness: string;
  path: string;
  kind: string;
  /** When the source's file was first found gone (its rows are kept), null while it is on disk. */
  retained_since_ms: number | null;
  events: number;
  billed: number;
  contexts: number;
  warnings: string[];
  skips: { reason: string; count: number; first: string | null }[];
  counts: Record<string, number>;
}

export async function sourceFigures(conn: DuckDBConnection): Promise<SourceFigures[]> {
  const base = await conn.runAndReadAll(`
    SELECT s.source_key, s.harness, s.path, s.kind, s.retained_since_ms,
           (SELECT count(*) FROM usage_events e WHERE e.source_key = s.source_key) AS events,
           (SELECT count(*) FROM billed_events b WHERE b.source_key = s.source_key) AS billed,
           (SELECT count(*) FROM context_rows c WHERE c.source_key = s.source_key) AS contexts
    FROM sources s ORDER BY s.harness, s.path`);
  const out = new Map<string, SourceFigures>();
  for (const r of base.getRowObjectsJson() as any[]) {
    out.set(r.source_key, {
      ...r,
      retained_since_ms: r.retained_since_ms === null ? null : Number(r.retained_since_ms),
      events: Number(r.events),
      billed: Number(r.billed),
      contexts: Number(r.contexts),
      warnings: [],
      skips: [],
      counts: {},
    });
  }
  const issues = await conn.runAndReadAll(`SELECT source_key, kind, reason, count, first_location FROM source_issues`);
  for (const i of issues.getRowObjectsJson() as any[]) {
    const f = out.get(i.source_key);
    if (!f) continue;
    if (i.kind === 'warning' || i.kind === 'warning-tail') f.warnings.push(i.reason);
    else if (i.kind === 'skip') {
      const prev = f.skips.find((s) => s.reason === i.reason);
      if (prev) prev.count += Number(i.count);
      else f.skips.push({ reason: i.reason, count: Number(i.count), first: i.first_location });
    } else f.counts[i.reason] = (f.counts[i.reason] ?? 0) + Number(i.count);
  }
  return [...out.values()];
}

/** storedWarnings with the source each one belongs to (a report keeps those of the sources it needs, cli/report.ts). */
export async function storedWarningsBySource(
  conn: DuckDBConnection,
  harnesses: string[],
): Promise<{ source_key: string; harness: string; reason: string }[]> {
  const r = await conn.runAndReadAll(
    `SELECT i.source_key, s.harness, i.reason FROM source_issues i JOIN sources s USING (source_key)
     WHERE i.kind IN ('warning', 'warning-tail') AND list_contains($h, s.harness) ORDER BY s.harness, s.path, i.reason`,
    { h: listValue(harnesses) },
    { h: LIST(VARCHAR) },
  );
  return r.getRowObjectsJson() as { source_key: string; harness: string; reason: string }[];
}

/**
 * The first and last response time (ms) of each of `sourceKeys` that has
 * responses (store/ready.ts ReadyWarning.span): asked for the sources with
 * warnings only, when the ready row is made after an ingest.
 */
export async function responseSpans(
  conn: DuckDBConnection,
  sourceKeys: string[],
): Promise<Map<string, [number, number]>> {
  if (!sourceKeys.length) return new Map();
  const r = await conn.runAndReadAll(
    `SELECT a.source_key, min(r.ts_ms)::DOUBLE AS first, max(r.ts_ms)::DOUBLE AS last
     FROM usage_rows r JOIN event_attrs a USING (attr_id) WHERE list_contains($k, a.source_key) GROUP BY a.source_key`,
    { k: listValue(sourceKeys) },
    { k: LIST(VARCHAR) },
  );
  return new Map(
    (r.getRowObjectsJson() as { source_key: string; first: number; last: number }[]).map((x) => [
      x.source_key,
      [Number(x.first), Number(x.last)],
    ]),
  );
}
