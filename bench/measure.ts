// Runs one command as a child process and measures it: wall time (our own
// clock around the child) and peak RSS (GNU time's %M, the kernel's
// high-water mark for the child and its threads).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Measured {
  wallMs: number;
  /** Peak resident set size in MB, or null when GNU time is not available. */
  rssMb: number | null;
  /** CPU time (user + system, all threads) in ms, or null when GNU time is not available: less disturbed by machine load than wall time. */
  cpuMs: number | null;
  status: number;
  stdout: string;
  stderr: string;
}

const GNU_TIME = '/usr/bin/time';
export const haveGnuTime = existsSync(GNU_TIME);

export function measure(cmd: string, args: string[], env: NodeJS.ProcessEnv): Measured {
  const rssFile = join(tmpdir(), `tx-usage-bench-rss-${process.pid}`);
  rmSync(rssFile, { force: true });
  const [file, argv] = haveGnuTime ? [GNU_TIME, ['-f', '%M %U %S', '-o', rssFile, cmd, ...args]] : [cmd, args];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(file, argv, { env, encoding: 'utf8', maxBuffer: 256 << 20 });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  let rssMb: number | null = null;
  let cpuMs: number | null = null;
  if (haveGnuTime) {
    const [kb, user, sys] = (readFileSync(rssFile, 'utf8').trim().split('\n').pop() ?? '').split(' ').map(Number);
    if (Number.isFinite(kb)) rssMb = kb! / 1024;
    if (Number.isFinite(user) && Number.isFinite(sys)) cpuMs = (user! + sys!) * 1000;
    rmSync(rssFile, { force: true });
  }
  return { wallMs, rssMb, cpuMs, status: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
