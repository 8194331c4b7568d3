// Issue 35: settings files that are not what they claim to be. A prices or
// config path at /dev/zero, a FIFO nobody writes to, a symlink to one, a
// folder or an oversized file is refused at once (exit 2, naming it) instead
// of being read until memory runs out or waiting for ever; the status line
// prints its line regardless (exit 0). A price override that is a string,
// {}, null, negative or huge is exit 2 naming the file and the entry (a huge
// one aborted the ingest with `bigint out of int64 range`). A config file
// that is valid JSON but not an object (null, []) is exit 2.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { refreshesDone } from '../helpers/live.js';
import { CLI, cleanEnv, runBounded, tempDir, type BoundedRun } from '../helpers/cli.js';

type Run = BoundedRun;

/** The CLI with a time limit (a hang is a failure, not a stuck test) and `stdin` as a file descriptor or text. */
const run = (args: string[], env: NodeJS.ProcessEnv, stdin?: string | { fd: number }): Run =>
  runBounded(args, env, stdin, 30_000);

/** Exit 2 at once, one `tx-usage:` line on stderr naming `path` and matching `why`. */
function expectRefused(r: Run, path: string, why: RegExp): void {
  expect(r.signal, `killed after ${r.ms} ms (hung or ran out of memory)`).toBeNull();
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^tx-usage: /);
  expect(lines[0]).toContain(path);
  expect(lines[0]).toMatch(why);
  expect(r.stderr).not.toMatch(/\n\s+at |bigint|RangeError/);
}

const RANGE = ['--since', '2026-05-01', '--until', '2026-05-31'];

describe('settings files that are not regular files, or not what they should hold', () => {
  let dir: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let fifo: string;
  let configDir: string;
  let config: string;

  beforeAll(() => {
    dir = tempDir('txu-hostile-settings-');
    home = join(dir, 'home');
    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: '/w/app' });
    s.user('2026-05-04T10:00:00.000Z');
    s.response({ ts: '2026-05-04T10:00:05.000Z', model: 'claude-sonnet-4-5', usage: { input: 1000, output: 200 } });
    env = cleanEnv(home);
    fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    configDir = join(home, '.config', 'tx-usage');
    mkdirSync(configDir, { recursive: true });
    config = join(configDir, 'config.json');
  });
  afterAll(async () => {
    await refreshesDone(home); // a status line may have started a background refresh
    rmSync(dir, { recursive: true, force: true });
  });

  it('--prices at /dev/zero, a FIFO, a symlink to a FIFO, a folder: exit 2 at once, naming it', () => {
    const link = join(dir, 'prices-link.json');
    symlinkSync(fifo, link);
    const cases: [string, RegExp][] = [
      ['/dev/zero', /not a regular file \(a character device\)/],
      [fifo, /not a regular file \(a FIFO/],
      [link, /not a regular file \(a FIFO/],
      [dir, /is a directory/],
    ];
    for (const [path, why] of cases) {
      const r = run(['report', ...RANGE, '--prices', path], env);
      expectRefused(r, `--prices ${path}`, why);
      expect(r.ms).toBeLessThan(20_000);
    }
  });

  it('a price that is a string, {}, null, negative or huge: exit 2 naming the file and the entry; nothing aborts', () => {
    const cases: [unknown, RegExp][] = [
      ['0.000003', /is a string, not a number/],
      [{}, /is an object, not a number/],
      [null, /is null, not a number/],
      [-3e-6, /is negative/],
      [1e300, /more than 1/],
    ];
    for (const [value, why] of cases) {
      const file = join(dir, 'prices.json');
      writeFileSync(
        file,
        JSON.stringify({ 'claude-sonnet-4-5': { input_cost_per_token: value, output_cost_per_token: 1.5e-5 } }),
      );
      const r = run(['report', ...RANGE, '--prices', file, '--format', 'json'], env);
      expectRefused(r, `--prices ${file}: entry "claude-sonnet-4-5": input_cost_per_token`, why);
    }
    // The largest accepted price with many tokens: a cost past $1,000,000 is left unpriced and named, not a crash.
    const file = join(dir, 'prices-dear.json');
    writeFileSync(file, JSON.stringify({ 'claude-sonnet-4-5': { input_cost_per_token: 1, output_cost_per_token: 1 } }));
    const big = join(dir, 'big-home');
    const claude = new ClaudeHome(join(big, '.claude'));
    claude.session({ cwd: '/w/big' }).response({
      ts: '2026-05-05T10:00:00.000Z',
      model: 'claude-sonnet-4-5',
      usage: { input: 900_000_000_000, output: 1 },
    });
    const r = run(['report', ...RANGE, '--prices', file, '--format', 'json'], cleanEnv(big));
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.totals.cost_usd).toBeNull();
    expect(j.warnings.join('\n')).toContain(
      'a claude-sonnet-4-5 response would cost more than $1,000,000 at its price; left unpriced',
    );
  });

  it('the config file at /dev/zero, a FIFO, a symlink to one, oversized: reports exit 2 naming it; the status line prints its line', () => {
    const cases: [() => void, RegExp][] = [
      [() => symlinkSync('/dev/zero', config), /not a regular file \(a character device\)/],
      [() => symlinkSync(fifo, config), /not a regular file \(a FIFO/],
      [() => writeFileSync(config, `{"machine": "m", "pad": "${'x'.repeat(2 << 20)}"}`), /too large/],
    ];
    try {
      for (const [make, why] of cases) {
        rmSync(config, { force: true });
        make();
        for (const args of [['report', ...RANGE], ['sources'], ['check'], ['watch', '--once']]) {
          expectRefused(run(args, env), config, why);
        }
        const line = run(['statusline'], env, JSON.stringify({ session_id: 's1', model: { display_name: 'Sonnet' } }));
        expect(line.signal, `status line killed after ${line.ms} ms`).toBeNull();
        expect(line.status).toBe(0);
        expect(line.stderr).toBe('');
        expect(line.stdout).toMatch(/^Sonnet/);
      }
    } finally {
      rmSync(config, { force: true }); // never left a link to the FIFO: writing it would wait for a reader
    }
  });

  it('a config file that is JSON but not an object (null, [], a number): exit 2; the status line uses its defaults', () => {
    for (const text of ['null', '[]', '42']) {
      rmSync(config, { force: true });
      writeFileSync(config, text);
      for (const args of [['report', ...RANGE], ['check'], ['export', '--out', join(dir, 'export')]]) {
        expectRefused(run(args, env), config, /expected a JSON object of settings/);
      }
      const line = run(['statusline'], env, JSON.stringify({ session_id: 's1', model: { display_name: 'Sonnet' } }));
      expect(line.status).toBe(0);
      expect(line.stdout).toMatch(/^Sonnet/);
    }
    rmSync(config, { force: true });
  });

  it('the status line with /dev/zero on stdin: its short line, at once', () => {
    const fd = openSync('/dev/zero', 'r');
    try {
      const r = run(['statusline'], env, { fd });
      expect(r.signal, `killed after ${r.ms} ms`).toBeNull();
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('tx-usage: unreadable status input\n');
    } finally {
      closeSync(fd);
    }
  });
});
