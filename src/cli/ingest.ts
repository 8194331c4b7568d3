// `tx-usage ingest`: refresh the store explicitly and say what changed.
import { openAndRefresh, type Runtime } from './runtime.js';
import { costFunction } from './pricing.js';
import { findSources } from './memo.js';
import { offerDiscovery } from '../ingest/handoff.js';
import { counted } from '../core/plural.js';
import { warningLines } from '../render/terminal-text.js';

export async function ingestCommand(rt: Runtime): Promise<void> {
  // The sources from the discovery record when it holds, else discovered and recorded (as a report finds them).
  const found = await findSources(rt, true);
  offerDiscovery(rt, found.scans, found.warnings);
  found.saveRecord?.();
  const cost = await costFunction(rt);
  // With the ready row a report then finds the store current by (store/ready.ts).
  const { store, ingest } = await openAndRefresh(rt, cost.fn, { ready: true });
  await store.close();
  if (rt.quiet) return;
  const total = ingest.scans.reduce((n, s) => n + s.sources.length, 0);
  process.stdout.write(
    `${counted(total, 'source')}: ${ingest.rewritten} read, ${ingest.appended} appended, ${ingest.unchanged} unchanged` +
      (ingest.removed
        ? `, ${ingest.removed} no longer found in the searched folders (their rows are kept as history)`
        : '') +
      (ingest.retained ? `; ${ingest.retained} retained in all (see tx-usage sources)` : '') +
      '\n',
  );
  process.stderr.write(warningLines(ingest.discoveryWarnings));
}
