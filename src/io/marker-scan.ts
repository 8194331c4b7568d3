// Finds the newlines of a chunk and which line segments hold a usage marker,
// with the WebAssembly SIMD scanner of marker-scan.wat (several times faster
// than one Buffer.indexOf per line and marker: Node's search starts each call
// with memchr on the marker's first byte, '"', which is every few bytes in
// JSON). A plain JavaScript scan gives the same answers where WebAssembly
// SIMD is missing or the markers do not fit the module's tables; the tests
// hold the two to each other.
import { MARKER_SCAN_WASM } from './marker-scan.wasm.js';

/** Most input bytes one scan call takes (callers cut longer chunks). */
export const SCAN_CAPACITY = 1 << 20;

export interface ChunkScan {
  /** Newlines found. */
  count: number;
  /** Offset in the chunk of each newline (first `count` entries). */
  ends: Uint32Array;
  /** 1 when a marker lies entirely in the segment the newline ends (from the previous newline, or the chunk start). */
  flags: Uint8Array;
  /** A marker lies entirely in the segment after the last newline. */
  tail: boolean;
}

/**
 * What the module's tables hold (marker-scan.wat): at most 16 markers, each 1
 * to 60 bytes without a newline, with at most 8 distinct (first byte, last
 * byte, length) probes among them. A set beyond these is scanned in
 * JavaScript, several times slower; a harness's sets are checked when the
 * registry is loaded (scanMarkersProblem), so one never is.
 */
const MAX_PROBES = 8;
const MAX_MARKERS = 16;
const MAX_MARKER_BYTES = 60;
// Layout (see marker-scan.wat): tables below 4096, then the input (with slack
// for the loads that run ahead), the newline offsets and the flags.
const INPUT = 4096;
const ENDS = INPUT + SCAN_CAPACITY + 4096;
const FLAGS = ENDS + 4 * (SCAN_CAPACITY + 1);

interface Instance {
  memory: WebAssembly.Memory;
  scan: (ptr: number, len: number, ends: number, flags: number) => number;
  scanQuoted: (
    ptr: number,
    len: number,
    ends: number,
    flags: number,
    q: number,
    d1: number,
    d2: number,
    d3: number,
    d4: number,
  ) => number;
  scanPairs: (
    ptr: number,
    len: number,
    ends: number,
    flags: number,
    q: number,
    d1: number,
    d2: number,
    d3: number,
    d4: number,
    s1: number,
    s2: number,
    s3: number,
    s4: number,
  ) => number;
  /** The marker set the tables hold now. */
  configured: string | null;
  input: Buffer;
  view: DataView;
  bytes: Uint8Array;
}

/** One instance per thread: its 7 MiB are taken once, not per file. */
let instance: Instance | null | undefined;

function wasmInstance(): Instance | null {
  if (instance !== undefined) return instance;
  instance = null;
  if (process.env.TX_USAGE_NO_WASM) return null;
  try {
    const mod = new WebAssembly.Module(Buffer.from(MARKER_SCAN_WASM, 'base64'));
    const inst = new WebAssembly.Instance(mod, {});
    const memory = inst.exports.memory as WebAssembly.Memory;
    if (memory.buffer.byteLength < FLAGS + SCAN_CAPACITY + 1) return null;
    instance = {
      memory,
      scan: inst.exports.scan as Instance['scan'],
      scanQuoted: inst.exports.scan_quoted as Instance['scanQuoted'],
      scanPairs: inst.exports.scan_pairs as Instance['scanPairs'],
      configured: null,
      input: Buffer.from(memory.buffer, INPUT, SCAN_CAPACITY),
      view: new DataView(memory.buffer),
      bytes: new Uint8Array(memory.buffer),
    };
  } catch {
    instance = null; // no WebAssembly SIMD here: the JavaScript scan answers
  }
  return instance;
}

/** Why the module cannot hold these markers, or null when it can (the JavaScript scan takes any). */
function moduleProblem(markers: readonly Buffer[]): string | null {
  if (markers.length === 0) return 'no markers';
  if (markers.length > MAX_MARKERS) return `${markers.length} markers (the scanner holds ${MAX_MARKERS})`;
  const bad = markers.find((m) => m.length < 1 || m.length > MAX_MARKER_BYTES || m.includes(10));
  if (bad)
    return `marker ${JSON.stringify(bad.toString())} is ${bad.length} bytes${bad.includes(10) ? ' with a newline' : ''} (the scanner holds 1 to ${MAX_MARKER_BYTES}, no newline)`;
  const probes = new Set(markers.map((m) => `${m[0]}:${m[m.length - 1]}:${m.length}`));
  if (probes.size > MAX_PROBES)
    return `${probes.size} distinct (first byte, last byte, length) probes (the scanner holds ${MAX_PROBES})`;
  return null;
}

const fitsModule = (markers: readonly Buffer[]) => moduleProblem(markers) === null;

/** Why the WebAssembly scanner cannot hold a marker set a harness declares (Harness.scanMarkers), or null when it can. */
export function scanMarkersProblem(markers: readonly string[]): string | null {
  return moduleProblem(markers.map((m) => Buffer.from(m, 'utf8')));
}

