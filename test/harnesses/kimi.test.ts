// Kimi end to end: the real CLI over generated `~/.kimi` (kimi-cli) and
// `~/.kimi-code` (Kimi Code) homes holding every trap of
// src/harnesses/kimi/README.md reports exactly what the builder billed: a
// sub-agent's step wrapped in its parent's wire and a fork's copied lines
// count once, step.end and zero records not at all, the model is found from
// the configuration (kimi-cli) or the llm.request (Kimi Code) and explain says
// how; appended lines are read from where the last run stopped.
import { appendFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { byKeys, reportRows, tokenFields } from '../../fixtures/ledger.js';
import { buildKimiHome, CLI_PROJECT, K2, K25, K3, md5, type KimiHome } from '../../fixtures/kimi/home.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { storedCounts } from '../helpers/units.js';

const RANGE = ['--since', '2026-09-01', '--until', '2026-09-30'];
const H = ['--harness', 'kimi'];

describe('kimi end to end (~/.kimi and ~/.kimi-code)', () => {
  let fx: KimiHome;
  let env: NodeJS.ProcessEnv;
  let home: string;
  beforeAll(() => {
    home = tempDir('txu-kimi-');
    fx = buildKimiHome(home);
    env = cleanEnv(home);
  });

  it('counts every call once: wrapped sub-agent steps and fork copies collapse, step.end and zero records are not calls', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    expect(reportRows(j, ['session', 'model'])).toEqual(
      fx.ledger.rows(['session', 'model']).sort(byKeys(['session', 'model'])),
    );
    expect(j.warnings).toEqual([]);
    // By hand. kimi-cli: A1, A2, SUB1 (own wire), BG1, OLD1 (wrapped only), one step without id, F1 (fork's own) = 7.
    //   fresh 14218+3000+900+500+700+100+50 = 19468; output 123+200+40+60+30+10+5 = 468; read 6144+20000+100 = 26244; write 512.
    // Kimi Code: call1, compaction, sub-agent, fork's own, v2 = 5.
    //   fresh 100+2000+300+10+4000 = 6410; output 40+300+20+5+250 = 615; read 25+50+12000 = 12075; write 10.
    expect(tokenFields(j.totals)).toEqual({
      requests: 12,
      input_tokens: 25878,
      cache_read_tokens: 38319,
      cache_write_tokens: 522,
      output_tokens: 1083,
      reasoning_tokens: 0,
      total_tokens: 25878 + 38319 + 522 + 1083,
    });
  });

  it('the model: config.toml default_model through its [models] table, a sub-agent meta.json key, Kimi Code llm.request by alias', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'model'], env);
    const by = Object.fromEntries(j.rows.map((r: any) => [r.model, r.requests]));
    // K2: A1, A2, BG1, OLD1, no-id, F1 (config) + v2 (its alias) = 7; K3: SUB1 (meta.json k3) + call1 + fork's own = 3; K2.5: compaction + sub-agent = 2.
    expect(by).toEqual({ [K2]: 7, [K3]: 3, [K25]: 2 });
    const ex = JSON.parse(runCli(['explain', fx.ids.cliA, '--format', 'json'], env).stdout);
    const rules = new Set(
      ex.sources.flatMap((s: any) => s.records.filter((r: any) => r.counted).map((r: any) => r.rule)),
    );
    expect([...rules].sort()).toEqual([
      'StatusUpdate; model from config.toml',
      "StatusUpdate; model from the sub-agent's meta.json",
    ]);
    const wrapped = ex.sources.flatMap((s: any) => s.records).filter((r: any) => /^SubagentEvent/.test(r.rule ?? ''));
    expect(wrapped.length).toBeGreaterThan(0);
    for (const r of wrapped) expect(r.counted).toBe(false);
    const code = JSON.parse(runCli(['explain', fx.ids.codeV2, '--format', 'json'], env).stdout);
    expect(code.sources.flatMap((s: any) => s.records.filter((r: any) => r.counted).map((r: any) => r.rule))).toEqual([
      'usage.record; model is its alias (no llm.request)',
    ]);
  });

  it("no model configured: kimi-for-coding, the Kimi Code membership's alias, has no public per-token price: unknown and marked, never $0", () => {
    const other = tempDir('txu-kimi-noconf-');
    buildKimiHome(other);
    rmSync(join(other, '.kimi', 'config.toml'));
    const j = reportJson([...RANGE, ...H, '--by', 'model'], cleanEnv(other));
    const row = j.rows.find((r: any) => r.model === 'kimi-for-coding');
    // By hand: the six main-agent steps the config named K2 for (A1, A2, BG1, OLD1, the step without id, F1).
    expect(row).toMatchObject({ requests: 6, cost_usd: null, unpriced_requests: 6 });
    expect(j.warnings.some((w: string) => w.includes('kimi-for-coding'))).toBe(true);
  });

  it('projects from kimi.json buckets and state.json, titles, prompts and tool calls as units', () => {
    const p = reportJson([...RANGE, ...H, '--by', 'project'], env);
    expect(p.rows.map((r: any) => r.project).sort()).toEqual(['/home/dev/kc-alpha', '/home/dev/kc-beta', CLI_PROJECT]);
    const c = storedCounts(env, 'kimi');
    expect(c[fx.ids.cliA]).toMatchObject({ prompts: 1, tool_calls: 1, title: 'alpha session' });
    expect(c[fx.ids.codeA]).toMatchObject({ prompts: 1, tool_calls: 1, title: 'kc alpha' });
  });

  it('sources: every wire found, zero records and null-usage updates named', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    expect(r.status).toBe(0);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'kimi');
    // kimi-cli: A, fg1, bg1, old, fork, empty; Kimi Code: A main + sub, fork main + sub, v2, imported.
    expect(h.files).toBe(12);
    expect(h.roots.map((x: any) => x.path.split('/').pop())).toEqual(['.kimi', '.kimi-code']);
    const reasons = h.skipped.map((s: any) => s.reason);
    expect(reasons).toContain('usage.record with no tokens');
  });

  it('appended lines are read from the resume point; nothing counted before moves', () => {
    const before = reportJson([...RANGE, ...H, '--by', 'session'], env);
    fx.appendCliStep(Date.UTC(2026, 8, 20, 10, 0, 0), { fresh: 77, output: 7, cacheRead: 700 }, 'chatcmpl-A3');
    fx.appendCodeCall(Date.UTC(2026, 8, 20, 11, 0, 0), { fresh: 33, output: 3, cacheWrite: 300 });
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']).sort(byKeys(['session'])));
    expect(j.totals.requests).toBe(before.totals.requests + 2);
    const other = (x: any) => tokenFields(x.rows.find((r: any) => r.session === fx.ids.codeV2));
    expect(other(j)).toEqual(other(before));
  });

  it('a line that is not JSON is named by file and line; nothing else is lost', () => {
    const wire = join(fx.share, 'sessions', md5(CLI_PROJECT), fx.ids.cliEmpty, 'wire.jsonl');
    appendFileSync(
      wire,
      '{"timestamp": 1789000000.5, "message": {"type": "StatusUpdate", "payload": {"token_usage": \n',
    );
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(
      j.warnings.some((w: string) => w.includes(wire) && /unparsable line skipped \(first at line 2\)/.test(w)),
    ).toBe(true);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']).sort(byKeys(['session'])));
  });
});

