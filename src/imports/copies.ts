// The copies of imported exports in one import folder (see dir.ts): added
// atomically under their content's hash (the same bytes are kept once, by
// whatever name they were imported), listed with the name they were imported
// by, removed on request. Only files named as this module names them are
// ever listed or removed.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sha256 } from '../core/digest.js';
import { COPY_NAME } from './dir.js';

export interface ImportCopy {
  /** 16 hex digits of the content's SHA-256. */
  id: string;
  path: string;
  /** The file name it was imported by (no folder), when known. */
  original: string | null;
  /** When it was first imported (ISO 8601), when known. */
  importedAt: string | null;
  size: number;
}

interface CopyMeta {
  original: string;
  imported_at: string;
}

export function copyId(bytes: Uint8Array): string {
  return sha256(bytes, 'hex').slice(0, 16);
}

const metaPath = (dir: string, id: string) => join(dir, `${id}.json`);

function readMeta(dir: string, id: string): CopyMeta | null {
  try {
    const m = JSON.parse(readFileSync(metaPath(dir, id), 'utf8')) as Partial<CopyMeta>;
    return typeof m.original === 'string' && typeof m.imported_at === 'string' ? (m as CopyMeta) : null;
  } catch {
    return null;
  }
}

/** The copies in `dir`, oldest import first (a missing folder holds none). */
export function listCopies(dir: string): ImportCopy[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: ImportCopy[] = [];
  for (const name of names.sort()) {
    const m = COPY_NAME.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    const meta = readMeta(dir, m[1]!);
    out.push({
      id: m[1]!,
      path,
      original: meta?.original ?? null,
      importedAt: meta?.imported_at ?? null,
      size: statSync(path).size,
    });
  }
  return out.sort((a, b) => (a.importedAt ?? '').localeCompare(b.importedAt ?? '') || a.id.localeCompare(b.id));
}

/** Writes `bytes` as a copy unless the same bytes are there already (then `added` is false and nothing is written). */
export function addCopy(
  dir: string,
  bytes: Uint8Array,
  from: string,
  now = new Date(),
): { copy: ImportCopy; added: boolean } {
  const id = copyId(bytes);
  const path = join(dir, `${id}.csv`);
  if (existsSync(path)) {
    const meta = readMeta(dir, id);
    return {
      copy: { id, path, original: meta?.original ?? null, importedAt: meta?.imported_at ?? null, size: bytes.length },
      added: false,
    };
  }
  mkdirSync(dir, { recursive: true });
  const meta: CopyMeta = { original: basename(from), imported_at: now.toISOString() };
  // The name first, then the bytes under a temporary name renamed into place:
  // a copy is never seen half written.
  writeFileSync(metaPath(dir, id), JSON.stringify(meta) + '\n');
  const tmp = join(dir, `.${id}.csv.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  return { copy: { id, path, original: meta.original, importedAt: meta.imported_at, size: bytes.length }, added: true };
}

/** Deletes a copy and its name. */
export function removeCopy(dir: string, copy: ImportCopy): void {
  rmSync(copy.path, { force: true });
  rmSync(metaPath(dir, copy.id), { force: true });
}
