// RealPaths gives the source keys discovery dedupes by: the same answers as
// realpath per file, for plain files, linked files, files under a linked
// root, and a dangling link (kept as found, for extraction to report).
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RealPaths, walkFiles } from '../../src/harnesses/roots.js';
import { tempDir } from '../helpers/temp.js';

const base = tempDir('txu-realpaths-');
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('RealPaths', () => {
  it('agrees with realpath for every file walkFiles finds', async () => {
    const real = join(base, 'real');
    mkdirSync(join(real, 'projects', 'p1', 'sess', 'subagents'), { recursive: true });
    mkdirSync(join(base, 'elsewhere'), { recursive: true });
    writeFileSync(join(real, 'projects', 'p1', 'a.jsonl'), '{}\n');
    writeFileSync(join(real, 'projects', 'p1', 'sess', 'subagents', 'agent-x.jsonl'), '{}\n');
    writeFileSync(join(base, 'elsewhere', 'target.jsonl'), '{}\n');
    symlinkSync(join(base, 'elsewhere', 'target.jsonl'), join(real, 'projects', 'p1', 'linked.jsonl'));
    symlinkSync(join(base, 'missing.jsonl'), join(real, 'projects', 'p1', 'dangling.jsonl'));
    // a root that is itself a link, and a path to it with a link in the middle
    symlinkSync(real, join(base, 'alias'));
    for (const root of [join(real, 'projects'), join(base, 'alias', 'projects')]) {
      const rp = new RealPaths();
      const files = await walkFiles(root, (n) => n.endsWith('.jsonl'), undefined, 8, rp);
      expect(files).toHaveLength(4);
      for (const f of files) {
        let want = f;
        try {
          want = realpathSync.native(f);
        } catch {
          /* dangling */
        }
        expect(rp.of(f)).toBe(want);
      }
      expect(
        files.map((f) => rp.of(f)).filter((k) => k.startsWith(join(realpathSync(base), 'elsewhere'))),
      ).toHaveLength(1);
    }
  });
});

describe('walkFiles and linked folders', () => {
  it('follows linked folders, survives loops, and names each real file once (by its direct path when it has one)', async () => {
    const b = join(base, 'loops');
    const root = join(b, 'root');
    mkdirSync(join(root, 'plain'), { recursive: true });
    mkdirSync(join(b, 'x', 'deep'), { recursive: true });
    mkdirSync(join(b, 'y'), { recursive: true });
    writeFileSync(join(root, 'plain', 'p.jsonl'), '{}\n');
    writeFileSync(join(b, 'x', 'deep', 'x.jsonl'), '{}\n');
    writeFileSync(join(b, 'y', 'y.jsonl'), '{}\n');
    symlinkSync(join(b, 'x'), join(root, 'to-x')); // a linked folder
    symlinkSync(join(b, 'y'), join(b, 'x', 'to-y')); // a link inside it
    symlinkSync(join(b, 'x'), join(b, 'y', 'to-x')); // ... and back: a cycle of two links
    symlinkSync(root, join(root, 'plain', 'up')); // a link to an ancestor
    symlinkSync(join(root, 'plain'), join(root, 'again')); // a folder reachable twice
    symlinkSync(join(b, 'nowhere'), join(root, 'dangling')); // a dangling folder link
    const rp = new RealPaths();
    const files = await walkFiles(root, (n) => n.endsWith('.jsonl'), undefined, 12, rp);
    expect(files).toEqual([
      join(root, 'plain', 'p.jsonl'),
      join(root, 'to-x', 'deep', 'x.jsonl'),
      join(root, 'to-x', 'to-y', 'y.jsonl'),
    ]);
    const real = realpathSync(b);
    expect(files.map((f) => rp.of(f))).toEqual([
      join(realpathSync(root), 'plain', 'p.jsonl'),
      join(real, 'x', 'deep', 'x.jsonl'),
      join(real, 'y', 'y.jsonl'),
    ]);
  });

  it('stops at the depth limit inside linked folders too', async () => {
    const b = join(base, 'depth');
    mkdirSync(join(b, 'root'), { recursive: true });
    mkdirSync(join(b, 'far', 'a', 'b'), { recursive: true });
    writeFileSync(join(b, 'far', 'top.jsonl'), '{}\n');
    writeFileSync(join(b, 'far', 'a', 'b', 'deep.jsonl'), '{}\n');
    symlinkSync(join(b, 'far'), join(b, 'root', 'far'));
    const files = await walkFiles(join(b, 'root'), (n) => n.endsWith('.jsonl'), undefined, 2);
    expect(files).toEqual([join(b, 'root', 'far', 'top.jsonl')]);
  });
});
