// statNumbers (src/io/stat-numbers.ts) reads the numbers Node's binding
// leaves for statSync, without building a Stats: it must give statSync's
// numbers to the bit (stamps made either way compare equal), fail where
// statSync fails, and step aside (to statSync, without a warning) wherever
// the binding is not known to be called as statSync calls it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statNumbers, statNumbersFast } from '../src/io/stat-numbers.js';
import { tempDir } from './helpers/cli.js';

const MODULE = resolve(__dirname, '../dist/src/io/stat-numbers.js');

function viaStatSync(p: string) {
  const s = statSync(p, { throwIfNoEntry: false });
  return s ? { dev: s.dev, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, isFile: s.isFile(), isDirectory: s.isDirectory() } : null;
}

/** A folder with a file (fractional mtime), an empty file, a folder, a link to each, a dangling link. */
function tree(): { dir: string; paths: string[] } {
  const dir = tempDir('txu-stat-');
  const file = join(dir, 'a.jsonl');
  writeFileSync(file, 'x'.repeat(12_345));
  // Nanoseconds that do not fit a whole millisecond: mtimeMs has a fraction.
  utimesSync(file, 1_700_000_000.123456, 1_796_280_766.956465);
  writeFileSync(join(dir, 'empty'), '');
  mkdirSync(join(dir, 'sub'));
  symlinkSync(file, join(dir, 'link-file'));
  symlinkSync(join(dir, 'sub'), join(dir, 'link-dir'));
  symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
  return { dir, paths: ['a.jsonl', 'empty', 'sub', 'link-file', 'link-dir', 'dangling', 'missing', ''].map((n) => join(dir, n)) };
}

describe('statNumbers', () => {
  it("reads Node's binding on this Node (Linux, Node 20), not statSync", () => {
    expect(process.platform).toBe('linux');
    expect(statNumbersFast()).toBe(true);
  });

  it('gives the numbers statSync gives, to the bit, for files, folders, links followed and missing paths', () => {
    const { paths } = tree();
    for (const p of paths) expect(statNumbers(p), p).toEqual(viaStatSync(p));
    const a = statNumbers(paths[0]!)!;
    expect(a.size).toBe(12_345);
    expect(Number.isInteger(a.mtimeMs)).toBe(false);
    expect(a.isFile && !a.isDirectory).toBe(true);
    expect(statNumbers(paths[2]!)!.isDirectory).toBe(true);
    expect(statNumbers(paths[5]!)).toBeNull(); // a dangling link is followed to nothing
  });

  it('throws what statSync throws for anything but a missing path', () => {
    const { dir } = tree();
    const through = join(dir, 'a.jsonl', 'inside'); // a file used as a folder: ENOTDIR
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as NodeJS.ErrnoException).code ?? (e as Error).name;
      }
      return 'no error';
    };
    expect(err(() => statNumbers(through))).toBe(err(() => statSync(through, { throwIfNoEntry: false })));
    expect(err(() => statNumbers(through))).toBe('ENOTDIR');
    // A NUL byte would cut the path short in C: refused as statSync refuses it.
    expect(err(() => statNumbers(`${dir}/a.jsonl\0x`))).toBe(err(() => statSync(`${dir}/a.jsonl\0x`)));
    expect(err(() => statNumbers(`${dir}/a.jsonl\0x`))).toBe('ERR_INVALID_ARG_VALUE');
  });

  it('goes through statSync, silently and with the same numbers, under --pending-deprecation and the permission model', () => {
    const { paths } = tree();
    const script = `import(${JSON.stringify(MODULE)}).then((m) => {
      const paths = ${JSON.stringify(paths)};
      const out = paths.map((p) => { try { return m.statNumbers(p); } catch (e) { return e.code; } });
      process.stdout.write(JSON.stringify({ fast: m.statNumbersFast(), out }));
    });`;
    const expected = paths.map((p) => {
      try {
        return viaStatSync(p);
      } catch (e) {
        return (e as NodeJS.ErrnoException).code;
      }
    });
    const runs: [string[], boolean][] = [
      [[], true],
      [['--pending-deprecation'], false],
      [['--experimental-permission', '--allow-fs-read=*', '--no-warnings'], false],
    ];
    for (const [flags, fast] of runs) {
      const r = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8' });
      expect(r.status, `${flags.join(' ')}: ${r.stderr}`).toBe(0);
      // No DEP0111 warning (process.binding is not touched when it would warn).
      expect(r.stderr, flags.join(' ')).toBe('');
      const got = JSON.parse(r.stdout) as { fast: boolean; out: unknown[] };
      expect(got.fast, flags.join(' ')).toBe(fast);
      expect(got.out, flags.join(' ')).toEqual(expected);
    }
  });
});
