// One refresh of the live snapshot at a time: a lock file in the cache dir
// (live/refresh.lock, made with O_EXCL) holding the refresher's pid and start
// time. A lock whose process is gone, or older than LOCK_MAX_MS, is taken
// over. A refresh that fails leaves live/refresh-failed.json, so that status
// lines can say their figures are stale rather than wait for it.
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  closeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { alive } from '../cli/workdir.js';
import { fsProblem } from '../core/fs-problem.js';

/** A refresh waits up to a minute for a busy store (store.ts), then gives up: a lock older than this is abandoned. */
export const LOCK_MAX_MS = 150_000;

export const lockPath = (cacheDir: string) => join(cacheDir, 'live', 'refresh.lock');
export const failurePath = (cacheDir: string) => join(cacheDir, 'live', 'refresh-failed.json');

interface LockInfo {
  pid: number;
  at: number;
}

export function readLock(cacheDir: string): LockInfo | null {
  try {
    const l = JSON.parse(readFileSync(lockPath(cacheDir), 'utf8')) as LockInfo;
    return typeof l.pid === 'number' && typeof l.at === 'number' ? l : null;
  } catch {
    return null;
  }
}

/** The running refresh's start (epoch ms), or null when none runs. */
export function refreshRunningSince(cacheDir: string, now = Date.now()): number | null {
  const l = readLock(cacheDir);
  return l && alive(l.pid) && now - l.at < LOCK_MAX_MS ? l.at : null;
}

/**
 * Why no refresh can write here (the cache dir's `live` folder cannot be made
 * or written: the lock, the snapshot and the failure record all go there),
 * as `FOLDER: permission denied`; null when it can. A read-only cache dir (a
 * first run under sudo left it root's) otherwise starts no refresh and leaves
 * nothing behind that says why.
 */
export function liveDirProblem(cacheDir: string): string | null {
  const dir = join(cacheDir, 'live');
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return null;
  } catch (e) {
    // The folder at fault: `live` itself, or the first on the way to it that exists (mkdir could not make one in it).
    let at = dir;
    while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
    return `${at}: ${fsProblem(e)}`;
  }
}

/** Takes the lock for `pid` (true), or finds a live refresh holding it, or cannot make it (false). */
export function takeLock(cacheDir: string, pid: number, now = Date.now()): boolean {
  const path = lockPath(cacheDir);
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch {
    return false;
  }
  for (let i = 0; i < 2; i++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeFileSync(fd, JSON.stringify({ pid, at: now }));
      } finally {
        closeSync(fd);
      }
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      if (readLock(cacheDir)?.pid === pid) return true; // handed over by the process that started this one
      if (refreshRunningSince(cacheDir, now) !== null) return false;
      rmSync(path, { force: true }); // abandoned: take it over
    }
  }
  return false;
}

/** Hands the lock from the process that took it to `pid` (the refresher it started). */
export function passLock(cacheDir: string, pid: number, at: number): void {
  try {
    writeFileSync(lockPath(cacheDir), JSON.stringify({ pid, at }));
  } catch {
    /* the refresher takes it over when it finds it abandoned */
  }
}

export function releaseLock(cacheDir: string, pid: number): void {
  const l = readLock(cacheDir);
  if (l && l.pid === pid) rmSync(lockPath(cacheDir), { force: true });
}

/**
 * A failed refresh: `message` in full (a status line's JSON stale_reason),
 * `note` the few words its line shows (`store read-only`).
 */
export function recordFailure(cacheDir: string, at: number, message: string, note = 'refresh failed'): void {
  try {
    mkdirSync(join(cacheDir, 'live'), { recursive: true });
    writeFileSync(failurePath(cacheDir), JSON.stringify({ at, message, note }));
  } catch {
    /* best effort */
  }
}

export function clearFailure(cacheDir: string): void {
  rmSync(failurePath(cacheDir), { force: true });
}

export function lastFailure(cacheDir: string): { at: number; message: string; note: string } | null {
  try {
    const f = JSON.parse(readFileSync(failurePath(cacheDir), 'utf8')) as {
      at: number;
      message: string;
      note?: unknown;
    };
    return { ...f, note: typeof f.note === 'string' ? f.note : 'refresh failed' };
  } catch {
    return null;
  }
}
