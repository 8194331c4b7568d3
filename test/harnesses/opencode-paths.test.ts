// Where the opencode harness looks: the data dir ($XDG_DATA_HOME/opencode or
// ~/.local/share/opencode), OPENCODE_DB, --root; which files are databases.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { opencode } from '../../src/harnesses/opencode/index.js';
import type { PathContext } from '../../src/harnesses/types.js';
import { tempDir } from '../helpers/cli.js';

const root = tempDir('txu-opencode-paths-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function home(): string {
  const h = join(root, `home-${++n}`);
  mkdirSync(h);
  return h;
}

function touch(p: string) {
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, '');
}

async function found(ctx: PathContext): Promise<string[]> {
  const sources = await opencode.discover(opencode.roots(ctx), () => {});
  return sources.map((s) => s.path);
}

describe('opencode roots and discovery', () => {
  it('finds opencode.db and every channel database in ~/.local/share/opencode, nothing else', async () => {
    const h = home();
    const data = join(h, '.local/share/opencode');
    for (const f of [
      'opencode.db',
      'opencode-dev.db',
      'opencode-next.db',
      'opencode-my_branch.1.db',
      'opencode.db-wal',
      'opencode.db-shm',
      'opencode-dev.db-wal',
      'other.db',
      'opencode.json',
      'opencode-.db',
    ])
      touch(join(data, f));
    mkdirSync(join(data, 'opencode-dir.db'));
    touch(join(data, 'storage/opencode-nested.db'));
    const ctx = { home: h, env: {}, rootOverrides: [] };
    expect(opencode.roots(ctx)).toEqual([{ path: data, origin: 'default', exists: true }]);
    expect(await found(ctx)).toEqual(
      ['opencode-dev.db', 'opencode-my_branch.1.db', 'opencode-next.db', 'opencode.db'].map((f) => join(data, f)),
    );
    const [src] = await opencode.discover(opencode.roots(ctx), () => {});
    expect(src).toMatchObject({
      harness: 'opencode',
      kind: 'sqlite',
      companions: [src!.path + '-wal'],
      meta: { db: 'opencode-dev.db' },
    });
  });

  it('XDG_DATA_HOME moves the data dir (a relative value is ignored, as XDG says)', async () => {
    const h = home();
    const xdg = join(h, 'xdg');
    touch(join(xdg, 'opencode/opencode.db'));
    touch(join(h, '.local/share/opencode/opencode.db'));
    expect(await found({ home: h, env: { XDG_DATA_HOME: xdg }, rootOverrides: [] })).toEqual([
      join(xdg, 'opencode/opencode.db'),
    ]);
    expect(opencode.roots({ home: h, env: { XDG_DATA_HOME: xdg }, rootOverrides: [] })[0]!.origin).toBe(
      'XDG_DATA_HOME',
    );
    expect(await found({ home: h, env: { XDG_DATA_HOME: 'rel/xdg' }, rootOverrides: [] })).toEqual([
      join(h, '.local/share/opencode/opencode.db'),
    ]);
  });

  it('OPENCODE_DB adds its database (absolute, or relative to the data dir) without dropping the data dir; :memory: has no file', async () => {
    const h = home();
    const data = join(h, '.local/share/opencode');
    touch(join(data, 'opencode.db'));
    touch(join(data, 'custom/alt.db'));
    touch(join(h, 'elsewhere/work.db'));
    const env = (v: string) => ({ home: h, env: { OPENCODE_DB: v }, rootOverrides: [] });
    expect(await found(env(join(h, 'elsewhere/work.db')))).toEqual([
      join(data, 'opencode.db'),
      join(h, 'elsewhere/work.db'),
    ]);
    expect(await found(env('custom/alt.db'))).toEqual([join(data, 'opencode.db'), join(data, 'custom/alt.db')]);
    // Naming the data dir's own database does not list it twice.
    expect(await found(env('opencode.db'))).toEqual([join(data, 'opencode.db')]);
    expect(opencode.roots(env(':memory:'))).toHaveLength(1);
    expect(opencode.roots(env('missing.db'))[1]).toEqual({
      path: join(data, 'missing.db'),
      origin: 'OPENCODE_DB',
      exists: false,
    });
  });

  it('--root opencode=PATH takes a data dir or one database file, instead of the defaults', async () => {
    const h = home();
    touch(join(h, '.local/share/opencode/opencode.db'));
    const dir = join(h, 'backup');
    touch(join(dir, 'opencode.db'));
    touch(join(dir, 'opencode-beta.db'));
    const file = join(h, 'single/snapshot.sqlite');
    touch(file);
    expect(await found({ home: h, env: {}, rootOverrides: [dir, file] })).toEqual([
      join(dir, 'opencode-beta.db'),
      join(dir, 'opencode.db'),
      file,
    ]);
    expect(await found({ home: h, env: {}, rootOverrides: [join(h, 'nothing-here')] })).toEqual([]);
  });

  it('reads a database reached through a link once', async () => {
    const h = home();
    const data = join(h, '.local/share/opencode');
    touch(join(data, 'opencode.db'));
    symlinkSync(join(data, 'opencode.db'), join(data, 'opencode-link.db'));
    expect(await found({ home: h, env: {}, rootOverrides: [] })).toEqual([join(data, 'opencode-link.db')]);
  });

  it('a missing data dir yields no sources and no error', async () => {
    const h = home();
    const ctx = { home: h, env: {}, rootOverrides: [] };
    expect(opencode.roots(ctx)[0]!.exists).toBe(false);
    expect(await found(ctx)).toEqual([]);
  });
});
