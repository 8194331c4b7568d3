// Writes to a pipe are asynchronous in Node on POSIX: a reader that is slow
// to take the output (a pager, `| jq` still starting) must still get all of
// it, from the main path and from the bin entry's memo answer (which writes
// synchronously and then exits, src/cli/closed-stdout.ts) alike.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { CLI, cleanEnv, tempDir } from '../helpers/cli.js';

/**
 * Runs the CLI with stdout on a pipe nobody reads for `holdMs`, then reads
 * it all. The output must be larger than the pipe holds, so that the CLI
 * cannot finish writing before the reader starts (Node discards what a
 * child left unread once it has exited).
 */
function runSlowReader(
  args: string[],
  env: NodeJS.ProcessEnv,
  holdMs: number,
): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.pause();
    setTimeout(() => {
      child.stdout.on('data', (c: Buffer) => chunks.push(c));
      child.stdout.resume();
    }, holdMs);
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout: Buffer.concat(chunks).toString('utf8') }));
  });
}

describe('output through a slow pipe', () => {
  it('is complete when the reader takes it late (far more than a pipe buffer holds)', async () => {
    const home = tempDir('txu-exit-');
    const env = cleanEnv(home);
    const file = join(home, 'report.html');
    const args = ['demo', '--by', 'session,day,model', '--format', 'html'];
    const piped = await runSlowReader(args, env, 400);
    expect(piped.status).toBe(0);
    const written = runSlowReader([...args, '--out', file], env, 0);
    expect((await written).status).toBe(0);
    const whole = readFileSync(file, 'utf8');
    expect(whole.length).toBeGreaterThan(256 * 1024); // several pipe buffers
    expect(piped.stdout.length).toBe(whole.length);
    expect(piped.stdout.endsWith('</html>\n') || piped.stdout.trimEnd().endsWith('</html>')).toBe(true);
  });

  it('is complete from the memo answer too', async () => {
    const home = tempDir('txu-exit-memo-');
    const claude = new ClaudeHome(join(home, '.claude'));
    for (let i = 0; i < 1500; i++) {
      claude.session({ cwd: `/w/p${i % 7}` }).response({
        ts: new Date(Date.UTC(2026, 5, 1 + (i % 20), 9, i % 60)).toISOString(),
        usage: { input: 10 + i, output: 5 },
      });
    }
    const env = cleanEnv(home);
    const args = [
      'report',
      '--since',
      '2026-06-01',
      '--until',
      '2026-06-30',
      '--by',
      'session,day',
      '--format',
      'json',
    ];
    const first = await runSlowReader(args, env, 0);
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout).rows).toHaveLength(1500);
    // More than the pipe (a socket pair, ~200 KB) holds: the CLI must wait for the reader.
    expect(first.stdout.length).toBeGreaterThan(512 * 1024);
    // The same report again: answered by the bin entry from the memo, with the reader late.
    const again = await runSlowReader(args, { ...env, TX_USAGE_STATS: join(home, 'stats.json') }, 400);
    expect(again.status).toBe(0);
    expect(JSON.parse(readFileSync(join(home, 'stats.json'), 'utf8')).kind).toBe('memo-hit');
    expect(again.stdout.length).toBe(first.stdout.length);
    expect(again.stdout).toBe(first.stdout);
  });
});
