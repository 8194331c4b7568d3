// The delta path of `tx-usage report`: a report remembered in the memo whose
// sources have since only grown by a few lines is brought up to date without
// loading DuckDB or the price data. It reads exactly the appended bytes of
// each grown transcript, adds the responses found there to the remembered
// rows (report/summary-delta.ts), prints the result, and leaves what it read
// in the journal for the next ingest to write (ingest/delta-state.ts).
//
// It answers only when it can prove the answer equals the full path's:
// the memo entry was rendered at a state the base and journal describe (the
// journal's responses since that state are added too), every
// changed source is a resumable JSONL transcript that only grew (same inode,
// same bytes before its resume point), the appended bytes raise no warning,
// no response in them has a dedupe key the store already holds (one the
// journal holds counts once, by the store's own rule), and every one is
// priced from the cache. Otherwise it names the reason and the caller takes
// the full path.
//
// Bundled on its own by scripts/bundle.mjs into dist/src/cli/delta.cjs and
// loaded by the memo check only on a miss.
import type { ScanDigests, ScanFacts, Stamp } from '../ingest/stamp.js';
import type { SourceRef } from '../harnesses/types.js';
import { tailCheckBytes, tailHash } from '../ingest/tail.js';
import { appendJournal, hasKey, keyHash, readBase, readJournal, virtualState, type JournalWrite } from '../ingest/delta-state.js';
import { collectSource } from '../ingest/collect.js';
import { APPEND_EXTRACTORS, RANK_MARKS_COPIES } from '../harnesses/append.js';
import { readCounter } from '../io/jsonl.js';
import { cachedCost, PRICE_MISS } from '../pricing/cache.js';
import { addEvents, changesFor, pricedEvent, renderSnapshot, type PricedEvent, type SummarySnapshot } from '../report/summary-delta.js';
import type { UsageEvent } from '../core/types.js';
import type { TemplateRow } from '../report/summary-rows.js';
import { tmpdir } from 'node:os';
import { mark } from '../core/trace.js';

export interface DeltaRequest {
  dbPath: string;
  /** The memo entry: the digest it was rendered at, and its snapshot. */
  digest: string;
  snapshot: SummarySnapshot;
  /** What the memo check found now, its stamps, and their digests. */
  scans: ScanFacts[];
  stamps: Map<string, Stamp | null>;
  now: ScanDigests;
}

export interface DeltaAnswer {
  text: string;
  rows: TemplateRow[];
  /** The digest of the sources as read now. */
  digest: string;
  /** Sources appended to, responses read from them, responses added from the journal, bytes read. */
  stats: { appended: number; events: number; fromJournal: number; bytesRead: number; tailCheckBytes: number };
}

