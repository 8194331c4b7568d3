// What a text file's first bytes say about how it is written, checked once
// when a read starts at its beginning, apart from the line reading itself:
// harnesses write UTF-8 JSON, but an editor or a copy through another tool
// can leave a byte order mark, re-encode the file as UTF-16, or end lines
// with a lone CR (old Mac style). Each is read, or named as what it is: never
// a silent 0 ("incomplete final line", a lost first record).

/** UTF-8's byte order mark: skipped (a reader that kept it lost the first record). */
const UTF8_BOM = [0xef, 0xbb, 0xbf];

export type TextStart = { skip: number } | { unreadable: string };

/**
 * How to start reading a text file whose first bytes are `head` (up to 4):
 * the bytes to skip (a UTF-8 byte order mark), or why it cannot be read as
 * UTF-8 (UTF-16 or UTF-32, with or without a byte order mark, recognised by
 * the zero bytes around the first ASCII character, as JSON always starts).
 */
export function textStart(head: Buffer): TextStart {
  if (head.length >= 3 && UTF8_BOM.every((b, i) => head[i] === b)) return { skip: 3 };
  const utf = (enc: string) => ({
    unreadable: `the file is ${enc} text; harnesses write UTF-8, and this file was re-encoded by something else: nothing read from it (convert it back to UTF-8 to count it)`,
  });
  if (head.length >= 4 && head[0] === 0 && head[1] === 0 && head[2] === 0xfe && head[3] === 0xff) return utf('UTF-32');
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xfe && head[2] === 0 && head[3] === 0) return utf('UTF-32');
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)))
    return utf('UTF-16');
  if (head.length >= 2 && ((head[0] !== 0 && head[1] === 0) || (head[0] === 0 && head[1] !== 0))) return utf('UTF-16');
  return { skip: 0 };
}

/**
 * Whether the first bytes a read gets have lines ended by a lone CR: CRs and
 * no LF. Such lines are read by turning each CR into an LF as the bytes come
 * (crToLf), which leaves every offset as it is (resume points stay exact).
 * CRLF files have LFs and need nothing (the line splitter drops the CR).
 */
export function endsLinesWithCr(first: Buffer): boolean {
  return first.indexOf(0x0a) < 0 && first.indexOf(0x0d) >= 0;
}

/** Turns every CR of `buf` into an LF, in place. */
export function crToLf(buf: Buffer): void {
  for (let i = buf.indexOf(0x0d); i >= 0; i = buf.indexOf(0x0d, i + 1)) buf[i] = 0x0a;
}
