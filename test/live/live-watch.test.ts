// `tx-usage watch` for real in tmux: the screen shows the hand-computed
// figures of fixtures/live/blocks.ts, shows the new ones after a response is
// appended to the transcript (noticed by fs.watch, read incrementally), fits
// a 60-column terminal after a resize, honours NO_COLOR, and `q` quits with
// the terminal restored.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCKS_MODEL, BLOCKS_NOW, buildBlocksHome, type BlocksHome } from '../../fixtures/live/blocks.js';
import { CLI, cleanEnv, tempDir } from '../helpers/cli.js';

const tmux = (...args: string[]) => {
  const r = spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
  return { status: r.status ?? -1, out: r.stdout ?? '', err: r.stderr ?? '' };
};
const SOCKET = `txu-watch-${process.pid}`;
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs watch in a new tmux session; with `exitFile`, through a shell that
 * writes watch's exit code there (tmux's own pane status is not reliable: it
 * reports none for a program that read a Ctrl-C, even when it exits 0).
 */
function start(name: string, env: NodeJS.ProcessEnv, args: string[], width = 80, exitFile?: string): void {
  const vars = Object.entries(env)
    .map(([k, v]) => `${k}=${q(String(v))}`)
    .join(' ');
  const watch = `env -i ${vars} TERM=xterm-256color ${q(process.execPath)} ${q(CLI)} watch ${args.map(q).join(' ')}`;
  const cmd = exitFile ? `${watch}; echo $? > ${q(exitFile)}` : watch;
  const r = tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', '45', cmd);
  expect(r.status, r.err).toBe(0);
  tmux('set-option', '-t', name, 'remain-on-exit', 'on');
}

const capture = (name: string, escapes = false) =>
  tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', name).out;

