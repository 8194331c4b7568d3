// The WebAssembly SIMD scanner (src/io/marker-scan.wat) must find exactly the
// newlines and marked segments that the plain JavaScript scan finds, on every
// kind of input: markers at chunk edges, at block edges (16 bytes), split by a
// newline, overlapping each other, near misses that share both end bytes,
// chunks that end mid-block. And the line splitter on top of it must hand on
// the same lines as the splitter without it.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/io/lines.js';
import { MarkerScan, SCAN_CAPACITY, scanInJs } from '../../src/io/marker-scan.js';
import { rng } from '../../fixtures/codex/rollout.js';

const CLAUDE = ['"usage"', '"cost-state"'].map((m) => Buffer.from(m));
const CODEX = [
  '"session_meta"',
  '"turn_context"',
  '"token_count"',
  '"token_usage_record"',
  '"task_started"',
  '"turn_started"',
  '"thread_rolled_back"',
].map((m) => Buffer.from(m));
const ODD = ['a', 'xyz', 'q"q', '\u00e9t\u00e9'].map((m) => Buffer.from(m));

/** JSON-ish text dense in quotes and newlines, with markers, near misses and cut markers mixed in. */
function noise(markers: Buffer[], bytes: number, seed: number): Buffer {
  const r = rng(seed);
  const parts: Buffer[] = [];
  let n = 0;
  const alphabet = Buffer.from('"""::,,{}[]\\abcdefghijklmnopqrstuvwxyz_0123456789 \n\n\r');
  while (n < bytes) {
    const pick = r();
    let p: Buffer;
    if (pick < 0.08) p = markers[Math.floor(r() * markers.length)]!;
    else if (pick < 0.14) {
      // a near miss: first and last byte right, one inner byte wrong
      const m = Buffer.from(markers[Math.floor(r() * markers.length)]!);
      if (m.length > 2) m[1 + Math.floor(r() * (m.length - 2))] = 0x21;
      p = m;
    } else if (pick < 0.18) {
      // a marker cut by a newline
      const m = markers[Math.floor(r() * markers.length)]!;
      const cut = Math.max(1, Math.floor(r() * m.length));
      p = Buffer.concat([m.subarray(0, cut), Buffer.from('\n'), m.subarray(cut)]);
    } else {
      const len = 1 + Math.floor(r() * 40);
      p = Buffer.alloc(len);
      for (let i = 0; i < len; i++) p[i] = alphabet[Math.floor(r() * alphabet.length)]!;
    }
    parts.push(p);
    n += p.length;
  }
  return Buffer.concat(parts).subarray(0, bytes);
}

function plain(s: { count: number; ends: Uint32Array; flags: Uint8Array; tail: boolean }) {
  return {
    count: s.count,
    ends: [...s.ends.subarray(0, s.count)],
    flags: [...s.flags.subarray(0, s.count)],
    tail: s.tail,
  };
}

