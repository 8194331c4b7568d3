// File names that are not valid UTF-8 (`bad\xffdir`, `x\xff.jsonl`, a home
// folder `/home/caf\xe9`): Linux names are bytes, Node's strings are text,
// and a name read as a string has each invalid byte replaced by U+FFFD, so
// the path no longer names the file (the folder was skipped, the file "not
// found"). Such names are kept as strings that map back to their bytes
// exactly: each byte that is not part of valid UTF-8 becomes one character
// of U+F780–U+F7FF (a private-use range; "UTF-8b"), and a name that really
// holds one of those characters has its bytes escaped the same way, so the
// mapping is one-to-one. fsPath() turns such a string back into the bytes
// for a file-system call; displayPath() shows each escaped byte as `\xNN`.
import { readFileSync } from 'node:fs';

/** The private-use characters that stand for single bytes. */
const ESCAPED = /[\uF780-\uF7FF]/;
const ESCAPED_ALL = /[\uF780-\uF7FF]/g;
const BASE = 0xf700;

/** A name (or path) read as bytes, as a string that fsPath() maps back to the same bytes. */
export function nameFromBytes(b: Buffer): string {
  const text = b.toString('utf8');
  // The common case: valid UTF-8 (no U+FFFD unless the bytes hold one) and no escape characters.
  if (!text.includes('\uFFFD') && !ESCAPED.test(text)) return text;
  let out = '';
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (len === 1) {
      out += String.fromCharCode(c);
      i++;
      continue;
    }
    const seq = len && i + len <= b.length ? b.subarray(i, i + len) : null;
    const ch = seq ? seq.toString('utf8') : '\uFFFD';
    // A valid sequence decodes to one character (not U+FFFD, unless it is the bytes of U+FFFD) and re-encodes to itself.
    if (seq && Buffer.from(ch, 'utf8').equals(seq) && !ESCAPED.test(ch)) {
      out += ch;
      i += len;
    } else {
      out += String.fromCharCode(BASE + c);
      i++;
    }
  }
  return out;
}

/** The path to hand to a file-system call: the string itself, or its bytes when it holds escaped ones. */
export function fsPath(p: string): string | Buffer {
  if (!ESCAPED.test(p)) return p;
  const parts: Buffer[] = [];
  let run = '';
  for (const ch of p) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xf780 && code <= 0xf7ff) {
      if (run) parts.push(Buffer.from(run, 'utf8'));
      run = '';
      parts.push(Buffer.from([code - BASE]));
    } else run += ch;
  }
  if (run) parts.push(Buffer.from(run, 'utf8'));
  return Buffer.concat(parts);
}

/** `p` with each escaped byte shown as `\xNN` (for people: warnings, tables). */
export function displayPath(p: string): string {
  return ESCAPED.test(p)
    ? p.replace(ESCAPED_ALL, (c) => `\\x${(c.charCodeAt(0) - BASE).toString(16).padStart(2, '0')}`)
    : p;
}

/**
 * An environment variable's value as its bytes say, when Node's decoding
 * replaced invalid bytes with U+FFFD (HOME=/home/caf\xe9): read again from
 * the process's initial environment (Linux /proc/self/environ). Otherwise
 * the value as Node has it.
 */
export function envPathValue(name: string, value: string): string {
  if (!value.includes('\uFFFD')) return value;
  try {
    const all = readFileSync('/proc/self/environ');
    const prefix = Buffer.from(`${name}=`);
    let at = 0;
    while (at < all.length) {
      let end = all.indexOf(0, at);
      if (end < 0) end = all.length;
      const entry = all.subarray(at, end);
      if (entry.subarray(0, prefix.length).equals(prefix)) {
        return nameFromBytes(entry.subarray(prefix.length));
      }
      at = end + 1;
    }
  } catch {
    /* no /proc: the value as it is */
  }
  return value;
}
