// tx-usage's own cache folder: the store, price data, imported usage exports.
import { statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

/**
 * XDG_CACHE_HOME when it is set to an absolute path; the XDG Base Directory
 * spec says a relative value is invalid and is to be ignored (it would name
 * a different folder from every working folder).
 */
function xdgCacheHome(env: NodeJS.ProcessEnv): string | null {
  const v = env.XDG_CACHE_HOME?.trim();
  return v && isAbsolute(v) ? env.XDG_CACHE_HOME! : null;
}

export function cacheDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(xdgCacheHome(env) ?? join(home, '.cache'), 'tx-usage');
}

/**
 * Why the cache folder cannot be a folder (XDG_CACHE_HOME, or a folder on
 * the way to it, is a file), in words naming it; null when it can be.
 */
export function cacheDirProblem(env: NodeJS.ProcessEnv, home: string): string | null {
  for (let p = cacheDir(env, home); dirname(p) !== p; p = dirname(p)) {
    let st;
    try {
      st = statSync(p, { throwIfNoEntry: false });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') continue; // a file further up: found next
      return null; // a permission problem is reported where the store is opened
    }
    if (st === undefined) continue;
    if (st.isDirectory()) return null;
    const via =
      xdgCacheHome(env) !== null ? `XDG_CACHE_HOME=${env.XDG_CACHE_HOME}` : `the cache folder ${cacheDir(env, home)}`;
    return `${via}: ${p} is not a folder; point XDG_CACHE_HOME at a folder (or unset it), or pass --db FILE`;
  }
  return null;
}
