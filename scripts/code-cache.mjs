// Leaves V8's compiled code of dist/src/cli/main.cjs beside it
// (main.cjs.code), which the bin entry hands to V8 when it loads the bundle
// (src/cli/code-cache.ts): a cold run's main thread then does not parse and
// compile most of the bundle's functions again (~30 ms here). The code is
// what a demo report compiled (generated data in a temporary home), taken at
// its exit, under the V8 flags every report run sets before loading
// main.cjs. It is only speed: without it, or when V8 refuses it (another
// Node, other flags), the bundle is compiled as before.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'src', 'cli');
const code = join(cli, 'main.cjs.code');
rmSync(code, { force: true });
if (existsSync(join(cli, 'main.cjs'))) {
  const dir = mkdtempSync(join(tmpdir(), 'tx-usage-code-'));
  try {
    const env = { PATH: process.env.PATH, HOME: join(dir, 'home'), TZ: 'UTC', NO_COLOR: '1', XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config'), TX_USAGE_MAKE_CODE: '1' };
    const r = spawnSync(process.execPath, [join(cli, 'fast.cjs'), 'report', '--demo', '--format', 'json'], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0 || !existsSync(code)) console.warn(`scripts/code-cache.mjs: no compiled code made (exit ${r.status}): ${r.stderr.trim().split('\n').pop() ?? ''}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
