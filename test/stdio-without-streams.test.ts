// A memo hit answers through fds 1 and 2 without process.stdout/stderr
// (src/cli/closed-stdout.ts writeAllSync, src/core/inputs.ts fdIsTerminal):
// isTTY must say what process.stdout.isTTY says for a pipe, a file,
// /dev/null and a terminal, and writeAllSync must deliver every byte, or say
// the reader has gone.
import { spawn, spawnSync } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/cli.js';

const MODULE = resolve(__dirname, '../dist/src/cli/closed-stdout.js');
const INPUTS = resolve(__dirname, '../dist/src/core/inputs.js');
const load = `const m = { ...(await import(${JSON.stringify(MODULE)})), isTTY: (await import(${JSON.stringify(INPUTS)})).fdIsTerminal };`;

/** Runs `body` (an ES module with `m` the module) in a child; its report goes to fd 3, a file. */
function child(body: string, stdout: 'pipe' | 'ignore' | number): { report: string; stdout: string } {
  const reportFile = join(tempDir('txu-stdio-'), 'report');
  const fd3 = openSync(reportFile, 'w');
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `${load}\nconst { writeSync } = await import('node:fs');\nconst report = (s) => writeSync(3, s);\n${body}`], {
    stdio: ['ignore', stdout, 'pipe', fd3],
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  expect(r.status, r.stderr).toBe(0);
  return { report: readFileSync(reportFile, 'utf8'), stdout: r.stdout ?? '' };
}

const AGREE = `report(JSON.stringify({ mine: [m.isTTY(1), m.isTTY(2)], node: [process.stdout.isTTY === true, process.stderr.isTTY === true] }));`;

describe('stdio without streams', () => {
  it('isTTY agrees with process.stdout.isTTY for a pipe, a file and /dev/null (all false)', () => {
    const file = openSync(join(tempDir('txu-stdio-'), 'out'), 'w');
    for (const out of ['pipe', 'ignore', file] as const) {
      const got = JSON.parse(child(AGREE, out).report);
      expect(got.mine, String(out)).toEqual(got.node);
      expect(got.mine, String(out)).toEqual([false, false]);
    }
  });

  it('isTTY agrees with process.stdout.isTTY on a terminal (true)', () => {
    // script(1) runs the child on a pseudo-terminal.
    const reportFile = join(tempDir('txu-stdio-'), 'report');
    const code = `${load} (await import('node:fs')).writeFileSync(${JSON.stringify(reportFile)}, JSON.stringify({ mine: [m.isTTY(1), m.isTTY(2)], node: [process.stdout.isTTY === true, process.stderr.isTTY === true] }));`;
    const r = spawnSync('script', ['-qec', `${JSON.stringify(process.execPath)} --input-type=module -e '${code.replace(/'/g, `'\\''`)}'`, '/dev/null'], { encoding: 'utf8' });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const got = JSON.parse(readFileSync(reportFile, 'utf8'));
    expect(got.mine).toEqual(got.node);
    expect(got.mine).toEqual([true, true]);
  });

  it('writeAllSync delivers every byte of a large text through a pipe, multi-byte characters included', () => {
    const r = child(`const text = 'é€𝄞x'.repeat(300_000); report(String(m.writeAllSync(1, text)));`, 'pipe');
    expect(r.report).toBe('true');
    expect(r.stdout).toBe('é€𝄞x'.repeat(300_000));
  });

  it('writeAllSync says false, without throwing, once the reader has gone', async () => {
    const reportFile = join(tempDir('txu-stdio-'), 'report');
    const fd3 = openSync(reportFile, 'w');
    const c = spawn(process.execPath, ['--input-type=module', '-e', `${load}\nconst fs = await import('node:fs');\nfs.writeSync(3, String(m.writeAllSync(1, 'x'.repeat(1 << 20))));`], {
      stdio: ['ignore', 'pipe', 'pipe', fd3],
    });
    c.stdout!.destroy(); // the read end is closed before anything is written: EPIPE
    let stderr = '';
    c.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const status = await new Promise<number | null>((ok) => c.on('close', ok));
    expect(status, stderr).toBe(0);
    expect(readFileSync(reportFile, 'utf8')).toBe('false');
  });
});
