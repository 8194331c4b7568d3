// Makes the live snapshot (snapshot.ts) from a store just brought up to date.
import { statSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { HARNESS_IDS, type HarnessId } from '../core/types.js';
import type { IngestResult } from '../ingest/ingest.js';
import type { PriceCache } from '../pricing/cache.js';
import { LIST, VARCHAR, listValue } from '../store/duckdb.js';
import { loadTemplate, runTemplate } from '../report/template.js';
import { latestBlockStarts, readEvents } from './events.js';
import { storedSnapshots } from './limits-view.js';
import { mark } from '../core/trace.js';
import {
  SNAPSHOT_SPAN_MS,
  SNAPSHOT_VERSION,
  sessionKey,
  snapSource,
  type LiveSnapshot,
  type SnapSource,
} from './snapshot.js';

export interface BuildOptions {
  now: number;
  dbPath: string;
  /** The harnesses whose transcripts a status line may resume (their sources are listed). */
  lineHarnesses: string[];
  /** Prices a response of this harness, provider and model now (the ingest's pricer): resolves the models seen, so that their prices can be exported. */
  price: (harness: HarnessId, provider: string | null, model: string) => unknown;
  exportPrices: (at: number[]) => PriceCache;
  /** The first instant of the current month in the status line's zone. */
  monthStart: number;
}

const ALL: string[] = [...HARNESS_IDS];

/** Makes the snapshot from a store the caller has just brought up to date (with the report macros defined). */
export async function buildSnapshot(
  conn: DuckDBConnection,
  ingest: IngestResult,
  o: BuildOptions,
): Promise<LiveSnapshot> {
  const spanFrom = o.now - SNAPSHOT_SPAN_MS;
  // Where each harness's latest block before the span starts, not where its
  // chain starts: a busy history's chain runs for months, and the snapshot
  // (read by every status line) would carry every response since.
  const anchors = await latestBlockStarts(conn, { harnesses: ALL, project: '' }, spanFrom);
  const block_from: Record<string, number> = {};
  for (const h of ALL) block_from[h] = anchors.get(h) ?? spanFrom;
  const from = Math.min(spanFrom, ...Object.values(block_from));
  mark('snapshot: anchors');
  const events = await readEvents(
    conn,
    { harnesses: ALL, project: '', costMode: 'auto' },
    from,
    Number.MAX_SAFE_INTEGER,
  );
  mark('snapshot: events');

  // The status-line harnesses' transcripts written since `from`.
  const refs = ingest.scans.filter((s) => o.lineHarnesses.includes(s.harness.id)).flatMap((s) => s.sources);
  const recent = refs.filter((r) => {
    try {
      return r.kind === 'jsonl' && statSync(r.path).mtimeMs >= from;
    } catch {
      return false;
    }
  });
  const sources: Record<string, SnapSource> = {};
  if (recent.length) {
    const keys = recent.map((r) => r.key);
    const book = await conn.runAndReadAll(
      `SELECT s.source_key, s.size, s.ino, s.resume_offset, s.resume_lines, s.resume_state, s.tail_hash,
              (SELECT list(DISTINCT session_id ORDER BY session_id) FROM event_attrs a WHERE a.source_key = s.source_key) AS sessions
       FROM sources s WHERE list_contains($keys, s.source_key)`,
      { keys: listValue(keys) },
      { keys: LIST(VARCHAR) },
    );
    const byKey = new Map(recent.map((r) => [r.key, r]));
    for (const row of book.getRowObjectsJson() as Record<string, unknown>[]) {
      const ref = byKey.get(String(row.source_key))!;
      const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
      sources[ref.path] = snapSource(
        ref,
        {
          size: Number(row.size),
          ino: (row.ino as string | null) ?? null,
          resume_offset: num(row.resume_offset),
          resume_lines: num(row.resume_lines),
          resume_state: (row.resume_state as string | null) ?? null,
          tail_hash: (row.tail_hash as string | null) ?? null,
        },
        ((row.sessions as string[] | null) ?? []).map(String),
      );
    }
  }
  mark('snapshot: sources');
  const sessRows = await runTemplate(conn, loadTemplate('live_sessions'), {
    harnesses: ALL,
    cost_mode: 'auto',
    from_ms: Math.floor(from),
    source_keys: Object.values(sources).map((s) => s.key),
  });
  const sessions: LiveSnapshot['sessions'] = {};
  const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
  for (const r of sessRows) {
    const { harness, session_id, ...sums } = r;
    sessions[sessionKey(String(harness), String(session_id))] = Object.fromEntries(
      Object.entries(sums).map(([k, v]) => [k, str(v)]),
    ) as LiveSnapshot['sessions'][string];
  }
  mark('snapshot: sessions');
  // Every model the store has seen for the status-line harnesses is resolved,
  // so that its prices are in the export: a session may switch to one it used
  // days ago.
  const models = await conn.runAndReadAll(
    `SELECT DISTINCT harness, provider, model FROM event_attrs WHERE model IS NOT NULL AND list_contains($h, harness)`,
    { h: listValue(o.lineHarnesses) },
    { h: LIST(VARCHAR) },
  );
  for (const r of models.getRowObjectsJson() as { harness: string; provider: string | null; model: string }[])
    o.price(r.harness as HarnessId, r.provider, r.model);
  const prices = o.exportPrices([o.now, o.now + 86_400_000]);
  mark('snapshot: prices');
  const limits = await storedSnapshots(conn, ALL, o.now - 8 * 86_400_000);
  const before =
    o.monthStart < from
      ? (
          await runTemplate(conn, loadTemplate('live_period_sums'), {
            from_ms: [Math.floor(o.monthStart)],
            until_ms: [Math.floor(from)],
            harnesses: ALL,
            project: '',
            cost_mode: 'auto',
          })
        ).map((r) => ({
          harness: String(r.harness),
          project: (r.project as string | null) ?? null,
          cost_e10: str(r.cost_e10),
          unpriced_requests: Number(r.unpriced_requests),
        }))
      : [];
  return {
    v: SNAPSHOT_VERSION,
    made_at: o.now,
    db: o.dbPath,
    from,
    block_from,
    events,
    sessions,
    sources,
    prices,
    limits,
    month: { start: o.monthStart, before },
  };
}
