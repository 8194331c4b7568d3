// The store for a report or `limits`, found up to date or brought up to date.
//
// A question asked of a store no source has changed since its last ingest
// (the common case: a new report, another grouping) pays only what it must
// before its query: the sources (the discovery record replayed, one stat per
// folder), one stat per source (taken while DuckDB opens the store), one
// query of the store's meta (its sources digest, its pricing fingerprint and
// the ready row, store/ready.ts). When the digest of the stats is the
// store's, the ready row is of that state and the prices would be made from
// the same files as the row's (core/inputs.ts), the store is current: no
// harness module, ingest, price data or warning query is loaded or run, and
// the report takes its warnings from the ready row. Anything else is the full
// path, on the store already open: prices loaded, re-pricing, the ingest,
// and a new ready row written for the next question.
import { existsSync } from 'node:fs';
import { findSources, writeStatsFile } from './memo.js';
import { earlyStarted, offerDiscovery, setLastIngestDigest, takeOfferedDiscovery } from '../ingest/handoff.js';
import { fingerprintsOf, scanDigest, stampAll, type ScanFacts, type Stamp } from '../ingest/stamp.js';
import { inputsHold, noteHeld } from '../core/inputs.js';
import { todayIn } from '../report/period.js';
import { mark } from '../core/trace.js';
import {
  checkDbFolder,
  notice,
  openAndRefresh,
  refreshStore,
  rootProblems,
  type Refreshed,
  type Runtime,
} from './runtime.js';
import { openStore, type Store } from '../store/store.js';
import { readCurrentMeta, type Ready } from '../store/ready.js';
import { upToDateFor } from '../store/sources-digest.js';
import type { IngestResult } from '../ingest/ingest.js';
import { warningLines } from '../render/terminal-text.js';
import type { CostSetup } from './pricing.js';

/**
 * What a process that keeps running (`serve`, `mcp`: cli/answers.ts) keeps
 * between its openings. `held`: the store it kept open, used instead of
 * opening it again (the opening either answers on it or closes it).
 * `prices`: its cost function, made once and kept while its inputs hold.
 */
export interface KeptOpen {
  held?: Store;
  prices?: () => Promise<CostSetup>;
}

export interface Answerable {
  store: Store;
  /** Every source found, by harness; the harness modules themselves only when the full path ran. */
  scans: ScanFacts[];
  /** What the ingest did; null when the store was found current. */
  ingest: IngestResult | null;
  discoveryWarnings: string[];
  /** The --root problems (rootProblems), already on stderr unless the caller kept them. */
  rootWarnings: string[];
  /** A store that could not be written, answered from as it is: its warning. */
  storeWarnings: string[];
  ready: Ready;
  /** The sources digest of what was found on disk (ingest.ts scanDigest): a later opening that finds another has other sources to report. */
  digest: string;
  /**
   * The prices' own warnings: as recorded (current), or the pricer's (the
   * full path's, those its pricing met in this run included).
   */
  pricingWarnings: string[];
}

interface Opened {
  store: Store;
  found: { scans: ScanFacts[]; warnings: string[] };
  stamps: Map<string, Stamp | null>;
  digest: string;
  ready: Ready | null;
  current: boolean;
}

/**
 * The store opened, with whether it is current for the sources on disk now;
 * null when it is not there to open (a first run), or when another way must
 * answer (--rebuild, an in-memory store, an early extraction under way, no
 * source found: the full path says what it says then).
 */
