// Units of work (types.ts WorkUnit) as an extraction collects them: columns,
// not one object per unit. A source has about as many units as responses;
// carried as objects they were allocated again on the main thread when a
// worker's result arrived and were most of the garbage an ingest added
// (measured: ~25 ms more collection on the benchmark's cold run). The dedupe
// key is kept as its 64-bit hash (two 32-bit halves): it only ever decides
// which rows are the same unit, and as a number it crosses threads in a
// typed array and is stored without a string per row.
import { WORK_UNIT_KINDS, type HarnessId, type WorkUnit, type WorkUnitKind } from './types.js';

/** Numbers per unit in `nums`: kind index, key hash (high, low), rank, time, count. */
export const UNIT_NUMS = 6;

const KIND_INDEX = Object.fromEntries(WORK_UNIT_KINDS.map((k, i) => [k, i])) as Record<WorkUnitKind, number>;

/**
 * 64-bit hash of a dedupe key, as two independent 32-bit lanes (after
 * cyrb53), written to out[0] (high) and out[1] (low). Keys are compared
 * within one harness and kind; at 64 bits two of a million units share a
 * hash with probability ~3e-8.
 */
export function hashKey(s: string, out: Int32Array): void {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  out[0] = h2;
  out[1] = h1;
}

const halves = new Int32Array(2);

export class UnitColumns {
  /** Per unit: harness and session (the same strings repeat: references, not copies). */
  readonly harnesses: string[];
  readonly sessions: string[];
  /** UNIT_NUMS numbers per unit. */
  nums: number[] | Float64Array;

  constructor(harnesses: string[] = [], sessions: string[] = [], nums: number[] | Float64Array = []) {
    this.harnesses = harnesses;
    this.sessions = sessions;
    this.nums = nums;
  }

  get length(): number {
    return this.sessions.length;
  }

  push(u: WorkUnit): void {
    this.harnesses.push(u.harness);
    this.sessions.push(u.session_id);
    hashKey(u.dedupe_key, halves);
    (this.nums as number[]).push(KIND_INDEX[u.kind], halves[0]!, halves[1]!, u.dedupe_rank, u.ts, u.count);
  }

  harness(i: number): HarnessId {
    return this.harnesses[i] as HarnessId;
  }
  kind(i: number): WorkUnitKind {
    return WORK_UNIT_KINDS[this.nums[i * UNIT_NUMS]!]!;
  }
  keyHigh(i: number): number {
    return this.nums[i * UNIT_NUMS + 1]!;
  }
  keyLow(i: number): number {
    return this.nums[i * UNIT_NUMS + 2]!;
  }
  rank(i: number): number {
    return this.nums[i * UNIT_NUMS + 3]!;
  }
  ts(i: number): number {
    return this.nums[i * UNIT_NUMS + 4]!;
  }
  count(i: number): number {
    return this.nums[i * UNIT_NUMS + 5]!;
  }

  /** Plain objects, for tests and debugging (dedupe_key is the hash as 16 hex digits). */
  toJSON(): (Omit<WorkUnit, 'dedupe_key'> & { dedupe_key: string })[] {
    return Array.from({ length: this.length }, (_, i) => ({
      harness: this.harness(i),
      session_id: this.sessions[i]!,
      kind: this.kind(i),
      dedupe_key:
        (this.keyHigh(i) >>> 0).toString(16).padStart(8, '0') + (this.keyLow(i) >>> 0).toString(16).padStart(8, '0'),
      dedupe_rank: this.rank(i),
      ts: this.ts(i),
      count: this.count(i),
    }));
  }
}
