// Hand-offs within one process between the warm fast path, the ingest and
// the memo, kept apart from discovery so the fast path needs no harness module.
import type { DiscoverOptions } from './discover.js';
import type { ScanFacts, Stamp } from './stamp.js';

/** Where the ingest leaves, next to the store, the index of the sources the store knows (see early.ts). */
export function sidecarPath(dbPath: string): string | null {
  return dbPath === ':memory:' ? null : `${dbPath}.sources.json`;
}

// Hand-offs within one process, so the warm fast path and the ingest that
// may follow it do not search twice and the memo learns what was ingested.
type Stamps = Map<string, Stamp | null> | Promise<Map<string, Stamp | null>>;
let offered: { opts: DiscoverOptions; scans: ScanFacts[]; warnings: string[]; stamps: Stamps | null } | null = null;
let lastDigest: string | null = null;
let early = false;

/** Says that an early extraction was started for this run (ingest/early.ts): the store cannot be current then. */
export function noteEarlyStart(): void {
  early = true;
}

export function earlyStarted(): boolean {
  return early;
}

/**
 * Offers sources just discovered with `opts` (or replayed from the
 * discovery record: harness ids only) to the next ingest with the same
 * options (taken once), with the stamps taken of them before anything was
 * read, if any.
 */
export function offerDiscovery(
  opts: DiscoverOptions,
  scans: ScanFacts[],
  warnings: string[],
  stamps: Stamps | null = null,
): void {
  offered = {
    opts: { home: opts.home, env: opts.env, rootOverrides: opts.rootOverrides },
    scans,
    warnings: [...warnings],
    stamps,
  };
}

export function takeOfferedDiscovery(
  opts: DiscoverOptions,
): { scans: ScanFacts[]; warnings: string[]; stamps: Stamps | null } | null {
  const o = offered;
  offered = null;
  if (
    !o ||
    o.opts.home !== opts.home ||
    o.opts.env !== opts.env ||
    JSON.stringify(o.opts.rootOverrides) !== JSON.stringify(opts.rootOverrides)
  )
    return null;
  return { scans: o.scans, warnings: o.warnings, stamps: o.stamps };
}

/** Digest (see scanDigest) of the sources the last ingest in this process brought the store up to date with. */
export function lastIngestDigest(): string | null {
  return lastDigest;
}

export function setLastIngestDigest(d: string | null): void {
  lastDigest = d;
}
