// ZCode end to end: the real CLI over a generated `~/.zcode` whose database
// holds every trap of src/harnesses/zcode/README.md reports exactly what the
// builder billed; a request completed in place is counted once, when it ends.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byKeys, reportRows, tokenFields } from '../../fixtures/ledger.js';
import { buildZcodeHome, DEEPSEEK, GLM, ZcodeDb, type ZcodeHome } from '../../fixtures/zcode/db.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-08-01', '--until', '2026-08-31'];
const H = ['--harness', 'zcode'];
const open: ZcodeHome[] = [];
afterAll(() => {
  for (const h of open) h.close();
});

describe('zcode end to end (~/.zcode/cli/db/db.sqlite)', () => {
  let fx: ZcodeHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-zcode-');
    fx = buildZcodeHome(home);
    open.push(fx);
    env = cleanEnv(home);
  });

  it('counts every ended request once, cache taken out of input, rows beside model_usage not added', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    expect(reportRows(j, ['session', 'model'])).toEqual(
      fx.ledger.rows(['session', 'model']).sort(byKeys(['session', 'model'])),
    );
    // 2 + 1 in alpha (two attempts without tokens skipped), 1 in beta (one still running).
    expect(j.totals.requests).toBe(4);
    expect(j.warnings).toEqual([]);
  });

  it('adds up a request worked out by hand (ccusage#1595: input 70443 = 299 fresh + 70144 cache read)', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'model', '--project', '/home/dev/z-alpha'], env);
    const glm = j.rows.find((r: any) => r.model === GLM);
    // 299 + 1200 fresh; 70144 + 50000 read; 3000 written; 680 + 400 out (150 of it reasoning).
    expect(tokenFields(glm)).toEqual({
      requests: 2,
      input_tokens: 1499,
      cache_read_tokens: 120144,
      cache_write_tokens: 3000,
      output_tokens: 1080,
      reasoning_tokens: 150,
      total_tokens: 125723,
    });
  });

  it('keeps the recorded model names, projects from session.directory, turns and tool calls as units', () => {
    const p = reportJson([...RANGE, ...H, '--by', 'project'], env);
    expect(p.rows.map((r: any) => r.project).sort()).toEqual(['/home/dev/z-alpha', '/home/dev/z-beta']);
    const c = storedCounts(env, 'zcode');
    expect(c.sess_alpha).toMatchObject({ turns: 2, tool_calls: 2, prompts: 0, title: null });
    // A turn is counted from its ended requests: the running request's turn comes when it ends.
    expect(c.sess_beta).toMatchObject({ turns: 1, tool_calls: 1 });
  });

  it('sources: the database, its skips, and the log folder found and not read', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status).toBe(0);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'zcode');
    expect(h.files).toBe(1);
    expect(h.roots.map((x: any) => [x.path.endsWith(join('.zcode', 'cli', 'db')), x.unread ?? null])).toEqual([
      [true, null],
      [false, expect.stringMatching(/activity logs/)],
    ]);
    const reasons = h.skipped.map((s: any) => `${s.count} ${s.reason}`).sort();
    expect(reasons).toEqual([
      '1 request running (counted once it ends)',
      '2 request with no tokens (a failed or cancelled attempt)',
    ]);
    const t = runCli(['sources'], env).stdout;
    expect(t).toMatch(/cli\/log {2}\[default\] not read: activity logs/);
  });

  it('a running request completed in place is counted once, and nothing counted before moves', () => {
    const before = reportJson([...RANGE, ...H, '--by', 'session'], env);
    const at = Date.UTC(2026, 7, 4, 10, 5, 0);
    fx.db.complete(fx.running.id, fx.running.session, at, { model: DEEPSEEK, fresh: 700, cacheRead: 4000, output: 90 });
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']));
    const beta = (x: any) => x.rows.find((r: any) => r.session === 'sess_beta').requests;
    expect(beta(j)).toBe(beta(before) + 1);
    const alpha = (x: any) => tokenFields(x.rows.find((r: any) => r.session === 'sess_alpha'));
    expect(alpha(j)).toEqual(alpha(before));
  });
});

describe('zcode roots, old schema, read-only', () => {
  it('ZCODE_HOME (a comma list) and --root (home, db folder or file) find the database; an older schema without computed_total_tokens reads', () => {
    const base = tempDir('txu-zcode-roots-');
    const a = buildZcodeHome(join(base, 'a'));
    open.push(a);
    const old = new ZcodeDb(join(base, 'b', 'cli', 'db', 'db.sqlite'), undefined, { legacy: true });
    open.push({ db: old, ledger: old.ledger, running: null as never, files: [], close: () => old.close() });
    old
      .session('sess_old', '/home/dev/z-old')
      .turn(Date.UTC(2026, 7, 10), [{ model: GLM, fresh: 10, cacheRead: 20, output: 5 }]);
    const home = join(base, 'home');
    const viaEnv = reportJson(
      [...RANGE, ...H],
      cleanEnv(home, {
        ZCODE_HOME: `${join(base, 'a', '.zcode')},${join(base, 'b')}`,
        XDG_CACHE_HOME: join(base, 'c0'),
      }),
    );
    expect(tokenFields(viaEnv.totals)).toEqual(
      tokenFields({ ...a.ledger.totals(), ...sum(a.ledger.totals(), old.ledger.totals()) }),
    );
    for (const [i, root] of [join(base, 'a', '.zcode'), join(base, 'a', '.zcode', 'cli', 'db'), a.db.path].entries()) {
      const j = reportJson(
        [...RANGE, ...H, '--root', `zcode=${root}`],
        cleanEnv(home, { XDG_CACHE_HOME: join(base, `c${i + 1}`) }),
      );
      expect(tokenFields(j.totals), root).toEqual(tokenFields(a.ledger.totals()));
    }
  });

  it('reads the database with ZCode running (rows only in the -wal) and leaves every file as it was', () => {
    const home = tempDir('txu-zcode-ro-');
    const fx = buildZcodeHome(home);
    open.push(fx);
    const files = [fx.db.path, `${fx.db.path}-wal`, `${fx.db.path}-shm`];
    const before = files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f).length]);
    expect(statSync(`${fx.db.path}-wal`).size).toBeGreaterThan(0);
    const j = reportJson([...RANGE, ...H], cleanEnv(home));
    expect(tokenFields(j.totals)).toEqual(tokenFields(fx.ledger.totals()));
    // The -shm is the one file a reader may touch (its read marks); the database and its -wal keep their bytes and times.
    expect(files.slice(0, 2).map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f).length])).toEqual(
      before.slice(0, 2),
    );
  });
});

function sum(a: Record<string, any>, b: Record<string, any>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of [
    'requests',
    'input_tokens',
    'cache_read_tokens',
    'cache_write_tokens',
    'output_tokens',
    'reasoning_tokens',
    'total_tokens',
  ])
    out[k] = a[k] + b[k];
  return out;
}
