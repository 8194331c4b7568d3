// The shared splitter's `unmarkedPeek` option (added for Pi's parent links):
// lines without a marker hand on only their first and last bytes.
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/io/lines.js';

function split(chunks: Buffer[], bytes: number) {
  const marked: [number, string][] = [];
  const peeks: [number, string, string][] = [];
  const sp = new LineSplitter(['"usage"'], (t, l) => void marked.push([l, t]), { offset: 0, lines: 0 }, undefined, {
    bytes,
    onPeek: (h, t, l) => void peeks.push([l, h, t]),
  });
  for (const c of chunks) sp.push(c);
  const res = sp.end();
  return { marked, peeks, res };
}

describe('LineSplitter unmarkedPeek', () => {
  const big = 'x'.repeat(5000);
  const text =
    `{"id":"a1","usage":{}}\n` +
    `{"id":"b2","parentId":"a1","content":"${big}","end":"zz"}\r\n` +
    `{"id":"c3"}\n` +
    `{"id":"d4","parentId":"c3"}`;

  it('passes head and tail of unmarked lines and whole marked lines', () => {
    const { marked, peeks, res } = split([Buffer.from(text)], 24);
    expect(marked).toEqual([[1, '{"id":"a1","usage":{}}']]);
    expect(peeks).toEqual([
      // 24 bytes taken before the CR is dropped
      [2, '{"id":"b2","parentId":"a', 'xxxxxxxxxx","end":"zz"}'],
      [3, '{"id":"c3"}', '{"id":"c3"}'],
      [4, '{"id":"d4","parentId":"c', 'd":"d4","parentId":"c3"}'],
    ]);
    expect(res.offset).toBe(Buffer.byteLength(text));
  });

  it('gives the same peeks when a line spans many small chunks', () => {
    const buf = Buffer.from(text);
    const chunks: Buffer[] = [];
    for (let i = 0; i < buf.length; i += 7) chunks.push(buf.subarray(i, i + 7));
    const whole = split([buf], 24);
    const pieces = split(chunks, 24);
    expect(pieces.peeks).toEqual(whole.peeks);
    expect(pieces.marked).toEqual(whole.marked);
  });

  it('never hands on a torn final line', () => {
    const { peeks, res } = split([Buffer.from('{"id":"a1"}\n{"id":"b2","par')], 64);
    expect(peeks).toEqual([[1, '{"id":"a1"}', '{"id":"a1"}']]);
    expect(res.tornTail).toEqual({ line: 2, bytes: 15 });
  });
});
