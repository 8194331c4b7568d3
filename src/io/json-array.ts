// The elements of a JSON document that is one array of objects (Cline's
// ui_messages.json), found at byte level: each element's byte range is handed
// on, and only the ones a harness needs are ever parsed. A whole-document
// JSON.parse would decode every prompt, tool output and file diff in it.
//
// The scan knows just enough JSON to find where elements end: strings (with
// escapes) and nesting. It does not validate what it skips; an element that is
// handed on is parsed by the caller, which reports what does not parse.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** Why a document is not a complete array (a file caught mid-write, or not this format). */
export type ArrayProblem =
  'not an array' | 'incomplete (ends inside the array)' | 'an element is not an object' | 'text after the array';

/**
 * Calls `onElement(start, end)` for every top-level element (`buf[start]` is
 * `{`, `buf[end - 1]` its `}`), in order. Returns null when the document is
 * one complete array of objects, else what is wrong with it (elements before
 * the fault were handed on).
 */
export function scanJsonArray(
  buf: Buffer,
  onElement: (start: number, end: number) => void,
  from = 0,
): ArrayProblem | null {
  let i = from;
  const n = buf.length;
  // A UTF-8 byte order mark may lead the file.
  if (i === 0 && n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) i = 3;
  while (i < n && isSpace(buf[i]!)) i++;
  if (buf[i] !== OPEN_BRACKET) return 'not an array';
  i++;
  for (;;) {
    while (i < n && isSpace(buf[i]!)) i++;
    if (i >= n) return 'incomplete (ends inside the array)';
    const b = buf[i]!;
    if (b === CLOSE_BRACKET) {
      i++;
      break;
    }
    if (b === COMMA) {
      i++;
      continue;
    }
    if (b !== OPEN_BRACE) return 'an element is not an object';
    const end = skipValue(buf, i);
    if (end < 0) return 'incomplete (ends inside the array)';
    onElement(i, end);
    i = end;
  }
  if (from > 0) return null; // an array inside a document: what follows is the document's
  while (i < n && isSpace(buf[i]!)) i++;
  return i === n ? null : 'text after the array';
}

/**
 * Where the value of `key` starts in a document that is one JSON object
 * (its other values skipped at byte level), or -1 when the object has no such
 * key or is incomplete.
 */
export function topLevelValue(buf: Buffer, key: string): number {
  let i = 0;
  const n = buf.length;
  if (n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) i = 3;
  while (i < n && isSpace(buf[i]!)) i++;
  if (buf[i] !== OPEN_BRACE) return -1;
  i++;
  for (;;) {
    while (i < n && (isSpace(buf[i]!) || buf[i] === COMMA)) i++;
    if (i >= n || buf[i] !== QUOTE) return -1;
    const keyEnd = skipString(buf, i);
    if (keyEnd < 0) return -1;
    const name = buf.toString('utf8', i + 1, keyEnd - 1);
    i = keyEnd;
    while (i < n && isSpace(buf[i]!)) i++;
    if (buf[i] !== 0x3a) return -1; // ':'
    i++;
    while (i < n && isSpace(buf[i]!)) i++;
    if (name === key) return i;
    const b = buf[i];
    let end: number;
    if (b === OPEN_BRACE || b === OPEN_BRACKET) end = skipValue(buf, i);
    else if (b === QUOTE) end = skipString(buf, i);
    else {
      end = i;
      while (end < n && buf[end] !== COMMA && buf[end] !== CLOSE_BRACE) end++;
    }
    if (end < 0 || end >= n) return -1;
    i = end;
  }
}

/** The end (exclusive) of the string starting at `start` (its opening quote), or -1. */
function skipString(buf: Buffer, start: number): number {
  let j = start + 1;
  for (;;) {
    j = buf.indexOf(QUOTE, j);
    if (j < 0) return -1;
    let k = j - 1;
    while (buf[k] === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1;
    j++;
  }
}

/** The end (exclusive) of the object or array starting at `start`, or -1 when the buffer ends first. */
function skipValue(buf: Buffer, start: number): number {
  let depth = 0;
  let i = start;
  const n = buf.length;
  while (i < n) {
    const b = buf[i]!;
    if (b === QUOTE) {
      // Jump past the closing quote: one not preceded by an odd run of backslashes.
      i = skipString(buf, i);
      if (i < 0) return -1;
      continue;
    }
    if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
    else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}
