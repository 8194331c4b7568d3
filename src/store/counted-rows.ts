// The responses the store holds from one source, as the events they were
// written from: what a JSONL transcript rewritten in place or truncated keeps
// of its counted history (src/ingest/ingest.ts keepCounted).
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Grain, HarnessId, UsageEvent } from '../core/types.js';

const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Every response row of source `key` (its costs as recorded; computed costs are priced again when written). */
export async function countedRowsOf(conn: DuckDBConnection, key: string): Promise<UsageEvent[]> {
  const r = await conn.runAndReadAll(
    `SELECT a.harness, a.session_id, a.project, a.model, a.provider, a.source_file, a.billing_kind, a.speed, a.grain,
            r.ts_ms, r.dedupe_key, r.dedupe_rank, r.requests, r.input_tokens, r.cache_read_tokens, r.cache_write_tokens,
            r.cache_write_5m_tokens, r.cache_write_1h_tokens, r.output_tokens, r.reasoning_tokens,
            r.recorded_cost_e10, r.source_line, r.request_units_e6, r.web_search_requests, r.iteration
     FROM usage_rows r JOIN event_attrs a USING (attr_id) WHERE a.source_key = $key`,
    { key },
  );
  return (r.getRowObjectsJson() as Record<string, unknown>[]).map((x) => ({
    harness: x.harness as HarnessId,
    session_id: String(x.session_id),
    project: (x.project as string | null) ?? null,
    model: (x.model as string | null) ?? null,
    provider: (x.provider as string | null) ?? null,
    ts: Number(x.ts_ms),
    dedupe_key: String(x.dedupe_key),
    dedupe_rank: Number(x.dedupe_rank),
    requests: Number(x.requests),
    input_tokens: Number(x.input_tokens),
    cache_read_tokens: Number(x.cache_read_tokens),
    cache_write_tokens: Number(x.cache_write_tokens),
    cache_write_5m_tokens: n(x.cache_write_5m_tokens),
    cache_write_1h_tokens: n(x.cache_write_1h_tokens),
    output_tokens: Number(x.output_tokens),
    reasoning_tokens: Number(x.reasoning_tokens),
    recorded_cost_usd: x.recorded_cost_e10 === null ? null : Number(x.recorded_cost_e10) / 1e10,
    source_file: String(x.source_file),
    source_line: n(x.source_line),
    billing_kind: (x.billing_kind as string | null) ?? null,
    request_units:
      x.request_units_e6 === null || x.request_units_e6 === undefined ? null : Number(x.request_units_e6) / 1e6,
    speed: (x.speed as string | null) ?? null,
    web_search_requests: n(x.web_search_requests),
    iteration: n(x.iteration),
    grain: (x.grain as Grain | null) ?? null,
  }));
}
