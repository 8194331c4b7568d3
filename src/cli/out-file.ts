// `report --out FILE`: the report goes to a file instead of stdout. A file
// that is there already is replaced only when tx-usage wrote it and nobody
// changed it since (a record in the cache dir keeps each written path with
// the digest of what was written), or with --force; anything else is a usage
// error that names the path and leaves it as it was. Written to a temporary
// file beside it, then renamed, so a reader never sees half a report.
import { lstatSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { digest128 } from '../core/digest.js';
import { fsProblem } from '../core/fs-problem.js';
import { UsageError } from '../report/period.js';
import { ownJson, replaceOwnFile } from '../io/own-file.js';
import { inputIsTTY } from '../core/inputs.js';

const KIND = 'outputs';
/** Paths remembered (the most recent ones). */
const MAX_RECORDED = 200;

function recordPath(cacheDir: string): string {
  return join(cacheDir, 'outputs.json');
}

function readRecord(cacheDir: string): Record<string, string> {
  try {
    const j = JSON.parse(readFileSync(recordPath(cacheDir), 'utf8')) as {
      'tx-usage'?: string;
      files?: Record<string, string>;
    };
    return j['tx-usage'] === KIND && j.files && typeof j.files === 'object' ? j.files : {};
  } catch {
    return {};
  }
}

/** The real path of `p` (links resolved), or of its folder joined with its name when it does not exist yet. */
function realOf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    try {
      return join(realpathSync.native(dirname(p)), basename(p));
    } catch {
      return p;
    }
  }
}

/**
 * Why `abs` is tx-usage's own and may never be an --out file, even with
 * --force: the store, any file named after it (its `.wal`, `.lock`,
 * `.sources.json`, temporary files), or a file already in its cache folder
 * (the memo, the discovery record, snapshots, imported exports). Compared by
 * real path, so a link to one, or a path through a linked folder, is refused too.
 */
function ownFileRefusal(abs: string, cacheDir: string, store: string | null): string | null {
  const real = realOf(abs);
  if (store !== null && store !== ':memory:') {
    const s = realOf(resolve(store));
    if (real === s) return `is tx-usage's store (${store}); it is never replaced, even with --force`;
    if (real.startsWith(`${s}.`))
      return `is a file of tx-usage's store (${store}); it is never replaced, even with --force`;
  }
  const cache = realOf(resolve(cacheDir));
  if (real.startsWith(cache + sep)) {
    let there = false;
    try {
      there = statSync(real, { throwIfNoEntry: false }) !== undefined;
    } catch {
      there = true;
    }
    if (there) return `is one of tx-usage's own files (in ${cacheDir}); it is never replaced, even with --force`;
  }
  return null;
}

/**
 * Why `path` may not be written, or null when it may; 'stream' when it is a
 * device, a pipe or a socket (`/dev/stdout`, a FIFO), written through, never replaced.
 */
function refusal(path: string, cacheDir: string, force: boolean, store: string | null): string | null | 'stream' {
  const abs = resolve(path);
  if (/[\\/]$/.test(path)) return 'names a folder; name the file to write';
  const own = ownFileRefusal(abs, cacheDir, store);
  if (own) return own;
  let st;
  try {
    st = statSync(abs, { throwIfNoEntry: false });
  } catch (e) {
    return fsProblem(e);
  }
  if (!st) {
    const dir = dirname(abs);
    let d;
    try {
      d = statSync(dir, { throwIfNoEntry: false });
    } catch (e) {
      return `${dir}: ${fsProblem(e)}`;
    }
    if (!d) return `no such folder ${dir}`;
    if (!d.isDirectory()) return `${dir} is not a folder`;
    return null;
  }
  if (st.isDirectory()) return 'is a directory; name the file to write';
  if (st.isCharacterDevice() || st.isFIFO() || st.isSocket()) return 'stream';
  if (!st.isFile()) return 'not a regular file';
  if (lstatSync(abs).isSymbolicLink()) return 'a symbolic link; name the file itself';
  if (force) return null;
  let text: Buffer;
  try {
    text = readFileSync(abs);
  } catch (e) {
    return fsProblem(e);
  }
  if (readRecord(cacheDir)[abs] === digest128(text)) return null;
  return 'the file exists and tx-usage did not write it (or it was changed since); remove it, choose another name, or add --force';
}

/** Throws the usage error for an --out path that cannot be written (checked before any work is done, and again at the write). */
export function checkOutFile(path: string, cacheDir: string, force = false, store: string | null = null): void {
  const why = refusal(path, cacheDir, force, store);
  if (why && why !== 'stream') throw new UsageError(`--out ${path}: ${why}`);
}

/** Whether `path` may be written now (the memo replays only then; the full run reports why not). */
export function outFileWritable(path: string, cacheDir: string, force = false, store: string | null = null): boolean {
  const why = refusal(path, cacheDir, force, store);
  return why === null || why === 'stream';
}

/** Writes `text` to `path` (see the top of this file) and records it as tx-usage's. */
export function writeOutFile(
  path: string,
  text: string,
  cacheDir: string,
  force = false,
  store: string | null = null,
): void {
  checkOutFile(path, cacheDir, force, store);
  const abs = resolve(path);
  if (refusal(path, cacheDir, force, store) === 'stream') {
    try {
      writeFileSync(abs, text);
    } catch (e) {
      throw new UsageError(`--out ${path}: ${fsProblem(e)}`);
    }
    return;
  }
  const tmp = `${abs}.tx-usage-${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(tmp, { force: true }); // ours, half written
    throw new UsageError(`--out ${path}: ${fsProblem(e)}`);
  }
  const files = readRecord(cacheDir);
  delete files[abs];
  files[abs] = digest128(text);
  const keys = Object.keys(files);
  for (const k of keys.slice(0, Math.max(0, keys.length - MAX_RECORDED))) delete files[k];
  replaceOwnFile(recordPath(cacheDir), ownJson(KIND, { files }), KIND);
}

/**
 * The format an --out file's name asks for (`r.csv`: csv), used when
 * --format is not given: a table written into `r.csv` was what the
 * user got before. Null for any other name (the default, table, stays).
 */
export function formatOfOutFile(path: string): 'csv' | 'json' | 'html' | null {
  const ext = /\.([A-Za-z]+)$/.exec(path)?.[1]?.toLowerCase();
  if (ext === 'csv' || ext === 'json') return ext;
  if (ext === 'html' || ext === 'htm') return 'html';
  return null;
}

/**
 * An HTML page is for a browser: asked for on a terminal without --out, it is
 * refused before any work, naming the flag that writes it (a page of markup
 * and base64 scrolled past in a terminal helps nobody).
 */
export function refuseHtmlToTerminal(a: { format?: string; out?: string }): void {
  if (a.format === 'html' && a.out === undefined && inputIsTTY(1)) {
    throw new UsageError(
      '--format html: an HTML page is for a browser, not a terminal; write it to a file with --out report.html (or redirect stdout: > report.html)',
    );
  }
}

/** What a run says on stderr after writing --out FILE: the path and the size written. */
export function wroteLine(path: string, text: string): string {
  const bytes = Buffer.byteLength(text);
  const size =
    bytes < 1024
      ? `${bytes} bytes`
      : bytes < 1024 * 1024
        ? `${(bytes / 1024).toFixed(1)} KB`
        : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `wrote ${path} (${size})`;
}