function configure(inst: Instance, markers: readonly Buffer[], id: string): void {
  if (inst.configured === id) return;
  const probes = new Map<string, { first: number; last: number; dist: number }>();
  for (const m of markers)
    probes.set(`${m[0]}:${m[m.length - 1]}:${m.length}`, { first: m[0]!, last: m[m.length - 1]!, dist: m.length - 1 });
  const { view, bytes } = inst;
  view.setInt32(0, probes.size, true);
  view.setInt32(4, markers.length, true);
  let at = 64;
  for (const p of probes.values()) {
    bytes.fill(p.first, at, at + 16);
    bytes.fill(p.last, at + 16, at + 32);
    view.setInt32(at + 32, p.dist, true);
    at += 48;
  }
  markers.forEach((m, i) => {
    view.setInt32(1024 + 64 * i, m.length, true);
    bytes.set(m, 1024 + 64 * i + 4);
  });
  inst.configured = id;
}

/**
 * For scan_quoted: the byte every marker begins and ends with and the
 * distinct distances between the two (at most 4, padded by repeating one),
 * or null when the markers are not like that.
 */
function quotedShape(markers: readonly Buffer[]): { q: number; d: [number, number, number, number] } | null {
  const q = markers[0]?.[0];
  if (q === undefined || !markers.every((m) => m.length >= 2 && m[0] === q && m[m.length - 1] === q)) return null;
  const d = [...new Set(markers.map((m) => m.length - 1))];
  if (d.length > 4) return null;
  while (d.length < 4) d.push(d[0]!);
  return { q, d: d as [number, number, number, number] };
}

/**
 * For scan_pairs: the quoted shape's byte and the distinct (length - 1,
 * second byte) pairs (at most 4, padded by repeating one), or null.
 */
function pairShape(markers: readonly Buffer[]): { d: number[]; s: number[] } | null {
  const pairs = [...new Map(markers.map((m) => [`${m.length - 1}:${m[1]}`, [m.length - 1, m[1]!] as const])).values()];
  if (pairs.length > 4) return null;
  while (pairs.length < 4) pairs.push(pairs[0]!);
  return { d: pairs.map((p) => p[0]), s: pairs.map((p) => p[1]) };
}

/** Scans chunks for one marker set. */
export class MarkerScan {
  private readonly wasm: Instance | null;
  private readonly id: string;
  private readonly quoted: ReturnType<typeof quotedShape>;
  private readonly pairs: ReturnType<typeof pairShape>;

  /**
   * opts.general: the general loop even for quoted markers; opts.pairs false:
   * the quoted loop without the second-byte test (the tests hold every loop
   * to the JavaScript scan).
   */
  constructor(
    private readonly markers: readonly Buffer[],
    opts: { wasm?: boolean; general?: boolean; pairs?: boolean } = {},
  ) {
    this.id = markers.map((m) => m.toString('hex')).join(',');
    this.wasm = opts.wasm !== false && fitsModule(markers) ? wasmInstance() : null;
    this.quoted = opts.general ? null : quotedShape(markers);
    this.pairs = this.quoted && opts.pairs !== false ? pairShape(markers) : null;
  }

  /** True when scans run in WebAssembly. */
  get accelerated(): boolean {
    return this.wasm !== null;
  }

  /**
   * A buffer that a reader may fill and then pass to scan() without a copy,
   * or null (JavaScript scan). Valid until the next call to scan() or
   * readBuffer() of any MarkerScan of this thread.
   */
  readBuffer(): Buffer | null {
    return this.wasm ? this.wasm.input : null;
  }

  /** Scans `chunk` (at most SCAN_CAPACITY bytes). The result is the caller's: later scans do not change it. */
  scan(chunk: Buffer): ChunkScan {
    if (chunk.length > SCAN_CAPACITY)
      throw new RangeError(`scan: chunk of ${chunk.length} bytes is over ${SCAN_CAPACITY}`);
    const w = this.wasm;
    if (!w) return scanInJs(chunk, this.markers);
    configure(w, this.markers, this.id);
    if (chunk.buffer !== w.memory.buffer || chunk.byteOffset !== INPUT) w.input.set(chunk);
    const qs = this.quoted;
    const ps = this.pairs;
    const count = ps
      ? w.scanPairs(
          INPUT,
          chunk.length,
          ENDS,
          FLAGS,
          qs!.q,
          ps.d[0]!,
          ps.d[1]!,
          ps.d[2]!,
          ps.d[3]!,
          ps.s[0]!,
          ps.s[1]!,
          ps.s[2]!,
          ps.s[3]!,
        )
      : qs
        ? w.scanQuoted(INPUT, chunk.length, ENDS, FLAGS, qs.q, ...qs.d)
        : w.scan(INPUT, chunk.length, ENDS, FLAGS);
    return {
      count,
      ends: new Uint32Array(w.memory.buffer.slice(ENDS, ENDS + 4 * count)),
      flags: w.bytes.slice(FLAGS, FLAGS + count),
      tail: w.view.getInt32(8, true) !== 0,
    };
  }
}

/** The same scan, one Buffer.indexOf per segment and marker. */
export function scanInJs(chunk: Buffer, markers: readonly Buffer[]): ChunkScan {
  const ends: number[] = [];
  const flags: number[] = [];
  const has = (seg: Buffer) => markers.length === 0 || markers.some((m) => seg.indexOf(m) !== -1);
  let start = 0;
  for (;;) {
    const nl = chunk.indexOf(10, start);
    if (nl === -1) break;
    ends.push(nl);
    flags.push(has(chunk.subarray(start, nl)) ? 1 : 0);
    start = nl + 1;
  }
  return {
    count: ends.length,
    ends: Uint32Array.from(ends),
    flags: Uint8Array.from(flags),
    tail: start < chunk.length && has(chunk.subarray(start)),
  };
}
