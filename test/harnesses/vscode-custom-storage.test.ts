// Roo Code's and Kilo Code's tasks kept where `customStoragePath` says
// (fixtures/cline/custom-storage.ts): the folders the editors' settings
// files name are searched, their tasks counted once; a broken settings file
// and a relative path are named in warnings and stop nothing else.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCustomStorageHome, type CustomStorageHome } from '../../fixtures/cline/custom-storage.js';
import { harnessById } from '../../src/harnesses/registry.js';
import { blankJsonc, JsoncError, parseJsonc } from '../../src/io/jsonc.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2025-01-01', '--until', '2026-12-31'];
let fx: CustomStorageHome;
let home: string;

beforeAll(() => {
  home = tempDir('txu-custom-storage-');
  fx = buildCustomStorageHome(home);
});

function ledgerTotals(harness: 'roo-code' | 'kilo-code') {
  const t = { requests: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
  for (const r of fx.ledger.rows) {
    if (r.harness !== harness) continue;
    t.requests += r.requests;
    t.input += r.input;
    t.cacheRead += r.cacheRead;
    t.cacheWrite += r.cacheWrite;
    t.output += r.output;
  }
  return t;
}

describe('JSON with comments (VS Code settings.json)', () => {
  it('comments and trailing commas are blanked in place; strings are left alone; errors name the line', () => {
    const text = '{\n  // c\n  "a": "x//y/*z*/", /* b\n */ "b": [1, 2,],\n}';
    const blanked = blankJsonc(text);
    expect(blanked.length).toBe(text.length);
    expect(blanked.split('\n').length).toBe(text.split('\n').length);
    expect(parseJsonc(text)).toEqual({ a: 'x//y/*z*/', b: [1, 2] });
    expect(parseJsonc('\uFEFF{"a": "\\"," , }')).toEqual({ a: '",' });
    expect(parseJsonc('  // nothing\n')).toBeUndefined();
    expect(() => parseJsonc('{\n"a": 1\n"b": 2}')).toThrow(JsoncError);
    try {
      parseJsonc('{\n"a": 1\n"b": 2}');
    } catch (e) {
      expect((e as JsoncError).line).toBe(3);
    }
    // Two commas are still an error (only the one before a closing bracket is allowed).
    expect(() => parseJsonc('[1,,]')).toThrow(JsoncError);
  });
});

describe('customStoragePath in the editors settings', () => {
  it('roots: every folder named, with the file that named it; bad files warned about by name and line', () => {
    const warnings: string[] = [];
    const ctx = {
      home,
      env: {},
      rootOverrides: [],
      warn: (m: string, at: { file: string; line?: number }) =>
        warnings.push(`${at.file}${at.line ? `:${at.line}` : ''}: ${m}`),
    };
    const roo = harnessById('roo-code')!
      .roots(ctx)
      .map((r) => [r.path, r.origin, r.exists]);
    expect(roo).toContainEqual([
      join(home, '.config', 'Code', 'User', 'globalStorage', 'rooveterinaryinc.roo-cline'),
      'default',
      true,
    ]);
    expect(roo).toContainEqual([fx.roo, `roo-cline.customStoragePath in ${fx.files.code}`, true]);
    expect(roo).toContainEqual([fx.rooRemote, `roo-cline.customStoragePath in ${fx.files.machine}`, true]);
    expect(roo).toContainEqual([fx.rooLink, `roo-cline.customStoragePath in ${fx.files.windsurf}`, true]);
    // The commented-out value, the broken file's and the relative one are not roots.
    expect(roo.map((r) => r[0])).not.toContain(join(home, 'commented-out'));
    expect(roo.map((r) => r[0])).not.toContain(join(home, 'never'));
    expect(warnings).toEqual([
      `${fx.files.cursor}:${fx.cursorBadLine}: not valid JSON with comments (unexpected character); roo-cline.customStoragePath not read from it`,
      `${fx.files.vscodium}: roo-cline.customStoragePath "roo-tasks" is not an absolute path (the extension resolves it against the editor's own working folder); point --root roo-code=PATH at that folder`,
    ]);
    warnings.length = 0;
    const kilo = harnessById('kilo-code')!
      .roots(ctx)
      .map((r) => [r.path, r.origin]);
    expect(kilo).toContainEqual([fx.kilo, `kilo-code.customStoragePath in ${fx.files.profile}`]);
    expect(warnings).toEqual([
      `${fx.files.cursor}:${fx.cursorBadLine}: not valid JSON with comments (unexpected character); kilo-code.customStoragePath not read from it`,
    ]);
    // --root replaces them all, settings included (nothing read, nothing warned).
    warnings.length = 0;
    expect(
      harnessById('roo-code')!
        .roots({ ...ctx, rootOverrides: ['/elsewhere'] })
        .map((r) => r.path),
    ).toEqual(['/elsewhere']);
    expect(warnings).toEqual([]);
  });

  it('the CLI counts the tasks in every named folder once, and says what it could not read', () => {
    const env = cleanEnv(home);
    const j = reportJson([...RANGE, '--by', 'harness'], env);
    const rows = Object.fromEntries(j.rows.map((r: any) => [r.harness, r]));
    const pick = (r: any) => ({
      requests: r.requests,
      input: r.input_tokens,
      cacheRead: r.cache_read_tokens,
      cacheWrite: r.cache_write_tokens,
      output: r.output_tokens,
    });
    // By hand: custom a (2), b (1), remote (1), default (1); the linked folder adds nothing.
    expect(pick(rows['roo-code'])).toEqual({
      requests: 5,
      input: 111 + 222 + 333 + 7 + 5,
      cacheRead: 2000 + 1000 + 4000 + 70 + 50,
      cacheWrite: 300 + 500 + 5,
      output: 44 + 55 + 66 + 17 + 15,
    });
    expect(pick(rows['roo-code'])).toEqual(ledgerTotals('roo-code'));
    expect(pick(rows['kilo-code'])).toEqual(ledgerTotals('kilo-code'));
    expect(ledgerTotals('kilo-code').requests).toBe(1);
    expect(j.warnings).toContain(
      `${fx.files.cursor}:${fx.cursorBadLine}: not valid JSON with comments (unexpected character); roo-cline.customStoragePath not read from it`,
    );
    expect(
      j.warnings.some((w: string) =>
        w.startsWith(`${fx.files.vscodium}: roo-cline.customStoragePath "roo-tasks" is not an absolute path`),
      ),
    ).toBe(true);

    const src = JSON.parse(runCli(['sources', '--format', 'json'], env).stdout);
    const rooSrc = src.harnesses.find((h: any) => h.harness === 'roo-code');
    expect(rooSrc.sources.map((s: any) => s.path).filter((p: string) => p.startsWith(fx.rooLink))).toEqual([]);
    expect(rooSrc.sources.filter((s: any) => s.path.startsWith(fx.roo + '/')).length).toBe(2);
    // Read-only: the settings files are as written.
    expect(readFileSync(fx.files.cursor, 'utf8')).toContain('"editor.fontSize": 12');
  });

  it('a settings file that is a FIFO or over 1 MiB is named, never waited on or read whole', () => {
    const h = tempDir('txu-custom-storage-odd-');
    const user = join(h, '.config', 'Code', 'User');
    mkdirSync(join(user, 'profiles', 'p1'), { recursive: true });
    execFileSync('mkfifo', [join(user, 'settings.json')]);
    writeFileSync(
      join(user, 'profiles', 'p1', 'settings.json'),
      `{"roo-cline.customStoragePath": "/x", "pad": "${'y'.repeat(1 << 20)}"}`,
    );
    const warnings: string[] = [];
    const roots = harnessById('roo-code')!.roots({
      home: h,
      env: {},
      rootOverrides: [],
      warn: (m, at) => warnings.push(`${at.file}: ${m}`),
    });
    expect(roots.map((r) => r.path)).not.toContain('/x');
    expect(warnings).toEqual([
      `${join(user, 'settings.json')}: not a regular file; roo-cline.customStoragePath not read from it`,
      `${join(user, 'profiles', 'p1', 'settings.json')}: cannot be read, or over 1 MiB; roo-cline.customStoragePath not read from it`,
    ]);
  });
});