describe('marker scan', () => {
  it('runs in WebAssembly here', () => {
    expect(new MarkerScan(CLAUDE).accelerated).toBe(true);
    expect(new MarkerScan(CODEX).accelerated).toBe(true);
  });

  for (const [name, markers] of [
    ['Claude Code', CLAUDE],
    ['Codex', CODEX],
    ['odd markers (1 byte, non-ASCII, inner quote)', ODD],
    [
      'five lengths of quoted markers (too many for the quoted loop)',
      ['"ab"', '"abc"', '"abcd"', '"abcde"', '"abcdef"'].map((m) => Buffer.from(m)),
    ],
  ] as const) {
    it(`finds the same newlines and marked segments as the JavaScript scan (${name}), in every WebAssembly loop`, () => {
      const wasm = new MarkerScan(markers);
      const general = new MarkerScan(markers, { general: true });
      const quoted = new MarkerScan(markers, { pairs: false });
      let marked = 0;
      for (let seed = 1; seed <= 40; seed++) {
        // sizes around block and chunk edges, and one full chunk
        const size =
          seed === 40 ? SCAN_CAPACITY : [0, 1, 15, 16, 17, 31, 33, 100, 1000, 4097, 65536 + 7][seed % 11]! + seed * 13;
        const input = noise([...markers], size, seed);
        const want = plain(scanInJs(input, markers));
        expect(plain(wasm.scan(input))).toEqual(want);
        expect(plain(general.scan(input))).toEqual(want);
        expect(plain(quoted.scan(input))).toEqual(want);
        marked += want.flags.filter((f) => f === 1).length;
      }
      expect(marked).toBeGreaterThan(100); // the inputs did exercise the markers
    });
  }

  it('finds the same across long runs without quotes or newlines (skipped 64 bytes at a time), at every offset', () => {
    for (const markers of [CLAUDE, CODEX]) {
      const r = rng(99);
      const parts: Buffer[] = [];
      let n = 0;
      while (n < 200_000) {
        const pick = r();
        // runs of 1..300 bytes of base64-like text, markers, near misses and newlines between them
        const p =
          pick < 0.5
            ? Buffer.alloc(1 + Math.floor(r() * 300), 'QUJD')
            : pick < 0.7
              ? markers[Math.floor(r() * markers.length)]!
              : pick < 0.8
                ? Buffer.from('"' + markers[Math.floor(r() * markers.length)]!.subarray(1, -1).toString() + '!"')
                : pick < 0.9
                  ? Buffer.from('\n')
                  : Buffer.from('"x":"y",');
        parts.push(p);
        n += p.length;
      }
      const all = Buffer.concat(parts);
      const scan = new MarkerScan(markers);
      for (const start of [0, 1, 7, 15, 16, 31, 63, 64, 65]) {
        for (const len of [0, 1, 63, 64, 65, 127, 128, 1000, 4096 + 3, 150_000]) {
          const input = all.subarray(start, start + len);
          expect(plain(scan.scan(input))).toEqual(plain(scanInJs(input, markers)));
        }
      }
    }
  });

  it('reads its input from its own memory without a copy, with the same result', () => {
    const scan = new MarkerScan(CODEX);
    const input = noise([...CODEX], 300_000, 7);
    const buf = scan.readBuffer()!;
    input.copy(buf);
    // stale bytes past the input must not matter
    buf.fill(0x22, input.length, input.length + 200);
    expect(plain(scan.scan(buf.subarray(0, input.length)))).toEqual(plain(scanInJs(input, CODEX)));
  });

  it('keeps each result when the next scan runs (and when another marker set is scanned)', () => {
    const a = new MarkerScan(CLAUDE);
    const b = new MarkerScan(CODEX);
    const x = noise([...CLAUDE], 5000, 3);
    const y = noise([...CODEX], 5000, 4);
    const rx = a.scan(x);
    const ry = b.scan(y);
    const rx2 = a.scan(x);
    expect(plain(rx)).toEqual(plain(scanInJs(x, CLAUDE)));
    expect(plain(ry)).toEqual(plain(scanInJs(y, CODEX)));
    expect(plain(rx2)).toEqual(plain(rx));
  });

  it('refuses a chunk over its capacity', () => {
    expect(() => new MarkerScan(CLAUDE).scan(Buffer.alloc(SCAN_CAPACITY + 1))).toThrow(RangeError);
  });

  it('gives the line splitter the same lines, line numbers and resume point as the JavaScript scan would', () => {
    const input = noise([...CODEX], 3 * SCAN_CAPACITY + 12345, 11);
    const run = (chunk: number) => {
      const lines: [number, string][] = [];
      const sp = new LineSplitter(
        CODEX.map((m) => m.toString()),
        (t, l) => void lines.push([l, t]),
      );
      for (let i = 0; i < input.length; i += chunk) sp.push(input.subarray(i, i + chunk));
      return { lines, res: sp.end() };
    };
    // The reference: every line split by hand, kept when it contains a marker.
    const want: [number, string][] = [];
    const text = input.toString('latin1').split('\n');
    text.slice(0, -1).forEach((l, i) => {
      const raw = Buffer.from(l, 'latin1');
      if (CODEX.some((m) => raw.includes(m))) {
        let s = raw.toString('utf8');
        if (s.endsWith('\r')) s = s.slice(0, -1);
        if (s.length) want.push([i + 1, s]);
      }
    });
    for (const chunk of [4096 + 3, 1 << 20, 5 * SCAN_CAPACITY]) {
      const got = run(chunk);
      expect(got.lines.length).toBe(want.length);
      expect(got.lines).toEqual(want);
      expect(got.res.lines).toBe(text.length - 1);
    }
  });

  it('is assembled from the checked-in .wat (src/io/marker-scan.wasm.ts is not stale)', () => {
    expect(() =>
      execFileSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], { stdio: 'pipe' }),
    ).not.toThrow();
  });
});
