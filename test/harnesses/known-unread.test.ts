// Harnesses known and not read (src/harnesses/known-unread/): `tx-usage sources` names the
// folders of Codebuff and Crush it finds, as not counted, with why; no row comes from them and
// their files are left as they were.
import { readFileSync, statSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildKnownUnreadHome, type KnownUnreadHome } from '../../fixtures/known-unread/home.js';
import { CANARY } from '../../fixtures/claude-code/build.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

describe('known, not read: Codebuff and Crush', () => {
  let fx: KnownUnreadHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-unread-');
    fx = buildKnownUnreadHome(home);
    env = cleanEnv(home);
  });

  it('sources lists each root found, read or not, with why; nothing is counted; the files are untouched', () => {
    const before = {
      size: statSync(fx.crushDb).size,
      mtime: statSync(fx.crushDb).mtimeMs,
      bytes: readFileSync(fx.crushDb),
    };
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    const by = Object.fromEntries(j.not_read.map((k: any) => [k.harness, k]));
    expect(by.codebuff.roots.filter((x: any) => x.exists).map((x: any) => x.path)).toEqual([fx.codebuffRoot]);
    expect(by.codebuff.reason).toMatch(/credits per turn only.*no token counts and no model/);
    // The global data folder, and the project database projects.json names.
    expect(by.crush.roots.filter((x: any) => x.exists).map((x: any) => [x.path, x.origin])).toEqual([
      [fx.crushGlobal, 'XDG_DATA_HOME'],
      [fx.crushDb, 'projects.json'],
    ]);
    expect(by.crush.reason).toMatch(/only when the sub-agent succeeded/);
    // Not readers: no harness of theirs, no events.
    expect(j.harnesses.map((h: any) => h.harness)).not.toContain('crush');
    expect(j.harnesses.reduce((n: number, h: any) => n + h.events, 0)).toBe(0);
    expect(r.stdout).not.toContain(CANARY);
    const t = runCli(['sources'], env).stdout;
    expect(t).toContain('Codebuff (codebuff): found, not counted: ');
    expect(t).toContain(`  root found   ${fx.crushDb}  [projects.json] not read`);
    expect({
      size: statSync(fx.crushDb).size,
      mtime: statSync(fx.crushDb).mtimeMs,
      bytes: readFileSync(fx.crushDb),
    }).toEqual(before);
  });

  it('a harness not found is listed in the JSON as missing, and not in the table', () => {
    const other = tempDir('txu-unread-none-');
    const e = cleanEnv(other);
    const j = JSON.parse(runCli(['sources', '--format', 'json'], e).stdout);
    expect(j.not_read.map((k: any) => [k.harness, k.roots.some((x: any) => x.exists)])).toEqual([
      ['codebuff', false],
      ['crush', false],
    ]);
    expect(runCli(['sources'], e).stdout).not.toContain('found, not counted');
  });
});
