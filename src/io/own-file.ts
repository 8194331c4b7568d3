// Side files tx-usage keeps for itself (the report memo, the discovery
// record, the store's source index, the record of --out files): each starts
// with a marker of its kind, and one is replaced only when the file there is
// absent or starts with that marker (or the prefix an older version wrote),
// so that a file of the user's that happens to sit at that path is never
// overwritten. Written to a temporary file beside it, then renamed.
import { closeSync, mkdirSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { openRegular } from './regular-file.js';
import { dirname } from 'node:path';

/** The marker that starts a side file of `kind`: `{"tx-usage":"<kind>"`. */
export function ownMarker(kind: string): string {
  return `{"tx-usage":${JSON.stringify(kind)}`;
}

/** `value` (an object) as JSON starting with its kind's marker. */
export function ownJson(kind: string, value: object): string {
  const body = JSON.stringify(value);
  return `${ownMarker(kind)}${body === '{}' ? '}' : `,${body.slice(1)}`}`;
}

/** The first bytes of `path`, '' when it does not exist, null when it cannot be read. */
function head(path: string, n: number): string | null {
  let fd: number;
  try {
    fd = openRegular(path); // a FIFO or device at that path is not ours, and never waited on
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? '' : null;
  }
  try {
    const buf = Buffer.alloc(n);
    return buf.toString('utf8', 0, readSync(fd, buf, 0, n, 0));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Whether the file at `path` is absent or one of ours (`kind`, or one of `legacy` prefixes older versions wrote). */
export function isOwnOrAbsent(path: string, kind: string, legacy: string[] = []): boolean {
  const marker = ownMarker(kind);
  const h = head(path, Math.max(marker.length, ...legacy.map((l) => l.length)));
  if (h === null) return false;
  return h === '' || h.startsWith(marker) || legacy.some((l) => h.startsWith(l));
}

/**
 * Writes `text` (which starts with ownMarker(kind)) to `path` unless a file
 * that is not ours is there. False when nothing was written (not ours, or a
 * failure: these files only save time, so failures are not errors).
 */
export function replaceOwnFile(path: string, text: string, kind: string, legacy: string[] = []): boolean {
  if (!isOwnOrAbsent(path, kind, legacy)) return false;
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, text, { flag: 'wx' }); // never over a file already there
  } catch {
    return false;
  }
  try {
    renameSync(tmp, path);
    return true;
  } catch {
    rmSync(tmp, { force: true });
    return false;
  }
}
