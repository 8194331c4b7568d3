// tx-usage's own cache folder: the store, price data, imported usage exports.
import { join } from 'node:path';

export function cacheDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.trim() ? env.XDG_CACHE_HOME : join(home, '.cache'), 'tx-usage');
}
