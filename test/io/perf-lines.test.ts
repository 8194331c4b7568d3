// The splitter's long-line economy: given a way to re-read its input, a line
// without a marker is not held while it streams past (only its edges are),
// and a marker that turns up late makes it read the line again whole. The
// lines handed on, the peeks and the result must be exactly those of the
// splitter holding everything; what it held is measured by its own counter.
import { describe, expect, it } from 'vitest';
import { LineSplitter, type SplitResult } from '../../src/io/lines.js';

const MB = 1 << 20;

function b64(n: number, seed: number): string {
  const raw = Buffer.alloc(Math.ceil((n * 3) / 4));
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 31 + seed * 7) & 255;
  return raw.toString('base64').slice(0, n);
}

/** Lines of every kind the economy touches, as one buffer. */
function corpus(): Buffer {
  const lines = [
    '{"type":"assistant","message":{"usage":{"input_tokens":1}}}',
    // long, no marker
    `{"type":"user","image":"${b64(3 * MB, 1)}","end":"x"}`,
    // long, marker only at the very end
    `{"type":"assistant","blob":"${b64(2 * MB + 12345, 2)}","message":{"usage":{"output_tokens":7}}}`,
    // long with CRLF, no marker
    `{"type":"user","image":"${b64(MB + 777, 3)}"}\r`,
    '{"id":"short"}',
    // long, marker near the start only
    `{"usage":1,"blob":"${b64(2 * MB, 4)}"}`,
    // long, marker in the middle
    `{"a":"${b64(MB + 100, 5)}","cost-state":{},"b":"${b64(MB + 200, 6)}"}`,
  ];
  // Unterminated final line: a complete JSON value, long, marked at the end.
  return Buffer.from(lines.join('\n') + '\n' + `{"blob":"${b64(MB + 5000, 7)}","usage":{}}`);
}

function run(input: Buffer, chunk: number, withReread: boolean, peekBytes = 48) {
  const marked: [number, string][] = [];
  const peeks: [number, string, string][] = [];
  const reread = withReread
    ? (offset: number, length: number) => Buffer.from(input.subarray(offset, offset + length))
    : null;
  const sp = new LineSplitter(
    ['"usage"', '"cost-state"'],
    (t, l) => void marked.push([l, t]),
    { offset: 0, lines: 0 },
    undefined,
    { bytes: peekBytes, onPeek: (h, t, l) => void peeks.push([l, h, t]) },
    reread,
  );
  for (let i = 0; i < input.length; i += chunk) sp.push(Buffer.from(input.subarray(i, i + chunk)));
  const res: SplitResult = sp.end();
  return { marked, peeks, res, held: sp.peakHeldBytes };
}

describe('LineSplitter with re-reads', () => {
  const input = corpus();

  for (const chunk of [64 * 1024, 1 << 20, 333_333]) {
    it(`hands on the same lines, peeks and resume point as when holding every line (chunks of ${chunk} bytes)`, () => {
      const held = run(input, chunk, false);
      const lean = run(input, chunk, true);
      expect(lean.marked.map(([l, t]) => [l, t.length, t.slice(0, 40), t.slice(-40)])).toEqual(
        held.marked.map(([l, t]) => [l, t.length, t.slice(0, 40), t.slice(-40)]),
      );
      expect(lean.marked).toEqual(held.marked);
      expect(lean.peeks).toEqual(held.peeks);
      expect(lean.res).toEqual(held.res);
      expect(held.marked.map(([l]) => l)).toEqual([1, 3, 6, 7, 8]);
      expect(held.peeks.map(([l]) => l)).toEqual([2, 4, 5]);
    });
  }

  it('holds at most 64 KB of a long line without a marker', () => {
    const big = Buffer.from(`{"a":1}\n{"image":"${b64(40 * MB, 9)}"}\n{"usage":2}\n`);
    const held = run(big, 1 << 20, false);
    const lean = run(big, 1 << 20, true);
    expect(lean.marked).toEqual(held.marked);
    expect(lean.peeks).toEqual(held.peeks);
    expect(held.held).toBeGreaterThan(39 * MB);
    expect(lean.held).toBeLessThanOrEqual(64 * 1024);
  });

  it('leaves a torn long final line for the next run, held or not', () => {
    const torn = Buffer.from(`{"a":1}\n{"usage":{"x":"${b64(3 * MB, 11)}`);
    const held = run(torn, 1 << 20, false);
    const lean = run(torn, 1 << 20, true);
    expect(lean.res).toEqual(held.res);
    expect(held.res.tornTail).toEqual({ line: 2, bytes: torn.length - 8 });
    expect(lean.marked).toEqual(held.marked);
  });
});