export async function tryDelta(q: DeltaRequest): Promise<DeltaAnswer | { fallback: string }> {
  const no = (fallback: string) => ({ fallback });
  if (true as boolean) return no('units of work (issue 27) are not journaled: the full path counts them'); // the delta path is being removed (TEAM.md)
  mark('delta: loaded');
  const base = readBase(q.dbPath);
  if (!base) return no('no delta base beside the store');
  mark('delta: base read');
  if (!base.prices || base.prices.fingerprint !== q.snapshot.pricer) return no('prices differ from the remembered report\'s');
  // Same roots, sources and discovery warnings as then: only fingerprints moved.
  if (q.now.shape() !== base.shape) return no('sources were added, removed or moved');
  const state = virtualState(base, readJournal(q.dbPath), q.now.keys);
  if (!state) return no('journal does not follow the base');
  // The remembered report is at some state of the chain: what the journal
  // added since then is added to it too (another command line may have taken
  // the delta path meanwhile).
  const at = state.digests.indexOf(q.digest);
  if (at < 0) return no('the remembered report is older than the base');
  mark('delta: state checked');

  const byKey = new Map<string, SourceRef>();
  for (const s of q.scans) for (const src of s.sources) byKey.set(src.key, src);
  const changed: SourceRef[] = [];
  q.now.keys.forEach((k, i) => {
    if ((q.stamps.get(k)?.fingerprint ?? 'missing') !== state.fps[i]) changed.push(byKey.get(k)!);
  });

  let checkBytes = 0;
  const bytesBefore = readCounter.bytes;
  const writes: JournalWrite[] = [];
  const fresh: UsageEvent[] = [];
  for (const src of changed) {
    const extract = APPEND_EXTRACTORS[src.harness];
    const book = state.book(src.key);
    const stamp = q.stamps.get(src.key);
    if (!extract || src.kind !== 'jsonl' || !book || !stamp) return no(`${src.path} is not a resumable transcript`);
    if (stamp.ino !== book.ino || stamp.size <= book.size || book.resume_offset > stamp.size) return no(`${src.path} did not only grow`);
    if (book.tailWarned) return no(`${src.path} had a torn last line`);
    checkBytes += tailCheckBytes(book.resume_offset);
    if (tailHash(src.path, book.resume_offset) !== book.tail_hash) return no(`${src.path} changed before its resume point`);
    const resume = { offset: book.resume_offset, lines: book.resume_lines, state: book.resume_state === null ? undefined : JSON.parse(book.resume_state) };
    const c = await collectSource({ extract, displayName: src.harness }, src, { resume, tmpDir: tmpdir(), knownProjects: new Set() });
    const why = c.failed ? 'unreadable' : c.warnings[0] ?? c.tailWarnings[0] ?? (c.estimates.length ? 'a session estimate' : c.contexts.length ? 'context rows' : !c.resume ? 'no resume point' : null);
    if (why) return no(`${src.path}: appended lines need the full path (${why})`);
    for (const e of c.events) {
      // A key the store has: the store's rows for it are not known here.
      if (hasKey(base.keys, keyHash(e.harness, e.dedupe_key))) return no(`${src.path}: a response seen before (${e.dedupe_key})`);
      // A copy whose original may sit in a source the store has not read (horizon.ts): the full path reads those.
      if (e.dedupe_rank > 0 && RANK_MARKS_COPIES[e.harness] && (base.deferred ?? 0) > 0) return no(`${src.path}: a copied response while ${base.deferred} sources are unread`);
      fresh.push(e);
    }
    const rp = c.resume!;
    writes.push({
      key: src.key,
      baseFingerprint: book.fingerprint,
      book: {
        harness: src.harness,
        path: src.path,
        kind: src.kind,
        fingerprint: stamp.fingerprint,
        size: stamp.size,
        ino: stamp.ino,
        resume_offset: rp.offset,
        resume_lines: rp.lines,
        resume_state: rp.state === undefined ? null : JSON.stringify(rp.state),
        tail_hash: tailHash(src.path, rp.offset),
        tailWarned: false,
      },
      events: c.events,
      skips: c.skips,
      counts: c.counts,
    });
  }
  mark('delta: appended lines read');
  // The journal's responses since the report's state, and the new ones; a key
  // the journal holds more than once (a response's split lines read by two
  // runs) counts its billed line alone, as the store will.
  const counted = state.journalEvents.filter((j) => j.record < at);
  const replayed = state.journalEvents.filter((j) => j.record >= at);
  const { adds, swaps } = changesFor(counted, [...replayed, ...fresh.map((event) => ({ event, record: -1 }))]);
  const price = (e: UsageEvent): PricedEvent | null => {
    const cost = cachedCost(base.prices!, e);
    return cost === PRICE_MISS ? null : pricedEvent(e, cost);
  };
  const pricedAdds: PricedEvent[] = [];
  const pricedSwaps: { from: PricedEvent; to: PricedEvent }[] = [];
  for (const a of adds) {
    const pe = price(a.event);
    if (!pe) return no(`no cached price for ${a.event.harness} model ${a.event.model}`);
    pricedAdds.push(pe);
  }
  for (const { from, to } of swaps) {
    const [f, t] = [price(from.event), price(to.event)];
    if (!f || !t) return no(`no cached price for ${to.event.harness} model ${to.event.model}`);
    pricedSwaps.push({ from: f, to: t });
  }
  const added = addEvents(q.snapshot, pricedAdds, pricedSwaps);
  if ('fallback' in added) return added;
  const digest = q.now.digest;
  if (!writes.length && digest !== state.digest) return no('nothing appended');
  // Recorded before the answer is given: the next ingest writes these
  // events instead of reading the bytes again. Unrecorded, the memo entry is
  // not advanced either (see the caller), and the bytes are simply read again.
  if (writes.length && !appendJournal(q.dbPath, { from: state.digest, to: digest, writes })) return no('cannot write the journal');
  mark('delta: journal written');
  return {
    text: renderSnapshot(q.snapshot, added.rows),
    rows: added.rows,
    digest,
    stats: { appended: writes.length, events: fresh.length, fromJournal: replayed.length, bytesRead: readCounter.bytes - bytesBefore, tailCheckBytes: checkBytes },
  };
}
