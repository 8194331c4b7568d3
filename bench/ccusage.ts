// The peer the benchmark measures against: ccusage's native binary.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The ccusage release measured against. Pinned: the newest release whose
 * linux-x64 native binary is on the registry (20.0.26's is not). It is not a
 * devDependency (its other platforms' packages would break `npm ci`): the
 * benchmark installs it itself, once, into its own folder.
 */
export const CCUSAGE_VERSION = '20.0.24';

/** The ccusage native binary for this platform, as its npm shim would spawn it. */
function nativeIn(nodeModules: string): { cmd: string; version: string } | null {
  const dir = join(nodeModules, '@ccusage', `ccusage-${process.platform}-${process.arch}`);
  const bin = join(dir, 'bin', process.platform === 'win32' ? 'ccusage.exe' : 'ccusage');
  if (!existsSync(bin)) return null;
  try {
    // The package ships the binary without its execute bit; ccusage's own shim sets it before spawning.
    if (process.platform !== 'win32' && (statSync(bin).mode & 0o111) === 0) chmodSync(bin, 0o755);
    return {
      cmd: bin,
      version: (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version,
    };
  } catch {
    return null;
  }
}

/** ccusage from the benchmark's own folder, else from `alsoIn` (e.g. the project's node_modules), else installed into the former. */
export function findCcusage(
  benchDir: string,
  alsoIn: string[],
  log: (s: string) => void,
): { cmd: string; version: string } | null {
  const own = join(benchDir, `ccusage-${CCUSAGE_VERSION}`);
  let found = nativeIn(join(own, 'node_modules'));
  for (const d of alsoIn) found ??= nativeIn(d);
  if (found) return found;
  log(`installing ccusage@${CCUSAGE_VERSION} into ${own} (once)`);
  try {
    mkdirSync(own, { recursive: true });
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        own,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        `ccusage@${CCUSAGE_VERSION}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  } catch (e) {
    log(`could not install ccusage: ${(e as Error).message}`);
    return null;
  }
  return nativeIn(join(own, 'node_modules'));
}
