// Text from transcripts and databases (project paths, model names, titles,
// file names) and from the status line's stdin is written to a terminal by
// tables, warnings, `sources`, `watch` and the status line. A terminal acts
// on control characters instead of showing them: `ESC ] 0;…BEL` sets the
// window title, `ESC [2J` clears the screen, OSC 8 makes a hidden link,
// U+009B is a one-byte CSI, U+202E turns the rest of the line around. So
// every such character is made visible here, the one place every renderer
// and message goes through, before any cutting (a cut can then never leave
// half an escape sequence) and before tx-usage adds its own colours (which
// therefore survive).
//
// What is replaced: C0 controls (U+0000–U+001F), DEL, C1 controls
// (U+0080–U+009F), the bidirectional formatting characters (U+061C,
// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph
// separators (U+2028, U+2029). Each becomes an escape that reads as what it
// was: `\n`, `\r`, `\t`, `\x1b`, `\x9b`, `\u202e`. JSON output keeps every
// character, escaped as JSON allows (`\u001b`, `\u009b`, `\u202e`), so a
// parser gets the value unchanged.

/** The characters a terminal acts on beyond C0: DEL, C1, the bidirectional ones, U+2028/2029. */
const BEYOND_C0 = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';
/** The characters that stand for the bytes of a name that is not valid UTF-8 (src/io/raw-path.ts): shown as `\xNN`. */
const RAW_BYTES = '\\uf780-\\uf7ff';
const CONTROL = new RegExp(`[\\u0000-\\u001f${BEYOND_C0}${RAW_BYTES}]`);
const CONTROLS = new RegExp(CONTROL.source, 'g');
/** The same, but a line feed is kept: text of several lines (a message, a listing). */
const CONTROLS_BUT_LF = new RegExp(`[\\u0000-\\u0009\\u000b-\\u001f${BEYOND_C0}${RAW_BYTES}]`, 'g');
const JSON_LEFT = new RegExp(`[${BEYOND_C0}]`);
const JSON_LEFTS = new RegExp(JSON_LEFT.source, 'g');

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(c: string): string {
  const short = SHORT[c];
  if (short) return short;
  const code = c.charCodeAt(0);
  if (code >= 0xf780 && code <= 0xf7ff) return `\\x${(code - 0xf700).toString(16)}`;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `s` as one line a terminal shows as written: every control character (line feeds too) made visible. */
export function printable(s: string): string {
  return CONTROL.test(s) ? s.replace(CONTROLS, visible) : s;
}

/** `s` with every control character but the line feed made visible: for messages and listings of several lines. */
export function printableLines(s: string): string {
  return CONTROL.test(s) ? s.replace(CONTROLS_BUT_LF, visible) : s;
}

/** The `warning: …` lines for stderr, one per warning, each made printable. */
export function warningLines(warnings: readonly string[]): string {
  return summarised(warnings)
    .map((w) => `warning: ${printable(w)}\n`)
    .join('');
}

/** Up to this many warnings are printed one by one; more are summarised (5,000 files with a bad line each printed 700 KB on every run). */
export const WARNINGS_IN_FULL = 10;
/** Examples printed of each kind of warning when they are summarised. */
const EXAMPLES = 3;

/**
 * The warnings to print: all of them up to WARNINGS_IN_FULL, else by kind
 * (the message with its place and numbers left out), each kind's first
 * EXAMPLES and a count of the rest, and where to see them all. Every kind
 * keeps at least one line, so a rare warning is never hidden by a common one.
 */
export function summarised(warnings: readonly string[]): string[] {
  if (warnings.length <= WARNINGS_IN_FULL) return [...warnings];
  const kinds = new Map<string, string[]>();
  for (const w of warnings) {
    // `FILE[:LINE]: message`: the kind is the message, its numbers as #.
    const m = /^(?:\/|[A-Za-z]:\\|~)[^\n]*?(?::\d+)?: (.*)$/s.exec(w);
    const kind = (m ? m[1]! : w).replace(/\d+(\.\d+)?/g, '#');
    const list = kinds.get(kind);
    if (list) list.push(w);
    else kinds.set(kind, [w]);
  }
  const out: string[] = [];
  for (const list of kinds.values()) {
    out.push(...list.slice(0, EXAMPLES));
    if (list.length > EXAMPLES)
      out.push(`… and ${list.length - EXAMPLES} more like the one${EXAMPLES > 1 ? 's' : ''} above`);
  }
  if (out.length < warnings.length)
    out.push(`${warnings.length} warnings in all; \`tx-usage sources\` lists every one by file`);
  return out;
}

/** A `tx-usage: …` message line for stderr (an error or a notice), made printable. */
export function messageLine(msg: string): string {
  return `tx-usage: ${printableLines(msg)}\n`;
}

/**
 * JSON text with the characters JSON.stringify leaves as they are but a
 * terminal acts on (DEL, C1, the bidirectional ones, U+2028/2029) written as
 * `\uXXXX` escapes: the same value for any parser. They can only occur inside
 * strings (JSON's own syntax is ASCII), so the whole text is safe to map.
 */
export function terminalSafeJson(json: string): string {
  return JSON_LEFT.test(json)
    ? json.replace(JSON_LEFTS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : json;
}