describe('kimi roots and read-only', () => {
  it('KIMI_SHARE_DIR and KIMI_CODE_HOME, or --root with either folder, find the same calls; no file changes', () => {
    const base = tempDir('txu-kimi-roots-');
    const fx = buildKimiHome(join(base, 'h'));
    const files = [...fx.canaryFiles, join(fx.share, 'config.toml'), join(fx.share, 'kimi.json')];
    const before = files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f, 'utf8')]);
    const elsewhere = join(base, 'empty-home');
    const total = tokenFields(fx.ledger.totals());
    const viaEnv = reportJson(
      [...RANGE, ...H],
      cleanEnv(elsewhere, { KIMI_SHARE_DIR: fx.share, KIMI_CODE_HOME: fx.codeHome, XDG_CACHE_HOME: join(base, 'c0') }),
    );
    expect(tokenFields(viaEnv.totals)).toEqual(total);
    const viaRoot = reportJson(
      [...RANGE, ...H, '--root', `kimi=${fx.share}`, '--root', `kimi=${fx.codeHome}`],
      cleanEnv(elsewhere, { XDG_CACHE_HOME: join(base, 'c1') }),
    );
    expect(tokenFields(viaRoot.totals)).toEqual(total);
    const cliOnly = reportJson(
      [...RANGE, ...H, '--root', `kimi=${fx.share}`],
      cleanEnv(elsewhere, { XDG_CACHE_HOME: join(base, 'c2') }),
    );
    expect(cliOnly.totals.requests).toBe(7);
    expect(files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f, 'utf8')])).toEqual(before);
  });
});
