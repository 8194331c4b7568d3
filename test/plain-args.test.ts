// A plain `report` command line is read without yargs (src/cli/plain-args.ts).
// Whatever it reads must be exactly what yargs makes of the same line: the
// memo keys on those arguments, and the report runs on them. Each line here
// runs through the CLI twice, once forced through yargs, and the arguments
// remembered for it must be the same; every line the reader cannot match
// exactly goes to yargs.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeHome } from '../fixtures/claude-code/build.js';
import { plainReportArgs } from '../src/cli/plain-args.js';
import { cleanEnv, runCli, tempDir } from './helpers/cli.js';

describe('report command lines read without yargs', () => {
  const home = tempDir('txu-plain-');
  const s = new ClaudeHome(join(home, '.claude')).session({ cwd: '/w/plain' });
  s.response({ ts: '2026-06-01T10:00:00.000Z', usage: { input: 3, output: 30 } });

  const remembered = (argv: string[], yargsOnly: boolean) => {
    const cache = join(home, '.cache-plain');
    rmSync(cache, { recursive: true, force: true });
    const env = cleanEnv(home, { XDG_CACHE_HOME: cache, ...(yargsOnly ? { TX_USAGE_YARGS_ONLY: '1' } : {}) });
    const r = runCli(argv, env);
    const memo = JSON.parse(readFileSync(join(cache, 'tx-usage', 'report-memo.json'), 'utf8')) as { entries: { args: unknown; key: string }[] };
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, args: memo.entries[0]!.args, key: memo.entries[0]!.key };
  };

  it.each([
    [['report']],
    [['report', '--since', '2026-05-01', '--format', 'json']],
    [['report', 'summary', '--since=2026-05-01', '--until=2026-06-30', '--by', 'model,project', '--format', 'csv']],
    [['report', 'monthly', '--since', '2026-06-01', '--tz', 'Europe/Berlin', '--format', 'json']],
    [['report', '--harness', 'claude-code', '--project', '', '--cost', 'computed', '--since', '2026-05-01', '--quiet']],
    [['report', '--since', '2026-05-01', '--no-color', '--root', `claude-code=${join(home, '.claude')}`, '--root', 'codex=/nowhere', '--format', 'json']],
    [['report', 'compare', '--since', '2026-05-01', '--machine', 'laptop', '--format', 'json']],
  ])('%j: the same arguments, key and output as through yargs', (argv) => {
    expect(plainReportArgs(argv)).not.toBeNull();
    const plain = remembered(argv, false);
    const viaYargs = remembered(argv, true);
    expect(plain.status).toBe(0);
    expect(plain.args).toEqual(viaYargs.args);
    expect(plain.key).toBe(viaYargs.key);
    expect(plain.stdout).toBe(viaYargs.stdout);
    expect(plain.stderr).toBe(viaYargs.stderr);
  });

  it('anything it cannot read exactly as yargs does is left to yargs', () => {
    for (const argv of [
      ['report', '--help'],
      ['report', '-h'],
      ['report', '--since'],
      ['report', '--since', '-3'],
      ['report', '--since', '7d', '--since', '30d'],
      ['report', '--quiet', 'false'],
      ['report', '--quiet=true'],
      ['report', '--unknown', 'x'],
      ['report', 'summary', 'extra'],
      ['report', '--demo'],
      ['report', '--rebuild'],
      ['report', '--', 'x'],
      ['report', '--no-quiet'],
      ['ingest'],
    ]) {
      expect(plainReportArgs(argv), JSON.stringify(argv)).toBeNull();
    }
  });

  it('errors are the same: a bad value is a usage error naming it (exit 2)', () => {
    const env = cleanEnv(home, { XDG_CACHE_HOME: join(home, '.cache-err') });
    for (const argv of [['report', '--since', 'yesterday'], ['report', '--root', 'nope=/x'], ['report', '--format', 'xml']]) {
      const plain = runCli(argv, env);
      const viaYargs = runCli(argv, { ...env, TX_USAGE_YARGS_ONLY: '1' });
      expect(plain.status).toBe(2);
      expect(plain.status).toBe(viaYargs.status);
      expect(plain.stderr).toBe(viaYargs.stderr);
    }
  });
});
