// Runs the compiled CLI as an unprivileged user (uid/gid 65534), for the
// tests of files without read permission: as root every file is readable,
// so only another user sees EACCES.
//
// That user must be able to reach the CLI, the package files it reads at
// run time and its working directory. A checkout inside a folder only root
// may enter (CI's clone in a 0700 temp dir, say) is not reachable: then the
// package's run-time files (package.json's "files", package.json itself and
// node_modules) are staged in a temp dir that is, as hard links where the
// file system allows and copies where it does not, and removed afterwards.
// The run gets a temp dir of its own that user can write (the test file's
// TMPDIR belongs to root, test/setup/tmp-guard.ts): its empty per-user
// folder of work dirs is removed after the run, anything else is left there
// for the guard to name. Nothing outside the temp dir is touched.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { CLI } from './cli.js';

export const NOBODY = 65534;

/** Every folder under `dir` (itself included) 0755 and every file 0644, so uid 65534 can read them (a test's temp dir belongs to root). */
export function openUp(dir: string): void {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) openUp(p);
    else chmodSync(p, 0o644);
  }
}

const ROOT = resolve(__dirname, '../..');

/** Whether uid 65534 can read `path` (every folder on the way included). */
function nobodyCanRead(path: string): boolean {
  return spawnSync('/bin/sh', ['-c', 'test -r "$1"', 'sh', path], { cwd: '/', uid: NOBODY, gid: NOBODY }).status === 0;
}

function stageItem(from: string, dir: string): void {
  if (spawnSync('cp', ['-al', from, dir]).status !== 0 && spawnSync('cp', ['-a', from, dir]).status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`cannot stage ${from} for the unprivileged run`);
  }
}

/**
 * A copy of the package's run-time files that uid 65534 can reach, with the
 * node binary when that is out of reach too (CI's Node 22 lives in a 0700
 * temp dir); `dir` is removed by the caller.
 */
function stagePackage(): { dir: string; node: string } {
  const dir = mkdtempSync(join(tmpdir(), 'txu-nobody-pkg-'));
  chmodSync(dir, 0o755);
  const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
  for (const item of ['package.json', 'node_modules', ...files]) stageItem(join(ROOT, item), dir);
  let node = process.execPath;
  if (!nobodyCanRead(node)) {
    stageItem(node, dir);
    node = join(dir, basename(node));
  }
  return { dir, node };
}

/**
 * Runs `node CLI ...args` as uid/gid 65534 in `cwd` (a folder that user can
 * enter, e.g. the test's opened-up home), with `input` on stdin when given.
 */
export function runCliAsNobody(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  input?: string,
): SpawnSyncReturns<string> {
  return runNodeAsNobody((root) => [join(root, relative(ROOT, CLI)), ...args], env, cwd, input);
}

/**
 * Runs `code` (an ES module) with node as uid/gid 65534 in `cwd`; the
 * package's folder (staged when needed: import its `dist/` from there) is
 * process.argv[1].
 */
export function runModuleAsNobody(code: string, env: NodeJS.ProcessEnv, cwd: string): SpawnSyncReturns<string> {
  return runNodeAsNobody((root) => ['--input-type=module', '-e', code, root], env, cwd);
}

/** `node ...argsOf(the package's folder, staged when needed)` as uid/gid 65534 in `cwd`. */
function runNodeAsNobody(
  argsOf: (root: string) => string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  input?: string,
): SpawnSyncReturns<string> {
  const staged = nobodyCanRead(CLI) && nobodyCanRead(process.execPath) ? null : stagePackage();
  const tmp = mkdtempSync(join(tmpdir(), 'txu-nobody-tmp-'));
  chownSync(tmp, NOBODY, NOBODY);
  try {
    return spawnSync(staged?.node ?? process.execPath, argsOf(staged?.dir ?? ROOT), {
      env: { ...env, TMPDIR: tmp },
      cwd,
      encoding: 'utf8',
      input,
      uid: NOBODY,
      gid: NOBODY,
    });
  } finally {
    if (staged) rmSync(staged.dir, { recursive: true, force: true });
    // Only empty folders go: a work dir left behind stays for the guard to name.
    for (const d of [join(tmp, `tx-usage-runs-${NOBODY}`), tmp]) {
      try {
        rmdirSync(d);
      } catch {}
    }
  }
}
