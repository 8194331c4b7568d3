// The sidecar index next to the store (`usage.duckdb.sources.json`): the keys
// of the sources the store knew after the last ingest into it, and of those
// that ingest left unread under its report's horizon (ingest/horizon.ts).
// Only a hint: the early start (early.ts) reads, before the store is open,
// the sources it does not list; a run whose sources it all lists (known, or
// left unread under a horizon no later than its own) starts nothing early,
// and loads nothing for it.
import { readFileSync } from 'node:fs';
import { ownJson, replaceOwnFile } from '../io/own-file.js';

const SIDECAR = 'store-sources';

/**
 * The sidecar's keys; with `horizon` (a report's), also those left unread
 * under that horizon or an earlier one, which this report leaves unread too.
 * Version 1 also held their fingerprints, which nothing needs: it is still
 * read, for its keys.
 */
export function readSidecar(path: string, o: { horizon?: number | null } = {}): Set<string> | null {
  try {
    const j = JSON.parse(readFileSync(path, 'utf8')) as {
      v: number;
      keys?: string[];
      unread?: string[];
      horizon?: number;
      fingerprints?: Record<string, string>;
    };
    const alsoUnread =
      Array.isArray(j.unread) &&
      typeof j.horizon === 'number' &&
      typeof o.horizon === 'number' &&
      o.horizon >= j.horizon;
    if (j.v === 2 && Array.isArray(j.keys)) return new Set(alsoUnread ? [...j.keys, ...j.unread!] : j.keys);
    return j.v === 1 && j.fingerprints ? new Set(Object.keys(j.fingerprints)) : null;
  } catch {
    return null;
  }
}

/** Only a hint for the next run: not written over a file there that is not tx-usage's (io/own-file.ts). */
export function writeSidecar(
  path: string,
  keys: Iterable<string>,
  unread: Iterable<string> = [],
  horizon: number | null = null,
): void {
  const u = [...unread];
  replaceOwnFile(
    path,
    ownJson(SIDECAR, { v: 2, keys: [...keys], ...(u.length && horizon !== null ? { unread: u, horizon } : {}) }),
    SIDECAR,
    ['{"v":'],
  );
}