async function until(name: string, pred: (screen: string) => boolean, what: string, ms = 60_000): Promise<string> {
  const t0 = Date.now();
  let s = '';
  while (Date.now() - t0 < ms) {
    s = capture(name);
    if (pred(s)) return s;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${s}`);
}

/** Waits for watch to end, and returns its exit code (written by the shell start() ran it in). */
async function exitCode(name: string, file: string): Promise<string> {
  await until(
    name,
    () => existsSync(file) && readFileSync(file, 'utf8').trim() !== '',
    `watch (${name}) to exit`,
    15_000,
  );
  return readFileSync(file, 'utf8').trim();
}

describe('watch in tmux', () => {
  let dir: string;
  let fx: BlocksHome;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    dir = tempDir('txu-watch-');
    fx = buildBlocksHome(join(dir, 'home'));
    env = cleanEnv(fx.home, { TX_USAGE_NOW: BLOCKS_NOW });
  });
  afterAll(() => {
    tmux('kill-server');
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the active block, today and the active sessions; updates when the transcript grows; fits 60 columns; q quits cleanly', async () => {
    start('w1', env, ['--tz', 'UTC', '--prices', fx.pricesFile], 80, join(dir, 'w1.exit'));
    let s = await until('w1', (x) => x.includes('9.30k tokens'), 'the first screen');
    const lines = s.split('\n').map((l) => l.trimEnd());
    // The hand-computed figures (test/live-blocks.test.ts): block 3, 09:00-14:00Z, 1h 50m in.
    expect(lines[0]).toBe('tx-usage watch  2026-03-29 10:50 (UTC)                                   q quits');
    expect(lines.slice(2, 7)).toEqual([
      'Active claude-code block  09:00–14:00',
      '  [███████████████░░░░░░░░░░░░░░░░░░░░░░░░░] 1h 50m elapsed, 3h 10m left',
      '  9.30k tokens, ≥$0.03, 3 requests',
      '  burn 90 tokens/min, ≥$0.01800/h (last 30 min)',
      '  projected 28.9k tokens, ≥$0.08 by 14:00',
    ]);
    // Today and the session each hold the unpriced response: their costs are marked as the priced part.
    expect(s).toMatch(/claude-code +7 +17\.6k +≥\$0\.06\*/);
    expect(s).toMatch(/0b10c4aa +claude-code +\/work\/blocks-app +10:45 +≥\$0\.07\*/);

    // A new response (10:49, 1000 in, 100 out: $0.003) appended to the transcript.
    fx.session.user('2026-03-29T10:49:00.000Z');
    fx.session.response({ ts: '2026-03-29T10:49:00.000Z', usage: { input: 1000, output: 100 }, model: BLOCKS_MODEL });
    s = await until('w1', (x) => x.includes('10.4k tokens'), 'the screen after the append');
    expect(s).toContain('  10.4k tokens, ≥$0.03, 4 requests');
    expect(s).toMatch(/claude-code +8 +18\.7k +≥\$0\.06\*/);
    expect(s).toMatch(/updated \d\d:\d\d:\d\d in \d+ ms \(1 grew, 0 read\) · fs\.watch/);

    // Resized to 60 columns: redrawn, nothing wider.
    tmux('resize-window', '-t', 'w1', '-x', '60', '-y', '45');
    s = await until(
      'w1',
      (x) => x.split('\n')[0]!.trimEnd().endsWith('q quits') && x.split('\n')[0]!.trimEnd().length === 60,
      'the 60-column screen',
    );
    for (const l of s.split('\n')) expect(l.trimEnd().length).toBeLessThanOrEqual(60);
    expect(s).toContain('Active claude-code block  09:00–14:00');
    // NO_COLOR: no colour or bold codes on the screen.
    expect(capture('w1', true)).not.toMatch(/\x1b\[(1|3\d|9\d)m/);

    tmux('send-keys', '-t', 'w1', 'q');
    expect(await exitCode('w1', join(dir, 'w1.exit'))).toBe('0');
    // The alternate screen is gone: the pane shows the normal screen again.
    expect(capture('w1')).not.toContain('q quits');
  });

  it('with standard output not a terminal: the screen printed once, a note on stderr, exit 0 (not a stream until killed)', () => {
    const r = spawnSync(process.execPath, [CLI, 'watch', '--tz', 'UTC', '--prices', fx.pricesFile], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.error).toBeUndefined(); // not killed by the timeout
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\d+\.\d+k tokens, ≥\$\d+\.\d+, \d+ requests?/); // (the tests above appended to the transcript)
    expect(r.stdout.match(/Active claude-code block/g)).toHaveLength(1);
    expect(r.stdout).not.toContain('\x1b[');
    // Nothing to quit: the header has no `q quits`, here or with --once.
    expect(r.stdout.split('\n')[0]).toMatch(/^tx-usage watch  \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\)$/);
    const once = spawnSync(process.execPath, [CLI, 'watch', '--once', '--tz', 'UTC', '--prices', fx.pricesFile], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(once.status, once.stderr).toBe(0);
    expect(once.stdout).toContain('Active claude-code block');
    expect(once.stdout).not.toContain('q quits');
    expect(r.stderr).toContain('standard output is not a terminal');
  });

  it('--poll: changes found by polling instead of fs.watch', async () => {
    start('w3', env, ['--tz', 'UTC', '--prices', fx.pricesFile, '--poll'], 80, join(dir, 'w3.exit'));
    const before = await until('w3', (x) => x.includes('polling every 2 s'), 'the first screen');
    const m = /(\d+\.\d+k) tokens, ≥\$0\.0\d, (\d+) requests/.exec(before)!;
    fx.session.user('2026-03-29T10:49:30.000Z');
    fx.session.response({ ts: '2026-03-29T10:49:30.000Z', usage: { input: 10, output: 0 }, model: BLOCKS_MODEL });
    const after = await until('w3', (x) => x.includes(`, ${Number(m[2]) + 1} requests`), 'the polled update');
    // The update came from polling (no fs.watch in this mode); a later poll that found nothing new may have redrawn the status since.
    expect(after).toMatch(/\((1|0) grew, 0 read(, snapshot from the store)?\) · polling/); // (the pane may cut 'every 2 s')
    tmux('send-keys', '-t', 'w3', 'q');
    expect(await exitCode('w3', join(dir, 'w3.exit'))).toBe('0');
  });

  it('colour without NO_COLOR; Ctrl-C quits too', async () => {
    const e = { ...env };
    delete e.NO_COLOR;
    const exitFile = join(dir, 'w2.exit');
    start('w2', e, ['--tz', 'UTC', '--prices', fx.pricesFile], 80, exitFile);
    await until('w2', (x) => x.includes('Active claude-code block'), 'the first screen');
    expect(capture('w2', true)).toContain('\x1b[1m');
    tmux('send-keys', '-t', 'w2', 'C-c');
    expect(await exitCode('w2', exitFile)).toBe('0');
    expect(capture('w2')).not.toContain('q quits');
  });

  it('a FIFO and /dev/zero and /dev/urandom links named like transcripts (issue 47): the screen comes, q and Ctrl-C still quit with the terminal restored', async () => {
    const project = dirname(fx.session.file);
    const hostile = [join(project, 'fifo.jsonl'), join(project, 'zero.jsonl'), join(project, 'random.jsonl')];
    expect(spawnSync('mkfifo', [hostile[0]!]).status).toBe(0);
    symlinkSync('/dev/zero', hostile[1]!);
    symlinkSync('/dev/urandom', hostile[2]!);
    try {
      for (const [name, key] of [
        ['w4', 'q'],
        ['w5', 'C-c'],
      ] as const) {
        const exitFile = join(dir, `${name}.exit`);
        start(name, env, ['--tz', 'UTC', '--prices', fx.pricesFile], 80, exitFile);
        await until(
          name,
          (x) => x.includes('Active claude-code block') && /updated \d\d:\d\d:\d\d/.test(x),
          'the first screen, refreshed',
        );
        tmux('send-keys', '-t', name, key);
        expect(await exitCode(name, exitFile)).toBe('0');
        expect(capture(name)).not.toContain('q quits');
      }
    } finally {
      for (const f of hostile) rmSync(f, { force: true });
    }
  });
});
