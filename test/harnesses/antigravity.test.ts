// Antigravity end to end: the real CLI over a generated `~/.gemini` whose
// conversation databases hold every trap of src/harnesses/antigravity/README.md
// reports exactly what the builder billed; a generation appended is counted
// once, and one Antigravity prunes stays counted.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byKeys, reportRows, tokenFields } from '../../fixtures/ledger.js';
import { buildAntigravityHome, D, FLASH, PROJECT, type AntigravityHome } from '../../fixtures/antigravity/home.js';
import { antigravityModelNames } from '../../src/harnesses/antigravity/model-names.js';
import { workspacePath } from '../../src/harnesses/antigravity/extract.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-09-01', '--until', '2026-09-30'];
const H = ['--harness', 'antigravity'];
const open: AntigravityHome[] = [];
afterAll(() => {
  for (const h of open) h.close();
});

describe('antigravity end to end (conversations/*.db)', () => {
  let fx: AntigravityHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-agy-');
    fx = buildAntigravityHome(home);
    open.push(fx);
    env = cleanEnv(home);
  });

  it('counts every generation once: the ledger by session and model, and the totals worked out by hand', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    expect(reportRows(j, ['session', 'model'])).toEqual(
      fx.ledger.rows(['session', 'model']).sort(byKeys(['session', 'model'])),
    );
    // Input 6321+12000+900+50+50+700+400+2000+3000 (uncached; the enum 1036 of field 1 never added),
    // cache reads 36491+4000+500+500+1000+8000+20000, output 721+300+80+5+5+70+10+150+900 (thinking inside),
    // thinking 117+20+400; the shared response once, the zero, usage-less and broken rows not at all.
    expect(tokenFields(j.totals)).toEqual({
      requests: 9,
      input_tokens: 25421,
      cache_read_tokens: 70491,
      cache_write_tokens: 0,
      output_tokens: 2241,
      reasoning_tokens: 537,
      total_tokens: 98153,
    });
    expect(j.warnings).toEqual([
      expect.stringMatching(
        /0f1e2d3c-0000-4000-8000-000000000001\.db \(gen_metadata idx 16\): not a generator metadata message/,
      ),
      '1 antigravity response (410 tokens) names no model, so it has no computed cost (unknown, not $0)',
    ]);
  });

  it('projects from the percent-encoded workspace URI; sessions are the conversation ids', () => {
    const p = reportJson([...RANGE, ...H, '--by', 'project'], env);
    expect(p.rows.map((r: any) => r.project).sort()).toEqual([PROJECT, 'unknown'].sort());
    expect(workspacePath('file:///c%3A/src/my%20app')).toBe('c:/src/my app');
    // Prompts from the steps' types (never their text): one per generation row written, the broken blob's excepted.
    const c = storedCounts(env, 'antigravity');
    expect(c[fx.main.session]).toMatchObject({ prompts: 9 });
    expect(c[fx.ide.session]).toMatchObject({ prompts: 1 });
    expect(workspacePath('file:///home/a/100%')).toBe('/home/a/100%');
  });

  it('names models the price data knows', () => {
    expect(antigravityModelNames('gemini-3.1-pro-low')).toEqual(['gemini-3.1-pro', 'gemini-3.1-pro-preview']);
    expect(antigravityModelNames('Gemini 3.1 Pro (High)')).toEqual(['gemini-3.1-pro', 'gemini-3.1-pro-preview']);
    expect(antigravityModelNames('Claude Sonnet 4.6 (Thinking)')).toEqual(['claude-sonnet-4.6', 'claude-sonnet-4-6']);
    expect(antigravityModelNames('MODEL_PLACEHOLDER_M26')).toEqual(['claude-opus-4-6']);
    expect(antigravityModelNames('gemini-3-flash-preview')).toEqual([]);
    // Priced through those names: only the generation naming no model has no cost.
    const j = reportJson([...RANGE, ...H, '--by', 'model'], env);
    expect(j.rows.filter((r: any) => r.cost_usd === null).map((r: any) => r.model)).toEqual(['unknown']);
  });

  it('sources: the databases only, with the rows not counted and why', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status).toBe(0);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'antigravity');
    expect(h.files).toBe(3);
    expect(h.roots.map((x: any) => [x.path.split('/').slice(-2).join('/'), x.exists])).toEqual([
      ['.gemini/antigravity-cli', true],
      ['.gemini/antigravity-ide', true],
      ['.gemini/antigravity', true],
    ]);
    const reasons = h.skipped.map((s: any) => `${s.count} ${s.reason}`).sort();
    expect(reasons).toEqual(['1 generation with no tokens', '1 generation without usage']);
    expect(Object.keys(h.counts)).toContain(
      'antigravity: generation with only a model number (model unknown, not priced)',
    );
  });

  it('a generation appended is counted once, one Antigravity prunes stays counted, and nothing counted before moves', () => {
    const before = reportJson([...RANGE, ...H, '--by', 'session'], env);
    const idx = fx.child.turn({
      modelEnum: 1018,
      slug: FLASH,
      input: 111,
      cacheRead: 222,
      output: 33,
      responseId: 'resp-sub-3',
      at: D(4, 10),
    });
    const appended = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(appended, ['session'])).toEqual(fx.ledger.rows(['session']));
    const child = (x: any) => tokenFields(x.rows.find((r: any) => r.session === fx.child.session));
    const main = (x: any) => tokenFields(x.rows.find((r: any) => r.session === fx.main.session));
    expect(child(appended)).toMatchObject({
      requests: (child(before).requests as number) + 1,
      input_tokens: (child(before).input_tokens as number) + 111,
    });
    expect(main(appended)).toEqual(main(before));
    // Antigravity prunes old rows: what was counted stays counted.
    fx.child.writer.prepare('DELETE FROM gen_metadata WHERE idx = ?').run(idx);
    fx.main.writer.prepare('DELETE FROM gen_metadata').run();
    const pruned = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(pruned, ['session'])).toEqual(reportRows(appended, ['session']));
    const h = JSON.parse(runCli(['sources', '--format', 'json'], env).stdout).harnesses.find(
      (x: any) => x.harness === 'antigravity',
    );
    // 9 rows of the main conversation (its broken blob was never counted) and the child's appended one.
    expect(h.counts['antigravity: generations pruned from the database since counted (kept)']).toBe(8);
  });
});

