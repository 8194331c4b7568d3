// The shared splitter's `unmarkedHead` option (added for units of work): every
// line without a marker shows its first bytes to a check, which may ask for
// the whole line (handed on as if marked) — the same whatever the chunking,
// for lines held across chunks, lines let go and read again, and a final line
// without a newline.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/io/lines.js';
import { scanJsonlFile } from '../../src/io/jsonl.js';
import type { ExtractSink } from '../../src/harnesses/types.js';
import { tempDir } from '../helpers/cli.js';

const long = 'y'.repeat(200_000); // past the splitter's hold: its bytes are let go, read again only if wanted
const text =
  `{"usage":1}\n` +
  `{"type":"title","t":"A"}\n` +
  `{"type":"other","x":"${long}"}\n` +
  `{"type":"title","t":"${long}"}\n` +
  `{"type":"title","t":"last"}`;
const lines = text.split('\n');

function run(chunks: Buffer[]) {
  const got: [number, string][] = [];
  const heads: [number, string][] = [];
  const sp = new LineSplitter(
    ['"usage"'],
    (t, l) => void got.push([l, t]),
    { offset: 0, lines: 0 },
    undefined,
    null,
    null,
    {
      bytes: 10,
      check: (buf, start, end, line) => {
        heads.push([line, buf.toString('latin1', start, end)]);
        return buf.toString('latin1', start, end) === '{"type":"t';
      },
    },
  );
  for (const c of chunks) sp.push(c);
  return { got, heads, res: sp.end() };
}

describe('LineSplitter unmarkedHead', () => {
  it('shows each unmarked line its first bytes, hands on the lines the check wants', () => {
    const { got, heads, res } = run([Buffer.from(text)]);
    expect(heads.map(([l, h]) => [l, h])).toEqual([
      [2, '{"type":"t'],
      [3, '{"type":"o'],
      [4, '{"type":"t'],
      [5, '{"type":"t'],
    ]);
    expect(got).toEqual([
      [1, lines[0]],
      [2, lines[1]],
      [4, lines[3]],
      [5, lines[4]],
    ]);
    expect(res.offset).toBe(Buffer.byteLength(text));
  });

  it('gives the same answers in chunks of 1, 7 and 4096 bytes', () => {
    const want = run([Buffer.from(text)]);
    const buf = Buffer.from(text);
    for (const size of [1, 7, 4096]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < buf.length; i += size) chunks.push(buf.subarray(i, i + size));
      const r = run(chunks);
      expect(r.got, `chunks of ${size}`).toEqual(want.got);
      expect(r.heads, `chunks of ${size}`).toEqual(want.heads);
    }
  });

  it('reads a long wanted line again from the file (scanJsonlFile), and beforeParse can take a marked line', async () => {
    const file = join(tempDir('txu-lines-head-'), 'x.jsonl');
    writeFileSync(file, text + '\n');
    const parsed: number[] = [];
    const taken: number[] = [];
    const sink = { warn: () => undefined, skip: () => undefined } as unknown as ExtractSink;
    await scanJsonlFile(
      file,
      {
        markers: ['"usage"'],
        unmarkedHead: { bytes: 10, check: (buf, s, e) => buf.toString('latin1', s, e) === '{"type":"t' },
        beforeParse: (t, line) => (t.includes('"last"') ? (taken.push(line), true) : false),
      },
      sink,
      (rec, line) => void parsed.push(line, String(rec.t ?? '').length),
    );
    expect(parsed).toEqual([1, 0, 2, 1, 4, long.length]);
    expect(taken).toEqual([5]);
  });
});
