// `tx-usage sources`: per harness, the roots searched, the files found, the
// events extracted, and what was skipped (reasons + first location).
import { renderJson } from '../render/json.js';
import { sourceFigures } from '../store/read.js';
import { UsageError } from '../report/period.js';
import { openAndRefresh, type Runtime } from './runtime.js';
import { costFunction } from './pricing.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { compactDays, cursorSection, type CursorSection } from '../report/cursor-days.js';
import { defineReportMacros } from '../report/macros.js';
import { systemTimeZone, todayIn } from '../report/period.js';
import { cursorFirstActivity } from '../store/imports.js';
import { counted } from '../core/plural.js';
import { printableLines } from '../render/terminal-text.js';
import { claudeRetention } from './retention.js';
import { retentionText } from '../harnesses/claude-code/retention.js';
import { KNOWN_UNREAD } from '../harnesses/known-unread/index.js';

export async function sourcesCommand(rt: Runtime, format: string): Promise<void> {
  if (!['table', 'json'].includes(format))
    throw new UsageError(`--format ${JSON.stringify(format)}: expected table or json`);
  const cost = await costFunction(rt);
  const { store, ingest } = await openAndRefresh(rt, cost.fn);
  let figures;
  let cursor: CursorSection | null = null;
  try {
    figures = await sourceFigures(store.conn);
    cursor = await cursorDays(store.conn);
  } finally {
    await store.close();
  }
  const day = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().slice(0, 10));
  // Claude Code deletes old transcripts: how far back its files reach, and the setting (README "Claude Code keeps 30 days").
  const claude = claudeRetention(rt, ingest.scans);
  const harnesses = ingest.scans.map((s) => {
    const files = figures.filter((f) => f.harness === s.harness.id);
    const onDisk = files.filter((f) => f.retained_since_ms === null);
    const counts: Record<string, number> = {};
    for (const f of files) for (const [k, n] of Object.entries(f.counts)) counts[k] = (counts[k] ?? 0) + n;
    const skips = new Map<string, { reason: string; count: number; first: string | null }>();
    for (const f of files)
      for (const sk of f.skips) {
        const t = skips.get(sk.reason);
        if (t) t.count += sk.count;
        else skips.set(sk.reason, { ...sk });
      }
    return {
      harness: s.harness.id,
      name: s.harness.displayName,
      how_to_point: s.harness.howToPoint,
      roots: s.roots,
      files: onDisk.length,
      // Files no longer found whose rows the store keeps (history outlives the transcripts). tx-usage
      // knows only that the searched folders no longer hold them, not that they are deleted: a moved
      // home or a changed customStoragePath leaves them on disk elsewhere (user audit, 2026-12-05).
      retained_files: files.length - onDisk.length,
      events: files.reduce((n, f) => n + f.events, 0),
      billed_events: files.reduce((n, f) => n + f.billed, 0),
      context_rows: files.reduce((n, f) => n + f.contexts, 0),
      counts,
      skipped: [...skips.values()],
      warnings: files.flatMap((f) => f.warnings),
      ...(s.harness.id === 'claude-code'
        ? {
            retention:
              claude && claude.oldestMs !== null
                ? {
                    oldest_transcript_written: day(claude.oldestMs),
                    cleanup_period_days: claude.days,
                    set_in: claude.setIn,
                    note: retentionText(claude),
                  }
                : null,
          }
        : {}),
      sources: files.map((f) => ({
        path: f.path,
        target: linkTarget(f),
        kind: f.kind,
        retained: f.retained_since_ms !== null,
        retained_since: day(f.retained_since_ms),
        events: f.events,
        billed_events: f.billed,
        context_rows: f.contexts,
        skipped: f.skips,
        counts: f.counts,
        warnings: f.warnings,
      })),
    };
  });
  // Harnesses known and not read (src/harnesses/known-unread/): their folders, found or not, and why.
  const ctx = { home: rt.home, env: rt.env, rootOverrides: [] };
  const notRead = KNOWN_UNREAD.map((k) => ({
    harness: k.id,
    name: k.displayName,
    reason: k.reason,
    roots: k.roots(ctx),
  }));
  if (format === 'json') {
    process.stdout.write(
      renderJson({ harnesses, not_read: notRead, cursor, discovery_warnings: ingest.discoveryWarnings }),
    );
    return;
  }
  const out: string[] = [];
  for (const h of harnesses) {
    out.push(
      `${h.name} (${h.harness}): ${h.files} source${h.files === 1 ? '' : 's'}` +
        (h.retained_files
          ? ` (+ ${h.retained_files} retained: files no longer found in the searched folders, rows kept)`
          : '') +
        `, ${counted(h.events, 'event')} extracted, ${h.billed_events} billed after dedupe` +
        (h.context_rows ? `, ${counted(h.context_rows, 'context row')}` : ''),
    );
    for (const r of h.roots)
      out.push(
        `  root ${r.exists ? 'found  ' : 'missing'} ${r.path}${r.target ? ` -> ${r.target}` : ''}  [${r.origin}]${r.exists && r.unread ? ` not read: ${r.unread}` : ''}`,
      );
    if (!h.files && !h.retained_files) out.push(`  (nothing found: ${h.how_to_point})`);
    if ('retention' in h && h.retention?.note) out.push(`  note: ${h.retention.note}`);
    for (const [k, n] of Object.entries(h.counts)) out.push(`  ${k}: ${n}`);
    for (const s of h.sources) {
      const extra = s.context_rows ? `, ${counted(s.context_rows, 'context row')}` : '';
      out.push(
        `  ${s.path}${s.target ? ` -> ${s.target}` : ''}: ${counted(s.events, 'event')}${extra}${s.retained ? ` (retained: no longer found in the searched folders since ${s.retained_since}, rows kept)` : ''}`,
      );
      // Per file, what its extractor counted (Codex: own responses, copies of which thread, the copy's boundary).
      for (const [k, n] of Object.entries(s.counts ?? {})) out.push(`    ${k}: ${n}`);
      for (const sk of s.skipped) out.push(`    skipped ${sk.count} × ${sk.reason} (first at ${sk.first})`);
      for (const w of s.warnings) out.push(`    warning: ${w}`);
    }
  }
  for (const k of notRead.filter((x) => x.roots.some((r) => r.exists))) {
    out.push(`${k.name} (${k.harness}): found, not counted: ${k.reason}`);
    for (const r of k.roots.filter((x) => x.exists))
      out.push(`  root found   ${r.path}${r.target ? ` -> ${r.target}` : ''}  [${r.origin}] not read`);
  }
  if (cursor) out.push(...cursorLines(cursor));
  for (const w of ingest.discoveryWarnings) out.push(`warning: ${w}`);
  process.stdout.write(printableLines(out.join('\n')) + '\n');
}

