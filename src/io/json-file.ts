// The shared reader of sources that are one JSON document (SourceKind
// `json`): a harness that rewrites a whole file on every save. Such a file is
// read whole every time it changes (it cannot be resumed), so it is read once
// per change, parsed once, and its bytes counted like the JSONL readers'.
import { readRegularBytes } from './regular-file.js';
import type { ExtractSink } from '../harnesses/types.js';
import { readCounter } from './jsonl.js';
import { textStart } from './text-encoding.js';

/**
 * The parsed document, or null when it is not JSON (a warning naming the file
 * and, where the parser says, the line; never the text). An empty file is
 * null without a warning: harnesses create a file before they first write it.
 */
export function readJsonFile(file: string, sink: ExtractSink): unknown {
  const bytes = readRegularBytes(file);
  readCounter.bytes += bytes.length;
  // A byte order mark is skipped; UTF-16 is named, not read (text-encoding.ts).
  const start = textStart(bytes.subarray(0, 4));
  if ('unreadable' in start) {
    sink.warn(start.unreadable, { file });
    return null;
  }
  const text = bytes.toString('utf8', start.skip);
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch (e) {
    sink.warn(
      `not a JSON document (${/end of JSON input|Unterminated string/i.test((e as Error).message) ? 'cut off' : 'unexpected character'}); nothing read from it`,
      { file, line: lineOf(text, e as Error) },
    );
    return null;
  }
}

/** The 1-based line of the parser's reported position (1 when it gives none). */
function lineOf(text: string, e: Error): number {
  const m = /position (\d+)/.exec(e.message);
  if (!m) return /end of JSON input/i.test(e.message) ? text.split('\n').length : 1;
  const pos = Math.min(Number(m[1]), text.length);
  let line = 1;
  for (let i = 0; i < pos; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