describe('antigravity roots and read-only', () => {
  it('ANTIGRAVITY_DATA_DIR (a comma list) and --root (a root, its conversations folder or a database) find the databases', () => {
    const base = tempDir('txu-agy-roots-');
    const fx = buildAntigravityHome(join(base, 'h'));
    open.push(fx);
    const home = join(base, 'empty');
    const cli = join(base, 'h', '.gemini', 'antigravity-cli');
    const ide = join(base, 'h', '.gemini', 'antigravity-ide');
    const all = tokenFields(fx.ledger.totals());
    const viaEnv = reportJson(
      [...RANGE, ...H],
      cleanEnv(home, { ANTIGRAVITY_DATA_DIR: `${cli},${ide}`, XDG_CACHE_HOME: join(base, 'c0') }),
    );
    expect(tokenFields(viaEnv.totals)).toEqual(all);
    const ideOnly = tokenFields(fx.ledger.totals({ since: '2026-09-03', until: '2026-09-03' }));
    for (const [i, root] of [ide, join(ide, 'conversations'), fx.ide.path].entries()) {
      const j = reportJson(
        [...RANGE, ...H, '--root', `antigravity=${root}`],
        cleanEnv(home, { XDG_CACHE_HOME: join(base, `c${i + 1}`) }),
      );
      expect(tokenFields(j.totals), root).toEqual(ideOnly);
    }
  });

  it('reads the databases with Antigravity running (rows only in the -wal) and leaves every file as it was', () => {
    const home = tempDir('txu-agy-ro-');
    const fx = buildAntigravityHome(home);
    open.push(fx);
    const files = [fx.main.path, `${fx.main.path}-wal`, fx.ide.path, `${fx.ide.path}-wal`];
    const before = files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f).toString('base64')]);
    expect(statSync(`${fx.main.path}-wal`).size).toBeGreaterThan(0);
    const j = reportJson([...RANGE, ...H], cleanEnv(home));
    expect(tokenFields(j.totals)).toEqual(tokenFields(fx.ledger.totals()));
    // The -shm is the one file a reader may touch (its read marks); each database and its -wal keep their bytes and times.
    expect(files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f).toString('base64')])).toEqual(
      before,
    );
  });
});
