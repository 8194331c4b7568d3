// The shared splitter's `unmarkedHead` option (added for Pi's parent links):
// lines without a marker hand on only their first bytes, never the whole line.
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../src/io/lines.js';

function split(chunks: Buffer[], headBytes: number) {
  const marked: [number, string][] = [];
  const heads: [number, string][] = [];
  const sp = new LineSplitter(['"usage"'], (t, l) => void marked.push([l, t]), { offset: 0, lines: 0 }, undefined, {
    bytes: headBytes,
    onHead: (h, l) => void heads.push([l, h]),
  });
  for (const c of chunks) sp.push(c);
  const res = sp.end();
  return { marked, heads, res };
}

describe('LineSplitter unmarkedHead', () => {
  const big = 'x'.repeat(5000);
  const text =
    `{"id":"a1","usage":{}}\n` + `{"id":"b2","parentId":"a1","content":"${big}"}\n` + `{"id":"c3"}\n` + `{"id":"d4","parentId":"c3"}`;

  it('passes the first bytes of unmarked lines and whole marked lines', () => {
    const { marked, heads, res } = split([Buffer.from(text)], 24);
    expect(marked).toEqual([[1, '{"id":"a1","usage":{}}']]);
    expect(heads).toEqual([
      [2, '{"id":"b2","parentId":"a'],
      [3, '{"id":"c3"}'],
      [4, '{"id":"d4","parentId":"c'],
    ]);
    expect(res.offset).toBe(Buffer.byteLength(text));
  });

  it('gives the same heads when a line spans many small chunks', () => {
    const buf = Buffer.from(text);
    const chunks: Buffer[] = [];
    for (let i = 0; i < buf.length; i += 7) chunks.push(buf.subarray(i, i + 7));
    const whole = split([buf], 24);
    const pieces = split(chunks, 24);
    expect(pieces.heads).toEqual(whole.heads);
    expect(pieces.marked).toEqual(whole.marked);
  });

  it('never hands on a torn final line', () => {
    const { heads, res } = split([Buffer.from('{"id":"a1"}\n{"id":"b2","par')], 64);
    expect(heads).toEqual([[1, '{"id":"a1"}']]);
    expect(res.tornTail).toEqual({ line: 2, bytes: 15 });
  });
});
