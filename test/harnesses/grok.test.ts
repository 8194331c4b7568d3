// Grok Build end to end: the real CLI over a generated `~/.grok` whose
// sessions hold every trap of src/harnesses/grok/README.md reports exactly
// what the builder billed, per prompt and model: a replayed turn and a fork's
// copied lines count once, a sub-agent's own session is not added to the
// parent's turn that holds it, cache is taken out of input, Grok's own cost
// kept only where it says it is complete.
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { byKeys, reportRows, tokenFields } from '../../fixtures/ledger.js';
import { buildGrokHome, FAST, GROK4, PROJECT, type GrokHome } from '../../fixtures/grok/home.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const RANGE = ['--since', '2026-07-01', '--until', '2026-07-31'];
const H = ['--harness', 'grok'];

describe('grok end to end (~/.grok/sessions/*/*/updates.jsonl)', () => {
  let fx: GrokHome;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    const home = tempDir('txu-grok-');
    fx = buildGrokHome(home);
    env = cleanEnv(home);
  });

  it('one row per prompt and model, counted once; cache out of input; the child session not added', () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    expect(reportRows(j, ['session', 'model'])).toEqual(
      fx.ledger.rows(['session', 'model']).sort(byKeys(['session', 'model'])),
    );
    expect(j.warnings).toEqual([]);
    // By hand: calls 3+1+1+1+1 (parent) + 1 (fork's own) = 8; fresh 300+72+50+500+300+60 = 1282;
    // read 800+128+100 = 1028; write 100; output 150+20+5+50+40+6 = 271; reasoning 60 (part of output).
    expect(tokenFields(j.totals)).toEqual({
      requests: 8,
      input_tokens: 1282,
      cache_read_tokens: 1028,
      cache_write_tokens: 100,
      output_tokens: 271,
      reasoning_tokens: 60,
      total_tokens: 1282 + 1028 + 100 + 271,
    });
    const by = Object.fromEntries(
      reportJson([...RANGE, ...H, '--by', 'model'], env).rows.map((r: any) => [r.model, r.requests]),
    );
    expect(by).toEqual({ [GROK4]: 7, [FAST]: 1 });
  });

  it("Grok's own cost (costUsdTicks / 1e10) where complete; else priced by model", () => {
    const j = reportJson([...RANGE, ...H, '--by', 'session,model'], env);
    const ex = JSON.parse(runCli(['explain', fx.ids.parent, '--format', 'json'], env).stdout);
    const counted = ex.sources.flatMap((s: any) => s.records.filter((r: any) => r.counted));
    expect(counted.map((r: any) => r.rule).sort()).toEqual([
      ...Array(4).fill('turn_completed modelUsage (per prompt and model)'),
      'turn_completed usage without modelUsage (model from summary.json)',
    ]);
    // p-aaa: 123,000,000 ticks = $0.0123 as recorded; p-ccc's ticks come with usageIsIncomplete: priced by model instead.
    const byKey = Object.fromEntries(counted.map((r: any) => [r.key, r]));
    expect(byKey['grok:p-aaa:grok-4']).toMatchObject({
      cost_source: 'recorded',
      cost_usd: 0.0123,
      requests: 3,
      input_tokens: 300,
    });
    expect(byKey['grok:p-ccc:grok-4'].recorded_cost_usd).toBeNull();
    expect(byKey['grok:p-ccc:grok-4'].cost_usd).toBeCloseTo(byKey['grok:p-ccc:grok-4'].computed_cost_usd, 12);
    expect(j.rows.length).toBeGreaterThan(0);
  });

  it('sources: the child turn skipped with why, the unified log found and not read', () => {
    const r = runCli(['sources', '--format', 'json'], env);
    const h = JSON.parse(r.stdout).harnesses.find((x: any) => x.harness === 'grok');
    expect(h.files).toBe(3);
    expect(h.skipped.map((s: any) => `${s.count} ${s.reason}`)).toEqual([
      "1 sub-agent session's turn (its usage is in the parent's turn)",
    ]);
    expect(h.roots.map((x: any) => x.unread ?? null)).toEqual([null, expect.stringMatching(/unified log/)]);
  });

  it('an appended turn is read from the resume point; nothing counted before moves', () => {
    const before = reportJson([...RANGE, ...H, '--by', 'session'], env);
    fx.appendTurn(Date.UTC(2026, 6, 22, 9, 0, 0), 'p-ggg', { input: 90, output: 9, cachedRead: 30 });
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']).sort(byKeys(['session'])));
    expect(j.totals.requests).toBe(before.totals.requests + 1);
    const fork = (x: any) => tokenFields(x.rows.find((r: any) => r.session === fx.ids.fork));
    expect(fork(j)).toEqual(fork(before));
  });

  it('a line that is not JSON is named by file and line; nothing else is lost', () => {
    const file = join(fx.grokHome, 'sessions', encodeURIComponent(PROJECT), fx.ids.fork, 'updates.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n').length;
    appendFileSync(file, '{"timestamp":1784600000,"params":{"update":{"sessionUpdate":"turn_completed",\n');
    const j = reportJson([...RANGE, ...H, '--by', 'session'], env);
    expect(j.warnings.some((w: string) => w.includes(file) && w.includes(`first at line ${lines}`))).toBe(true);
    expect(reportRows(j, ['session'])).toEqual(fx.ledger.rows(['session']).sort(byKeys(['session'])));
  });
});

describe('grok roots and read-only', () => {
  it('GROK_HOME and --root find the sessions; no file changes', () => {
    const base = tempDir('txu-grok-roots-');
    const fx = buildGrokHome(join(base, 'h'));
    const files = [...fx.canaryFiles, join(fx.grokHome, 'logs', 'unified.jsonl')];
    const before = files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f, 'utf8')]);
    const elsewhere = join(base, 'empty-home');
    const total = tokenFields(fx.ledger.totals());
    expect(
      tokenFields(
        reportJson([...RANGE, ...H], cleanEnv(elsewhere, { GROK_HOME: fx.grokHome, XDG_CACHE_HOME: join(base, 'c0') }))
          .totals,
      ),
    ).toEqual(total);
    expect(
      tokenFields(
        reportJson(
          [...RANGE, ...H, '--root', `grok=${join(fx.grokHome, 'sessions')}`],
          cleanEnv(elsewhere, { XDG_CACHE_HOME: join(base, 'c1') }),
        ).totals,
      ),
    ).toEqual(total);
    expect(files.map((f) => [statSync(f).size, statSync(f).mtimeMs, readFileSync(f, 'utf8')])).toEqual(before);
  });
});
