// What one extraction of a source says, record by record, in the order the
// extractor said it: the sink `tx-usage explain` hands to a harness's own
// extract(). The ingest's sink (ingest/collect.ts) tallies skips by reason
// and keeps the first place only; this one keeps every place, and listens to
// the two hooks only explain needs (ExtractSink.merged / unparsable).
// Counts, ids and places only: nothing here holds record text.
import type { SourceLocation, UsageEvent } from '../core/types.js';
import type { ExtractSink, WarnOptions } from '../harnesses/types.js';

/** One thing the extractor said about a place in the source. */
export type TraceEntry =
  | { kind: 'event'; seq: number; event: UsageEvent }
  /** Folded into the event with the same dedupe key (a split line): what it would have been. */
  | { kind: 'merged'; seq: number; folded: UsageEvent; rule: string }
  | { kind: 'skipped'; seq: number; at: SourceLocation; reason: string }
  | { kind: 'warning'; seq: number; at: SourceLocation; message: string }
  | { kind: 'unparsable'; seq: number; at: SourceLocation };

export class TraceSink implements ExtractSink {
  readonly entries: TraceEntry[] = [];
  /** Context rows (Cursor chats): occupancy, never billed usage. */
  contexts = 0;
  private seq = 0;

  event(event: UsageEvent): void {
    this.entries.push({ kind: 'event', seq: this.seq++, event });
  }
  merged(folded: UsageEvent, rule: string): void {
    this.entries.push({ kind: 'merged', seq: this.seq++, folded, rule });
  }
  skip(reason: string, at: SourceLocation): void {
    this.entries.push({ kind: 'skipped', seq: this.seq++, at, reason });
  }
  warn(message: string, at: SourceLocation, opts?: WarnOptions): void {
    // The reader's count of the unparsable records listed one by one below: each bad line once, at its line.
    if (opts?.sumsUpUnparsable) return;
    this.entries.push({ kind: 'warning', seq: this.seq++, at, message });
  }
  unparsable(at: SourceLocation): void {
    this.entries.push({ kind: 'unparsable', seq: this.seq++, at });
  }
  context(): void {
    this.contexts++;
  }
  // Not usage: units of work, titles, estimates, limits and counters are left to `report` and `sources`.
  sessionEstimate(): void {}
  unit(): void {}
  sessionFact(): void {}
  count(): void {}
}
