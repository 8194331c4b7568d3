// `tx-usage explain PATH|SESSION...`: every usage-bearing record of a
// transcript, database or session, what it was counted as and by which rule,
// and what it added (src/explain/). Orchestration only: the store is brought
// up to date as for `sources` (every source read), the explanation made and
// rendered.
import { rmSync } from 'node:fs';
import { explain, type ExplainDocument } from '../explain/explain.js';
import { explainCsv, explainTables } from '../explain/datasets.js';
import { renderCsv } from '../render/csv.js';
import { renderJson } from '../render/json.js';
import { renderTable } from '../render/table.js';
import { warningLines } from '../render/terminal-text.js';
import { inputIsTTY, outputColumns } from '../core/inputs.js';
import { UsageError } from '../report/period.js';
import { reportParams, type ReportStore } from './report.js';
import type { HarnessScan } from '../ingest/discover.js';
import { harnessById } from '../harnesses/registry.js';
import { costFunction } from './pricing.js';
import { openAndRefresh, rootProblems, type Runtime } from './runtime.js';
import { makeWorkDir } from './workdir.js';

export interface ExplainArgs {
  paths: string[];
  since?: string;
  until?: string;
  tz?: string;
  cost?: string;
  format?: string;
}

const FORMATS = ['table', 'json', 'csv'];

export async function explainCommand(rt: Runtime, a: ExplainArgs): Promise<void> {
  const format = a.format ?? 'table';
  if (!FORMATS.includes(format))
    throw new UsageError(`--format ${JSON.stringify(a.format)}: expected table, json or csv`);
  const doc = await answerExplain(rt, a);
  if (format === 'json') process.stdout.write(renderJson(doc));
  else if (format === 'csv') process.stdout.write(renderCsv(explainCsv(doc)));
  else {
    const opts = { width: outputColumns(), color: rt.color, home: rt.home, wholeIds: !inputIsTTY(1) };
    process.stdout.write(
      explainTables(doc)
        .map((d) => renderTable(d, opts))
        .join('\n'),
    );
  }
  // Warnings go to stderr in every format (JSON carries them too), control characters made visible.
  if (!rt.quiet) process.stderr.write(warningLines(doc.warnings));
}

/**
 * The explanation (the JSON document `explain --format json` prints), for
 * the CLI, `serve` and `mcp` alike. `use`: a store already opened for
 * reports with every source read (report.ts openReportStore with no
 * horizon), left open.
 */
export async function answerExplain(rt: Runtime, a: ExplainArgs, use?: ReportStore): Promise<ExplainDocument> {
  if (!a.paths?.length)
    throw new UsageError('explain needs a file, database, folder or session id: tx-usage explain PATH');
  // The window and cost rule read as a report reads them; no window when neither end is given.
  const windowed = a.since !== undefined || a.until !== undefined;
  const p = reportParams({ since: a.since ?? '0001-01-01', until: a.until, tz: a.tz, cost: a.cost }, ['day']);
  const cost = use ? null : await costFunction(rt);
  const opened = use ? null : await openAndRefresh(rt, cost!.fn, { keepRootWarnings: true });
  const store = use?.store ?? opened!.store;
  // A store found current (current.ts) carries its sources without their harness modules: explain reads with them.
  const scans: HarnessScan[] = opened
    ? opened.ingest.scans
    : (use!.ingest?.scans ?? use!.scans.map((s) => ({ ...s, harness: harnessById(s.harness.id)! })));
  const rootWarnings = opened?.rootWarnings ?? [...rootProblems(rt).values()].flat();
  const tmp = makeWorkDir();
  try {
    const warnings = [
      ...rootWarnings,
      ...(opened ? opened.ingest.discoveryWarnings : use!.discoveryWarnings),
      ...(cost ? cost.warnings : use!.pricingWarnings),
    ];
    // The price breakdown per record needs the price table also when the store came from serve or mcp (made once per process).
    const pricer = (cost ?? (await costFunction(rt))).pricer;
    return await explain(
      store.conn,
      scans,
      a.paths,
      {
        since: windowed ? p.since : null,
        until: windowed ? p.until : null,
        tz: p.tz,
        costMode: p.costMode,
        tmpDir: tmp,
        pricer,
      },
      warnings,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    if (opened) await store.close();
  }
}
