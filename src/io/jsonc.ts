// JSON with comments, as VS Code writes and reads its settings.json: `//`
// and `/* */` comments and a comma before a closing `}` or `]` are allowed
// (VS Code parses it with its own `jsonc-parser`, allowTrailingComma; its
// settings editor and users leave both in). Everything else is JSON.
//
// The comments and trailing commas are blanked, not removed, so the parser's
// reported position is the one in the file (a warning names its line).

/** Not JSON even with comments and trailing commas allowed; `line` is 1-based. */
export class JsoncError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/** `text` with comments and trailing commas (and a leading BOM) turned into spaces; newlines kept. */
export function blankJsonc(text: string): string {
  const out = text.split('');
  if (out[0] === '\uFEFF') out[0] = ' ';
  /** Index of the last comma outside strings and comments not yet followed by anything but blanks. */
  let pendingComma = -1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      pendingComma = -1;
      i++;
      while (i < n && text[i] !== '"' && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') out[i++] = ' ';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (; i < stop; i++) if (text[i] !== '\n' && text[i] !== '\r') out[i] = ' ';
    } else if (c === ',') {
      pendingComma = i++;
    } else if (c === '}' || c === ']') {
      if (pendingComma >= 0) out[pendingComma] = ' ';
      pendingComma = -1;
      i++;
    } else {
      if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') pendingComma = -1;
      i++;
    }
  }
  return out.join('');
}

/** The value of a JSONC document; throws JsoncError (with the line) when it is not one. An empty document is undefined. */
export function parseJsonc(text: string): unknown {
  const json = blankJsonc(text);
  if (json.trim() === '') return undefined;
  try {
    return JSON.parse(json);
  } catch (e) {
    const msg = (e as Error).message;
    const m = /position (\d+)/.exec(msg);
    const pos = m ? Math.min(Number(m[1]), json.length) : json.length;
    let line = 1;
    for (let k = 0; k < pos; k++) if (json.charCodeAt(k) === 10) line++;
    throw new JsoncError(/end of JSON input|Unterminated/i.test(msg) ? 'cut off' : 'unexpected character', line);
  }
}