async function openIfThere(rt: Runtime, horizonMs: number | null, held?: Store): Promise<Opened | null> {
  if (rt.rebuild || rt.dbPath === ':memory:' || earlyStarted() || !existsSync(rt.dbPath)) return null;
  const offered = takeOfferedDiscovery(rt);
  let found: {
    scans: ScanFacts[];
    warnings: string[];
    stamps?: Map<string, Stamp | null> | Promise<Map<string, Stamp | null>> | null;
  };
  if (offered) found = offered;
  else {
    const f = await findSources(rt, true);
    f.saveRecord?.();
    found = f;
  }
  const giveBack = (stamps: Map<string, Stamp | null> | null) =>
    offerDiscovery(rt, found.scans, found.warnings, stamps);
  if (!found.scans.some((s) => s.sources.length > 0)) {
    giveBack(null);
    return null;
  }
  // DuckDB opens the store on its own threads while this one stamps the sources (unless the caller holds it open).
  const opening = held ? Promise.resolve(held) : openStore(rt.dbPath, { threads: 2 });
  opening.catch(() => undefined);
  const stamps = (await found.stamps) ?? stampAll(found.scans);
  const digest = scanDigest(found.scans, fingerprintsOf(stamps), found.warnings);
  mark('sources stamped');
  let store: Store;
  try {
    store = await opening;
  } catch {
    // Read-only, in use, not a store...: the full path opens it again and says so, or answers as it can.
    giveBack(stamps);
    return null;
  }
  mark(store === held ? 'store held open' : 'store open');
  if (store.notice && store !== held) notice(rt, store.notice);
  try {
    const meta = await readCurrentMeta(store.conn);
    const r = meta.ready;
    const current =
      r !== null &&
      r.digest === digest &&
      upToDateFor(meta.sources, digest, r.horizonless ? null : horizonMs) &&
      r.pricing.fingerprint === meta.pricing &&
      r.pricing.basis.home === rt.home &&
      r.pricing.basis.pricesFile === (rt.pricesFile ?? null) &&
      inputsHold(r.pricing.inputs, todayIn);
    return { store, found, stamps, digest, ready: r, current };
  } catch (e) {
    await store.close();
    throw e;
  }
}

/**
 * The store, current or brought up to date, with what a report needs besides
 * its query. The --root problems go to stderr as warnings, unless
 * `keepRootWarnings` (the report puts them among its own warnings).
 */
export async function openAnswerable(
  rt: Runtime,
  o: { horizonMs: number | null; keepRootWarnings?: boolean; readOnlyOk?: boolean } & KeptOpen,
): Promise<Answerable> {
  checkDbFolder(rt);
  const rootWarnings = [...rootProblems(rt).values()].flat();
  if (!o.keepRootWarnings && !rt.quiet) process.stderr.write(warningLines(rootWarnings));
  let opened: Opened | null;
  try {
    opened = await openIfThere(rt, o.horizonMs, o.held);
  } catch (e) {
    if (o.held) await o.held.close().catch(() => undefined);
    throw e;
  }
  // A store held open that this opening does not use is closed now: the path below opens the store anew, and would wait on its lock.
  if (o.held && opened?.store !== o.held) await o.held.close();
  if (opened?.current) {
    mark('store current');
    // What the prices were made from is what this answer depends on, as if they had been loaded (the memo keys on it).
    noteHeld(opened.ready!.pricing.inputs);
    const sources = opened.found.scans.reduce((n, s) => n + s.sources.length, 0);
    setLastIngestDigest(opened.digest);
    writeStatsFile({
      kind: 'ingest',
      current: true,
      upToDate: true,
      bytesRead: 0,
      tailCheckBytes: 0,
      workers: 0,
      earlyUsed: 0,
      events: 0,
      unchanged: sources,
      appended: 0,
      rewritten: 0,
      removed: 0,
      retained: opened.ready!.retained,
      deferred: 0,
    });
    return {
      store: opened.store,
      scans: opened.found.scans,
      ingest: null,
      discoveryWarnings: opened.found.warnings,
      rootWarnings,
      storeWarnings: [],
      ready: opened.ready!,
      digest: opened.digest,
      pricingWarnings: opened.ready!.pricing.warnings,
    };
  }
  // The full path: prices, the ingest (of the sources and stamps found above, when the store was opened), a new ready row.
  const cost = o.prices ? await o.prices() : await (await import('./pricing.js')).costFunction(rt);
  mark(o.prices ? 'prices kept' : 'prices loaded');
  let r: Omit<Refreshed, 'rootWarnings'>;
  if (opened) {
    offerDiscovery(rt, opened.found.scans, opened.found.warnings, opened.stamps);
    r = await refreshStore(rt, opened.store, cost.fn, { horizonMs: o.horizonMs, ready: true });
  } else {
    r = await openAndRefresh(rt, cost.fn, {
      horizonMs: o.horizonMs,
      keepRootWarnings: true,
      readOnlyOk: o.readOnlyOk,
      ready: true,
    });
    if (!o.keepRootWarnings && !rt.quiet) process.stderr.write(warningLines(r.storeWarnings));
  }
  return {
    store: r.store,
    scans: r.ingest.scans,
    ingest: r.ingest,
    discoveryWarnings: r.ingest.discoveryWarnings,
    rootWarnings,
    storeWarnings: r.storeWarnings,
    ready: r.ready!,
    digest: r.ingest.digest,
    pricingWarnings: cost.warnings,
  };
}
