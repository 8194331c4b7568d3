// Runs the real, compiled CLI (dist/) as a child process with a fixed
// environment: the given HOME, TZ=UTC, NO_COLOR, and a private cache dir.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// The bin entry (package.json), which hands everything but a memo hit to main.js.
export const CLI = resolve(__dirname, '../../dist/src/cli/fast.cjs');

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export { tempDir } from './temp.js';

/**
 * Environment with every harness-root variable cleared, so only `home` is
 * searched; TMPDIR is the test file's own (test/setup/tmp-guard.ts), so what
 * a run leaves in the temp dir is seen.
 */
export function cleanEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TZ: 'UTC',
    NO_COLOR: '1',
    TMPDIR: tmpdir(),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
  };
  return { ...env, ...extra };
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', input, maxBuffer: 64 << 20 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `report ... --format json` and parses stdout; throws with stderr on failure. */
export function reportJson(args: string[], env: NodeJS.ProcessEnv): any {
  const r = runCli(['report', ...args, '--format', 'json'], env);
  if (r.status !== 0) throw new Error(`tx-usage exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

export interface BoundedRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * The CLI with a time limit, for inputs that once hung it: a hang or runaway
 * memory is a failure (killed, `signal` set), not a stuck test. `stdin` as a
 * file descriptor or text.
 */
export function runBounded(
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin?: string | { fd: number },
  limitMs = 60_000,
): BoundedRun {
  const t = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env,
    encoding: 'utf8',
    timeout: limitMs,
    killSignal: 'SIGKILL',
    maxBuffer: 16 << 20,
    ...(typeof stdin === 'object' ? { stdio: [stdin.fd, 'pipe', 'pipe'] } : { input: stdin }),
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ms: Date.now() - t };
}

/** Forgets which file warnings were said (src/cli/said-warnings.ts), so that the next report run says them on stderr again. */
export function forgetSaidWarnings(env: NodeJS.ProcessEnv): void {
  rmSync(join(env.XDG_CACHE_HOME!, 'tx-usage', 'warnings-said.json'), { force: true });
}
