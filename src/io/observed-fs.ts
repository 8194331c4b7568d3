// The file-system questions harness discovery asks (does it exist, is it a
// file or a folder, where does it really point, what is in this folder,
// what does this small settings file say),
// answered here so that a discovery can be recorded and later shown to be
// still valid without being run again: discovery is a pure function of these
// answers (and of the environment and arguments), so when every answer is
// the same, so is what it found. Checking the answers again costs one stat
// per folder instead of reading every folder and working through its names.
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { digest128 } from '../core/digest.js';
import { readRegularText } from './regular-file.js';
import { fsPath, nameFromBytes } from './raw-path.js';

export type EntryKind = 'file' | 'dir' | 'link' | 'other';
export interface DirEntry {
  name: string;
  kind: EntryKind;
}

/** What a folder looked like when it was listed. */
export interface ListWitness {
  /** stat of the folder (through links): inode, mtime and ctime. */
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /**
   * The folder had not changed for a while before it was listed, so a later
   * change must move its mtime or ctime (see SETTLE_MS). When false, a check
   * lists the folder again and compares the entries.
   */
  settled: boolean;
  /** Hash of the entries (names and kinds) or of the error listing them raised. */
  entries: string;
}

export type Observation =
  | { op: 'exists'; path: string; r: boolean }
  | { op: 'kind'; path: string; r: EntryKind | null }
  | { op: 'realpath'; path: string; r: string | null }
  | { op: 'list'; path: string; r: ListWitness }
  /** Digest of a small file's text (a harness's settings), null when it cannot be read. */
  | { op: 'read'; path: string; r: string | null };

/**
 * A folder changed less than this long before it was listed is not trusted
 * to show its next change in its timestamps: they come from a coarse clock
 * (a few milliseconds on Linux, 2 s on FAT), so a second change within the
 * same tick leaves them as they were.
 */
export const SETTLE_MS = 3000;

let recording: Observation[] | null = null;
let settleMs = SETTLE_MS;

/** Starts recording every answer given below; returns the list they go into. */
export function startRecording(opts: { settleMs?: number } = {}): Observation[] {
  recording = [];
  settleMs = opts.settleMs ?? SETTLE_MS;
  return recording;
}

export function stopRecording(): void {
  recording = null;
}

function kindNow(path: string): EntryKind | null {
  try {
    const s = statSync(fsPath(path));
    return s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
  } catch {
    return null;
  }
}

function realpathNow(path: string): string | null {
  try {
    // As bytes: a real path may hold names that are not valid UTF-8 (raw-path.ts).
    return nameFromBytes(realpathSync.native(fsPath(path), { encoding: 'buffer' }));
  } catch {
    return null;
  }
}

/** existsSync, recorded. */
export function exists(path: string): boolean {
  const r = existsSync(fsPath(path));
  recording?.push({ op: 'exists', path, r });
  return r;
}

/** What `path` is, following links; null when it cannot be stat'ed. */
export function kindOf(path: string): EntryKind | null {
  const r = kindNow(path);
  recording?.push({ op: 'kind', path, r });
  return r;
}

/** realpath, or null when it cannot be resolved. */
export function realpath(path: string): string | null {
  const r = realpathNow(path);
  recording?.push({ op: 'realpath', path, r });
  return r;
}

/** Small files only: a settings file larger than this is not one (read as unreadable). */
const MAX_READ_BYTES = 1 << 20;

function readNow(path: string): string | null {
  try {
    // Opened without waiting and asked what it is through the descriptor
    // (regular-file.ts): a FIFO or device swapped in after a stat cannot hang it.
    return readRegularText(path, MAX_READ_BYTES);
  } catch {
    return null;
  }
}

/**
 * The text of a small file (a harness's own settings, which say where it
 * keeps sessions), recorded by digest; null when it is missing, unreadable,
 * not a file or over 1 MiB. Read-only, like every question here.
 */
export function readSmallText(path: string): string | null {
  const text = readNow(path);
  recording?.push({ op: 'read', path, r: text === null ? null : digest128(text) });
  return text;
}

function entriesHash(entries: DirEntry[] | null, err: NodeJS.ErrnoException | null): string {
  if (err) return digest128(`E${err.code ?? err.message}`);
  let text = '';
  for (const e of entries!) text += `${e.kind[0]}${e.name}\n`;
  return digest128(text);
}

function readEntries(path: string): DirEntry[] {
  // Names as bytes, kept exactly (raw-path.ts): a name that is not valid UTF-8 still names its file.
  return readdirSync(fsPath(path), { withFileTypes: true, encoding: 'buffer' }).map((d) => ({
    name: nameFromBytes(d.name),
    kind: d.isFile() ? 'file' : d.isDirectory() ? 'dir' : d.isSymbolicLink() ? 'link' : 'other',
  }));
}

/** The entries of a folder (Dirent kinds: a link is 'link'); throws what readdir throws. */
export function listDir(path: string): DirEntry[] {
  if (!recording) return readEntries(path);
  let before;
  try {
    before = statSync(fsPath(path), { throwIfNoEntry: false });
  } catch {
    before = null;
  }
  let entries: DirEntry[] | null = null;
  let err: NodeJS.ErrnoException | null = null;
  try {
    entries = readEntries(path);
  } catch (e) {
    err = e as NodeJS.ErrnoException;
  }
  const now = Date.now();
  const settled = !!before && !err && now - Math.max(before.mtimeMs, before.ctimeMs) > settleMs;
  recording.push({
    op: 'list',
    path,
    r: {
      ino: before?.ino ?? -1,
      mtimeMs: before?.mtimeMs ?? -1,
      ctimeMs: before?.ctimeMs ?? -1,
      settled,
      entries: entriesHash(entries, err),
    },
  });
  if (err) throw err;
  return entries!;
}

/** Whether `o` would be answered the same now. */
function holds(o: Observation): boolean {
  switch (o.op) {
    case 'exists':
      return existsSync(fsPath(o.path)) === o.r;
    case 'kind':
      return kindNow(o.path) === o.r;
    case 'realpath':
      return realpathNow(o.path) === o.r;
    case 'read': {
      const text = readNow(o.path);
      return (text === null ? null : digest128(text)) === o.r;
    }
    case 'list': {
      const w = o.r;
      if (w.settled) {
        let s;
        try {
          s = statSync(fsPath(o.path), { throwIfNoEntry: false });
        } catch {
          s = null;
        }
        // Adding, removing or renaming an entry moves the folder's mtime and ctime.
        if (s && s.ino === w.ino && s.mtimeMs === w.mtimeMs && s.ctimeMs === w.ctimeMs) return true;
      }
      let entries: DirEntry[] | null = null;
      let err: NodeJS.ErrnoException | null = null;
      try {
        entries = readEntries(o.path);
      } catch (e) {
        err = e as NodeJS.ErrnoException;
      }
      return entriesHash(entries, err) === w.entries;
    }
    default:
      return o satisfies never;
  }
}

/** True when every recorded answer is still the same. */
export function stillHolds(observations: readonly Observation[]): boolean {
  for (const o of observations) if (!holds(o)) return false;
  return true;
}