/**
 * Where a source really is when it was reached through a symbolic link (a
 * linked project or session folder, a linked file): its key is its real
 * path (src/harnesses/roots.ts), so a key other than its path names the target.
 */
function linkTarget(f: { source_key: string; path: string }): string | null {
  return f.source_key !== f.path ? f.source_key : null;
}

/** Cursor's billed days (imported) beside its local chat days, over all of its history (the `cursor` section). */
async function cursorDays(conn: DuckDBConnection): Promise<CursorSection | null> {
  const first = await cursorFirstActivity(conn);
  if (first === null) return null;
  await defineReportMacros(conn);
  const tz = systemTimeZone();
  return cursorSection(conn, {
    since: new Date(first).toISOString().slice(0, 10),
    until: todayIn(tz, new Date()),
    tz,
    costMode: 'auto',
  });
}

function cursorLines(c: CursorSection): string[] {
  const billed = c.days.filter((d) => d.billed_rows > 0);
  const local = c.days.filter((d) => d.local_chats > 0);
  const rows = billed.reduce((n, d) => n + d.billed_rows, 0);
  const out = ['Cursor: billed usage (imported) beside local chats'];
  out.push(
    `  billed days: ${billed.length}${billed.length ? ` (${compactDays(billed.map((d) => d.day))}), ${rows} billed rows` : ' (import with: tx-usage import cursor-usage FILE.csv)'}`,
  );
  out.push(
    `  local chat days: ${local.length}, of which billed: ${local.filter((d) => d.billed_rows > 0).length}, none billed within an import: ${local.filter((d) => d.status === 'local, none billed').length}, not imported: ${c.days_not_imported.length}`,
  );
  if (c.days_not_imported.length) out.push(`  not imported: ${compactDays(c.days_not_imported)}`);
  return out;
}
