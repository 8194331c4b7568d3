// A strict RFC 4180 reader for imported CSV files (src/imports/): the bytes
// must be UTF-8 (a leading BOM is dropped), fields are separated by commas,
// records end with CRLF, LF or a lone CR, and a field is either unquoted
// (no quote inside it) or wholly quoted ("" for a quote; commas and line
// breaks inside). Anything else is an error naming the line and column where
// it is, never a guess: an import is all-or-nothing, so a file the reader is
// not sure of must stop it. Lines and columns are 1-based; a column counts
// characters (UTF-16 units) from the start of the line.

export class CsvError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = 'CsvError';
  }
}

/** One record: its fields and where each starts. */
export interface CsvRecord {
  /** Line the record starts on. */
  line: number;
  fields: string[];
  /** Per field: the line and column its first character (or its opening quote) is at. */
  at: { line: number; column: number }[];
  /** Per field: whether it was quoted. */
  quoted: boolean[];
}

const BOM = 0xfeff;

/**
 * The text of a UTF-8 file. Throws CsvError at the first byte that is not
 * UTF-8 (the column is then the byte's position in its line); a UTF-16 file
 * (Excel's "Unicode text") is named as such.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    throw new CsvError('the file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8 CSV', 1, 1);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < bad; i++) {
      if (bytes[i] === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    const hex = (bytes[bad] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    throw new CsvError(
      `byte 0x${hex} is not UTF-8 (byte ${bad - lineStart + 1} of the line); save the file as UTF-8`,
      line,
      bad - lineStart + 1,
    );
  }
}

/** Offset of the first byte that starts no valid UTF-8 sequence (bytes.length when all are valid). */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return i;
    i += n + 1;
  }
  return b.length;
}

/** Every record of `text` (see the header comment for the rules). A BOM at the start is skipped. */
export function parseCsv(text: string): CsvRecord[] {
  const out: CsvRecord[] = [];
  const n = text.length;
  let i = text.charCodeAt(0) === BOM ? 1 : 0;
  let line = 1;
  let lineStart = i;
  /** Moves past the line break at i (CRLF, LF or CR). */
  const newline = () => {
    if (text.charCodeAt(i) === 13 && text.charCodeAt(i + 1) === 10) i += 2;
    else i++;
    line++;
    lineStart = i;
  };
  while (i < n) {
    const rec: CsvRecord = { line, fields: [], at: [], quoted: [] };
    for (;;) {
      const at = { line, column: i - lineStart + 1 };
      let value: string;
      const quoted = text.charCodeAt(i) === 34;
      if (quoted) {
        i++;
        const parts: string[] = [];
        for (;;) {
          const q = text.indexOf('"', i);
          if (q === -1)
            throw new CsvError('a quoted field is never closed (the file is cut short?)', at.line, at.column);
          // Line breaks inside the quotes move the line count on.
          for (let k = i; k < q; k++) {
            const c = text.charCodeAt(k);
            if (c === 10 || (c === 13 && text.charCodeAt(k + 1) !== 10)) {
              line++;
              lineStart = k + 1;
            }
          }
          parts.push(text.slice(i, q));
          if (text.charCodeAt(q + 1) === 34) {
            parts.push('"');
            i = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        value = parts.join('');
        const c = text.charCodeAt(i);
        if (i < n && c !== 44 && c !== 10 && c !== 13) {
          throw new CsvError(
            `${JSON.stringify(text[i])} after the closing quote of a field (expected a comma or the end of the line)`,
            line,
            i - lineStart + 1,
          );
        }
      } else {
        let j = i;
        for (; j < n; j++) {
          const c = text.charCodeAt(j);
          if (c === 44 || c === 10 || c === 13) break;
          if (c === 34)
            throw new CsvError(
              'a quote inside an unquoted field (a field with quotes must be wholly quoted)',
              line,
              j - lineStart + 1,
            );
        }
        value = text.slice(i, j);
        i = j;
      }
      rec.fields.push(value);
      rec.at.push(at);
      rec.quoted.push(quoted);
      if (i < n && text.charCodeAt(i) === 44) {
        i++;
        continue;
      }
      if (i < n) newline();
      break;
    }
    out.push(rec);
  }
  return out;
}

/** A record that holds nothing: an empty line, or only empty fields (",,,"). */
export function isBlankRecord(r: CsvRecord): boolean {
  return r.fields.every((f) => f.trim() === '');
}
