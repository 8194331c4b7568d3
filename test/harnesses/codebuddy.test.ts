// CodeBuddy end to end: the real CLI over a generated `~/.codebuddy` whose
// transcripts hold every trap of src/harnesses/codebuddy/README.md reports
// exactly what the builder billed; lines appended are counted once.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { byKeys, reportRows, tokenFields } from '../../fixtures/ledger.js';
import { buildCodebuddyHome, T, type CodebuddyHome } from '../../fixtures/codebuddy/home.js';
import { codebuddyModelNames } from '../../src/harnesses/codebuddy/model-names.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-10-01', '--until', '2026-10-31'];
const H = ['--harness', 'codebuddy'];

describe('codebuddy end to end (~/.codebuddy/projects)', () => {
  let fx: CodebuddyHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-cb-');
    fx = buildCodebuddyHome(home);
    env = cleanEnv(home);
  });

  it('counts every call once: the ledger by session and model, and the totals worked out by hand', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    expect(reportRows(j, ['session', 'model'])).toEqual(
      fx.ledger.rows(['session', 'model']).sort(byKeys(['session', 'model'])),
    );
    // Fresh input 6+100+900+300+50+2000 (each line's input less both cache buckets), cache reads 1400+700+2000+8000,
    // writes 74402+30, output 281+42+60+20+400+150 (reasoning 10+250 inside it); three copies and two parallel lines of one call once.
    expect(tokenFields(j.totals)).toEqual({
      requests: 6,
      input_tokens: 3356,
      cache_read_tokens: 12100,
      cache_write_tokens: 74432,
      output_tokens: 953,
      reasoning_tokens: 260,
      total_tokens: 90841,
    });
    expect(j.warnings).toEqual([]);
    // Every model priced through its vendor's name: no unknown cost.
    expect(j.rows.filter((r: any) => r.cost_usd === null)).toEqual([]);
  });

  it('names models the price data knows', () => {
    expect(codebuddyModelNames('MaaS_Cl_Opus_4.7_20260416_cache')).toEqual(['claude-opus-4.7', 'claude-opus-4-7']);
    expect(codebuddyModelNames('claude-opus-4.7-1m')).toEqual(['claude-opus-4.7', 'claude-opus-4-7']);
    expect(codebuddyModelNames('MaaS_DS_V3.2_20250929')).toEqual(['deepseek-v3.2']);
  });

  it('projects from cwd, prompts as units, the generated title; memory files never read', () => {
    const p = reportJson([...RANGE, ...H, '--by', 'project'], env);
    expect(p.rows.map((r: any) => r.project)).toEqual(['/Users/dev/proj']);
    const c = storedCounts(env, 'codebuddy');
    expect(c[fx.main.id]).toMatchObject({ prompts: 1, title: 'Fix the build' });
    expect(c[fx.sub.id]).toMatchObject({ prompts: 1 });
    const r = runCli(['sources', '--format', 'json'], env);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'codebuddy');
    expect(h.files).toBe(2);
    expect(h.skipped.map((s: any) => `${s.count} ${s.reason}`).sort()).toEqual([
      '1 assistant message in_progress (not a completed call)',
      '1 call with no tokens',
    ]);
  });

  it('lines appended are counted once from where the last read stopped, and nothing counted before moves', () => {
    const before = reportJson([...RANGE, ...H, '--by', 'session'], env);
    fx.main.user(T(6, 10));
    fx.main.call(T(6, 10, 1), { fresh: 11, cacheRead: 22, output: 3, parallel: 3 });
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']));
    const sub = (x: any) => tokenFields(x.rows.find((r: any) => r.session === fx.sub.id));
    expect(sub(j)).toEqual(sub(before));
    expect(j.totals.requests).toBe(before.totals.requests + 1);
  });
});

describe('codebuddy roots and read-only', () => {
  it('CODEBUDDY_DIR (a comma list) and --root (a .codebuddy folder or its projects) find the transcripts; nothing is written', () => {
    const base = tempDir('txu-cb-roots-');
    const fx = buildCodebuddyHome(join(base, 'h'));
    const files = [fx.main.file, fx.sub.file];
    const before = files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f, 'utf8')]);
    const home = join(base, 'empty');
    const all = tokenFields(fx.ledger.totals());
    const viaEnv = reportJson(
      [...RANGE, ...H],
      cleanEnv(home, { CODEBUDDY_DIR: `${fx.root},${join(base, 'nowhere')}`, XDG_CACHE_HOME: join(base, 'c0') }),
    );
    expect(tokenFields(viaEnv.totals)).toEqual(all);
    for (const [i, root] of [join(base, 'h', '.codebuddy'), fx.root].entries()) {
      const j = reportJson(
        [...RANGE, ...H, '--root', `codebuddy=${root}`],
        cleanEnv(home, { XDG_CACHE_HOME: join(base, `c${i + 1}`) }),
      );
      expect(tokenFields(j.totals), root).toEqual(all);
    }
    expect(files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f, 'utf8')])).toEqual(before);
  });
});
