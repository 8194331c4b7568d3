// `report --format html` on a terminal is refused before any work, naming the
// flag that writes the page (issue 44, item 4); `--out FILE` says on stderr
// what it wrote, on a replay from the memo too. The terminal is a real
// pseudo-terminal (script(1), as terminal-width.test.ts uses).
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `tx-usage ARGS` with stdout on a pseudo-terminal: its exit status and what it printed (stdout and stderr together). */
function onTerminal(args: string[], env: NodeJS.ProcessEnv): { status: number | null; text: string } {
  const cmd = `exec ${sh(process.execPath)} ${sh(CLI)} ${args.map(sh).join(' ')}`;
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { env, encoding: 'utf8' });
  return { status: r.status, text: r.stdout.replace(/\r/g, '') };
}

describe('HTML and --out', () => {
  it('--format html to a terminal: exit 2 naming --out, nothing else printed; piped, the page is written', () => {
    const env = cleanEnv(tempDir('txu-html-tty-'));
    for (const args of [
      ['report', '--format', 'html'],
      ['report', 'monthly', '--format', 'html'],
      ['report', '--demo', '--format', 'html'],
    ]) {
      const r = onTerminal(args, env);
      expect(r.status, r.text).toBe(2);
      expect(r.text).toMatch(
        /--format html: an HTML page is for a browser, not a terminal; write it to a file with --out report\.html/,
      );
      expect(r.text).not.toContain('<html');
    }
    const piped = runCli(['report', '--demo', '--format', 'html'], env);
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/^<!doctype html>/i);
  });

  it('--out says what it wrote (path and size); -q says nothing', () => {
    const home = tempDir('txu-html-out-');
    const env = cleanEnv(home);
    const out = join(tempDir('txu-html-out-file-'), 'demo.json');
    const r = runCli(['report', '--demo', '--out', out], env);
    expect(r.status, r.stderr).toBe(0);
    const size = statSync(out).size;
    expect(JSON.parse(readFileSync(out, 'utf8')).demo).toBe(true);
    const said = size < 1024 ? `${size} bytes` : `${(size / 1024).toFixed(1)} KB`;
    expect(r.stderr).toContain(`wrote ${out} (${said})`);
    expect(r.stdout).toBe('');
    // -q: nothing said.
    const q = runCli(['report', '--demo', '--out', out, '-q'], env);
    expect(q.status, q.stderr).toBe(0);
    expect(q.stderr).not.toContain('wrote');
  });
});
