// What `tx-usage import` can import: per kind of export, the harness whose
// rows it becomes and the check that reads a file exactly as that harness's
// extractor will (so a file that passes is one the ingest takes whole).
import type { HarnessId } from '../core/types.js';
import type { ImportKindName } from './dir.js';

/** What a file holds, as the check read it. */
export interface ImportCheck {
  /** Data rows (blank lines not counted). */
  rows: number;
  /** Rows that are billed responses. */
  billed: number;
  /** Rows without usage (errored, no charge): counted, never billed. */
  noUsage: number;
  /** First and last row time (epoch ms), null without rows. */
  firstTs: number | null;
  lastTs: number | null;
}

export interface ImportKind {
  name: ImportKindName;
  harness: HarnessId;
  title: string;
  /** Reads the whole file; throws CsvError (line, column, reason) at anything it would not take. */
  check(bytes: Uint8Array): Promise<ImportCheck>;
}

export const IMPORTERS: Record<ImportKindName, ImportKind> = {
  'cursor-usage': {
    name: 'cursor-usage',
    harness: 'cursor-agent',
    title: "Cursor's dashboard usage-events CSV (cursor.com/dashboard → Usage → Export CSV)",
    async check(bytes) {
      const { parseUsageCsv } = await import('../harnesses/cursor-agent/usage-csv.js');
      const { rows } = parseUsageCsv(bytes);
      let firstTs: number | null = null;
      let lastTs: number | null = null;
      let noUsage = 0;
      for (const r of rows) {
        if (r.noUsage) noUsage++;
        if (firstTs === null || r.ts < firstTs) firstTs = r.ts;
        if (lastTs === null || r.ts > lastTs) lastTs = r.ts;
      }
      return { rows: rows.length, billed: rows.length - noUsage, noUsage, firstTs, lastTs };
    },
  },
};
