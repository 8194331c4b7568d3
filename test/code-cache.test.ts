// Bundles run with V8's compiled code from an earlier run (src/cli/code-cache.ts):
// the code is used only when it was made from the very same source text
// (V8 itself compares the source's length only), the bundle behaves as under
// `require` (its own require, __dirname, imports through the hook that
// code-cache.ts installs, nothing on stderr), and the build leaves code for
// main.cjs that report runs use, yargs' import included.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ClaudeHome } from '../fixtures/claude-code/build.js';
import { CLI, cleanEnv, tempDir } from './helpers/cli.js';

const LOADER = pathToFileURL(resolve(__dirname, '../dist/src/cli/code-cache.js')).href;

/** Loads `file` in a fresh Node through loadBundle with code from `code`, then keeps the code there. */
function load(file: string, code: string) {
  const script = `
    import { loadBundle } from ${JSON.stringify(LOADER)};
    const b = loadBundle(${JSON.stringify(file)}, ${JSON.stringify(code)});
    const imported = await b.exports.imported();
    b.keepCode(${JSON.stringify(code)});
    console.log(JSON.stringify({ usedCode: b.usedCode, answer: b.exports.answer(), dir: b.exports.dir, sep: b.exports.sep, imported }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as { usedCode: boolean; answer: number; dir: string; sep: string; imported: string };
}

describe('code cache', () => {
  it('runs a bundle with code made from its own text only', () => {
    const dir = tempDir('txu-code-');
    const file = join(dir, 'bundle.cjs');
    const code = join(dir, 'bundle.cjs.code');
    const source = (expr: string) => `#!/usr/bin/env node
'use strict';
exports.answer = function answer() { return ${expr}; };
exports.dir = __dirname;
exports.sep = require('node:path').sep;
exports.imported = () => globalThis[Symbol.for('tx-usage.import')]('node:os').then((m) => typeof m.cpus);
`;
    writeFileSync(file, source('40 + 2'));
    const first = load(file, code);
    expect(first).toEqual({ usedCode: false, answer: 42, dir, sep: '/', imported: 'function' });
    expect(existsSync(code)).toBe(true);
    expect(load(file, code)).toEqual({ ...first, usedCode: true });
    // Same length, other text: V8 would take the old code for it.
    writeFileSync(file, source('40 + 9'));
    expect(load(file, code)).toEqual({ ...first, usedCode: false, answer: 49 });
    expect(load(file, code)).toEqual({ ...first, usedCode: true, answer: 49 });
    // Damaged code is refused, not run.
    const kept = readFileSync(code);
    writeFileSync(code, Buffer.concat([kept.subarray(0, 33), Buffer.from('not V8 code')]));
    expect(load(file, code)).toEqual({ ...first, usedCode: false, answer: 49 });
  });

  it('the build leaves code for main.cjs that report runs use, with and without yargs', () => {
    const home = tempDir('txu-code-home-');
    const s = new ClaudeHome(join(home, '.claude')).session({ cwd: '/w/a' });
    s.user('2026-06-03T10:00:00.000Z');
    s.response({ ts: '2026-06-03T10:01:00.000Z', usage: { input: 7, output: 50 } });
    const june = ['--since', '2026-06-01', '--until', '2026-06-30', '--format', 'json'];
    // A plain command line (read without yargs), then one that yargs reads
    // (imported from the bundle's code: failed before the import hook).
    for (const args of [['report', ...june], ['report', ...june, '--by', 'model', '--quiet=true']]) {
      const r = spawnSync(process.execPath, [CLI, ...args], { env: cleanEnv(home, { TX_USAGE_TRACE: '1' }), encoding: 'utf8' });
      expect(r.stderr).toContain('main: compiled code used');
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).totals.output_tokens).toBe(50);
    }
  });
});
