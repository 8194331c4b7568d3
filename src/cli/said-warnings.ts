// A source file's warnings (an incomplete final line, lines that do not
// parse) are said on stderr once: by the first report that shows them. Later
// runs leave them to `tx-usage sources`, which lists every one, and to the
// JSON and HTML documents, which carry the warnings of what they show
// (issue 44: every run printed the same nine). What was said is recorded in
// the cache dir by each warning's digest, as tx-usage's own side file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { digest128 } from '../core/digest.js';
import { ownJson, replaceOwnFile } from '../io/own-file.js';

const KIND = 'warnings-said';
/** The digests kept, newest last: a warning said longer ago than this many others is said again. */
const MAX_KEPT = 5000;

const pathOf = (cacheDir: string) => join(cacheDir, 'warnings-said.json');

function readSaid(cacheDir: string): string[] {
  try {
    const j = JSON.parse(readFileSync(pathOf(cacheDir), 'utf8')) as { 'tx-usage'?: string; said?: unknown };
    return j['tx-usage'] === KIND && Array.isArray(j.said)
      ? j.said.filter((x): x is string => typeof x === 'string')
      : [];
  } catch {
    return [];
  }
}

/** Of `warnings`, those not said before (in their order). Reads the record only when there are some. */
export function unsaid(cacheDir: string, warnings: readonly string[]): string[] {
  if (!warnings.length) return [];
  const said = new Set(readSaid(cacheDir));
  return warnings.filter((w) => !said.has(digest128(w)));
}

/** Records `warnings` as said (a failure to write only means they are said again). */
export function markSaid(cacheDir: string, warnings: readonly string[]): void {
  if (!warnings.length) return;
  const fresh = new Set(warnings.map((w) => digest128(w)));
  const said = [...readSaid(cacheDir).filter((d) => !fresh.has(d)), ...fresh].slice(-MAX_KEPT);
  replaceOwnFile(pathOf(cacheDir), ownJson(KIND, { said }), KIND);
}
