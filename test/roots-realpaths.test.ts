// RealPaths gives the source keys discovery dedupes by: the same answers as
// realpath per file, for plain files, linked files, files under a linked
// root, and a dangling link (kept as found, for extraction to report).
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RealPaths, walkFiles } from '../src/harnesses/roots.js';
import { tempDir } from './helpers/temp.js';

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
      expect(files.map((f) => rp.of(f)).filter((k) => k.startsWith(join(realpathSync(base), 'elsewhere')))).toHaveLength(1);
    }
  });
});
