// `report compare` per unit of work (issue 27), every figure derived by hand
// from the fixture below: Claude Code (a subagent's responses answer the
// main thread's prompt; a prompt with no response costs 0), Pi (recorded
// costs) and Codex (a sub-agent thread's responses answer its parent's
// prompt), one model priced by a --prices file, so costs are exact.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { id, rolloutName, sessionsPath } from '../../fixtures/codex/home.js';
import { Ledger as CodexLedger } from '../../fixtures/codex/ledger.js';
import { RolloutWriter } from '../../fixtures/codex/rollout.js';
import { sessionsDir } from '../../fixtures/pi/scenarios.js';
import { Ledger as PiLedger, PiSession } from '../../fixtures/pi/session.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';
import { openStore } from '../../src/store/store.js';
import { labelLocalRows } from '../../src/export/local.js';
import { cheaperPerPrompt, FEW_PROMPTS, unitStats, type SameModelRow } from '../../src/report/compare-units.js';
import type { ReportParams } from '../../src/report/summary.js';
import type { HarnessId } from '../../src/core/types.js';

const MODEL = 'units-model-1';
const RANGE = ['--since', '2026-10-20', '--until', '2026-10-20'];

describe('compare: per prompt and per active hour', () => {
  let env: NodeJS.ProcessEnv;
  let prices: string;
  let home: string;
  beforeAll(() => {
    home = tempDir('txu-compare-units-');
    prices = join(home, 'prices.json');
    // $1 per million input tokens, $10 per million output tokens.
    writeFileSync(prices, JSON.stringify({ [MODEL]: { input_cost_per_token: 1e-6, output_cost_per_token: 1e-5 } }));

    const claude = new ClaudeHome(join(home, '.claude'));
    const s = claude.session({ cwd: '/home/u/cmp', sessionId: 'cccccccc-0000-4000-8000-00000000c0de' });
    s.user('2026-10-20T10:00:00.000Z'); //                                                                     P1
    s.response({
      ts: '2026-10-20T10:00:10.000Z',
      model: MODEL,
      splits: 4,
      toolIds: ['toolu_c1', 'toolu_c2'],
      stop: 'tool_use',
      usage: { input: 100, output: 10 },
    }); // $0.0002
    s.response({ ts: '2026-10-20T10:00:30.000Z', model: MODEL, usage: { input: 200, output: 20 } }); //         $0.0004
    s.user('2026-10-20T10:05:00.000Z'); //                                                                     P2
    const sub = s.subagent('00000000000000abc');
    sub.user('2026-10-20T10:05:05.000Z', 'look for the config'); //                                             a subagent task, not a prompt
    sub.response({
      ts: '2026-10-20T10:05:10.000Z',
      model: MODEL,
      splits: 3,
      toolIds: ['toolu_c3'],
      stop: 'tool_use',
      usage: { input: 50, output: 5 },
    }); // $0.0001, answers P2
    s.response({ ts: '2026-10-20T10:06:00.000Z', model: MODEL, usage: { input: 300, output: 30 } }); //         $0.0006
    s.user('2026-10-20T10:20:00.000Z'); //                                                                     P3: never answered

    const ledger = new PiLedger();
    const p = new PiSession({
      dir: sessionsDir(join(home, '.pi', 'agent'), '/home/u/cmp'),
      cwd: '/home/u/cmp',
      start: Date.UTC(2026, 9, 20, 11, 0, 0),
      ledger,
      seed: 4,
    });
    const pu = (cost: number) => ({ input: 10, output: 10, cacheRead: 0, cacheWrite: 0, cost });
    p.user('first'); //                                       Q1
    p.assistant({ provider: 'x', model: MODEL, usage: pu(0.5) }); //            $0.5 recorded
    p.user('second'); //                                      Q2
    p.assistant({ provider: 'x', model: MODEL, usage: pu(0.25), toolCalls: 1 });
    p.toolResult();
    p.assistant({ provider: 'x', model: MODEL, usage: pu(0.25) }); //           Q2: $0.5, 2 requests, 1 tool call
    p.write();

    // Codex: a thread's prompt answered by its own response and by its sub-agent thread's.
    const cl = new CodexLedger();
    const start = Date.UTC(2026, 9, 20, 12, 0, 0);
    const u = { input: 1000, cached: 0, cacheWrite: 0, output: 100, reasoning: 0 };
    const parent = new RolloutWriter({
      threadId: id(0xc01),
      start,
      paginated: true,
      label: 'p',
      project: '/home/u/cmp',
      ledger: cl,
    });
    parent.sessionMeta().turn(MODEL, '/home/u/cmp').response(u).endTurn();
    const child = new RolloutWriter({
      threadId: id(0xc02),
      start: start + 60_000,
      paginated: true,
      label: 'c',
      project: '/home/u/cmp',
      ledger: cl,
    });
    child.sessionMeta({
      source: { subagent: { thread_spawn: { parent_thread_id: id(0xc01), depth: 1 } } },
      parent_thread_id: id(0xc01),
    });
    child.turn(MODEL, '/home/u/cmp').response(u).endTurn();
    for (const w of [parent, child]) {
      const path = sessionsPath(join(home, '.codex'), w.o.start, rolloutName(w.o.start, w.o.threadId));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, w.text());
    }
    env = cleanEnv(home);
    expect(runCli(['ingest'], env).status).toBe(0);
  });

  it('per harness: prompts and per-prompt figures as mean, median and p90; cost per active hour', () => {
    const r = reportJson(['compare', ...RANGE, '--prices', prices], env);
    const cc = r.harnesses.find((h: any) => h.harness === 'claude-code');
    // Per prompt: requests [2, 2, 0], tokens [330, 385, 0], tool calls [2, 1, 0], cost [$0.0006, $0.0007, $0].
    expect(cc).toMatchObject({
      prompts: 3,
      turns: 2,
      tool_calls: 3,
      subagent_tasks: 1,
      answered_prompts: 2,
      priced_prompts: 3,
    });
    expect(cc.requests_per_prompt_mean).toBeCloseTo(4 / 3, 12);
    expect([cc.requests_per_prompt_median, cc.requests_per_prompt_p90]).toEqual([2, 2]);
    expect(cc.tokens_per_prompt_mean).toBeCloseTo(715 / 3, 9);
    // p90 interpolated between the 2nd and 3rd of [0, 330, 385]: 330 + 0.8 × 55.
    expect([cc.tokens_per_prompt_median, cc.tokens_per_prompt_p90]).toEqual([330, 374]);
    expect([cc.tool_calls_per_prompt_mean, cc.tool_calls_per_prompt_median, cc.tool_calls_per_prompt_p90]).toEqual([
      1, 1, 1.8,
    ]);
    expect(cc.cost_per_prompt_usd_mean).toBeCloseTo(0.0013 / 3, 12);
    expect(cc.cost_per_prompt_usd_median).toBeCloseTo(0.0006, 12);
    expect(cc.cost_per_prompt_usd_p90).toBeCloseTo(0.00068, 12);
    // Active: 10:00:00-10:06:00 (gaps under 10 min), then 10:20:00 alone: 0.1 h; $0.0013 / 0.1 h.
    expect(cc.active_hours).toBeCloseTo(0.1, 12);
    expect(cc.cost_per_active_hour_usd_median).toBeCloseTo(0.013, 12);

    const pi = r.harnesses.find((h: any) => h.harness === 'pi');
    expect(pi).toMatchObject({ prompts: 2, turns: 2, tool_calls: 1, priced_prompts: 2 });
    expect([
      pi.requests_per_prompt_mean,
      pi.tokens_per_prompt_median,
      pi.cost_per_prompt_usd_median,
      pi.tool_calls_per_prompt_mean,
    ]).toEqual([1.5, 30, 0.5, 0.5]);

    const codex = r.harnesses.find((h: any) => h.harness === 'codex');
    // The sub-agent thread's response answers the parent's one prompt; its own user message is a subagent task.
    expect(codex).toMatchObject({
      prompts: 1,
      subagent_tasks: 1,
      turns: 2,
      requests_per_prompt_mean: 2,
      tokens_per_prompt_mean: 2200,
    });
  });

  it('the same model in three harnesses: side by side, with a note under 20 prompts', () => {
    const r = reportJson(['compare', ...RANGE, '--prices', prices], env);
    expect(r.same_model.map((x: any) => [x.model, x.harness, x.prompts])).toEqual([
      [MODEL, 'claude-code', 3],
      [MODEL, 'codex', 1],
      [MODEL, 'pi', 2],
    ]);
    expect(r.same_model.every((x: any) => /too few to compare/.test(x.note))).toBe(true);
    // No answer from so few prompts: none in the JSON's added field, and the lead table says so in a line.
    expect(r.cheaper_per_prompt).toEqual([]);
    const lead = runCli(['report', 'compare', ...RANGE, '--prices', prices], env).stdout;
    expect(lead.split('\n').slice(0, 4)).toEqual([
      'Harness efficiency 2026-10-20 – 2026-10-20 (UTC): cheaper per prompt, same model',
      'No model answered 20 or more priced prompts in two harnesses in this period:',
      'nothing to compare yet.',
      '3 same-model rows with fewer than 20 prompts, too few to compare, not shown:',
    ]);
    expect(lead).toContain('`report compare --all` lists them');
    // The rows with too few prompts are one line each table, not rows: without --all no same-model table, no per-prompt rows.
    expect(lead).not.toContain('Same model, different harness');
    expect(lead).toMatch(/3 harnesses with fewer than 20 prompts, too few to compare, not shown/);
    const text = runCli(['report', 'compare', ...RANGE, '--prices', prices, '--all'], env).stdout;
    expect(text).toContain('Same model, different harness');
    expect(text).toMatch(/3 rows\s+have fewer than 20 prompts \(marked \*\)/);
    // Each such row is marked beside its prompt count, at 80 columns too.
    const same = text.slice(text.indexOf('Same model, different harness'));
    for (const h of ['claude-code', 'codex', 'pi'])
      expect(same).toMatch(new RegExp(`${MODEL.slice(0, 8)}\\S*\\s+${h}\\s+\\d+\\s+\\*`));
  });

  it("monthly top sessions and --by session show the session's prompts and tool calls", () => {
    const m = reportJson(['monthly', ...RANGE, '--prices', prices], env);
    const top = m.months.find((x: any) => x.month === '2026-10').top_sessions;
    const cc = top.find((s: any) => s.harness === 'claude-code');
    expect([cc.prompts, cc.tool_calls]).toEqual([3, 3]);
    expect(top.find((s: any) => s.harness === 'pi')).toMatchObject({ prompts: 2, tool_calls: 1 });
    const v = reportJson([...RANGE, '--prices', prices, '--by', 'session'], env);
    // Sorted by cost: pi ($1.00), codex, claude-code ($0.0013). The Codex sub-agent's spend is its
    // root session's (as Claude Code's subagent is its session's): one Codex row, counting the thread.
    expect(v.rows.map((r: any) => r.harness)).toEqual(['pi', 'codex', 'claude-code']);
    expect(v.rows.find((r: any) => r.harness === 'codex')).toMatchObject({ prompts: 1, subagent_threads: 1, turns: 1 });
    expect(v.rows.find((r: any) => r.harness === 'claude-code')).toMatchObject({
      prompts: 3,
      turns: 2,
      tool_calls: 3,
      subagent_tasks: 1,
      models: MODEL,
      active_minutes: 6,
    });
    const costs = v.rows.map((r: any) => r.cost_usd);
    expect([...costs].sort((a: number, b: number) => b - a)).toEqual(costs);
  });

  it('CSV carries every per-harness figure', () => {
    const csv = runCli(['report', 'compare', ...RANGE, '--prices', prices, '--format', 'csv'], env).stdout;
    const head = csv.split('\r\n')[0]!.split(',');
    for (const f of [
      'prompts',
      'tool_calls',
      'cost_per_prompt_usd_mean',
      'cost_per_prompt_usd_median',
      'cost_per_prompt_usd_p90',
      'requests_per_prompt_p90',
      'tokens_per_prompt_median',
      'tool_calls_per_prompt_p90',
      'cost_per_active_hour_usd_mean',
      'active_hours',
    ]) {
      expect(head).toContain(f);
    }
  });
  it("figures of a second compare on the same connection are its own, not the first one's (rows kept per run in temporary tables)", async () => {
    const store = await openStore(join(home, '.cache', 'tx-usage', 'usage.duckdb'));
    const fresh = await store.connect();
    try {
      await labelLocalRows(store.conn, 'm');
      await labelLocalRows(fresh, 'm');
      const params = (harnesses: HarnessId[], project: string): ReportParams =>
        ({
          since: '2026-10-20',
          until: '2026-10-20',
          tz: 'UTC',
          by: ['model'],
          harnesses,
          project,
          costMode: 'auto',
          charts: true,
        }) as ReportParams;
      const figures = async (u: Awaited<ReturnType<typeof unitStats>>) => ({
        cc: u.harness('claude-code', true),
        pi: u.harness('pi', true),
        model: u.detail('pi', MODEL, true),
        same: u.sameModel,
        costs: await u.promptCosts(),
      });
      const first = await figures(await unitStats(store.conn, params(['claude-code', 'codex', 'pi'], ''), 'model'));
      const second = await figures(await unitStats(store.conn, params(['pi'], 'cmp'), 'model'));
      const alone = await figures(await unitStats(fresh, params(['pi'], 'cmp'), 'model'));
      expect(second).toEqual(alone);
      // The two runs differ, so a second run answered from the first one's rows would fail.
      expect(first.cc.prompts).toBe(3);
      expect(second.cc.prompts).toBe(0);
      expect(first.same.length).toBe(3);
      expect(second.same).toEqual([]);
      expect(second.pi).toMatchObject({ prompts: 2 });
      expect(second.costs.every((r) => r.harness === 'pi')).toBe(true);
    } finally {
      fresh.closeSync();
      await store.close();
    }
  });
});

describe('compare leads with the answer: which harness is cheaper per prompt for the same model', () => {
  const row = (model: string, harness: string, prompts: number, med: number | null, p90: number | null): SameModelRow =>
    ({
      model,
      harness,
      prompts,
      priced_prompts: prompts,
      cost_per_prompt_usd_median: med,
      cost_per_prompt_usd_p90: p90,
      note: null,
    }) as SameModelRow;

  it('the cheapest harness of each model beside every other with enough prompts, with both spreads and the ratio of medians', () => {
    const rows = [
      row('m1', 'claude-code', 40, 0.2, 0.5),
      row('m1', 'pi', 30, 0.05, 0.09),
      row('m1', 'cline', FEW_PROMPTS - 1, 0.01, 0.02), // cheapest, but too few prompts: no answer rests on it
      row('m1', 'opencode', 25, 0.1, 0.3),
      row('m2', 'codex', 50, 0.1, 0.2),
      row('m2', 'opencode', 5, 0.05, 0.06), // the only other harness has too few: m2 answers nothing
      row('m3', 'pi', 20, null, null), // no priced prompt
      row('m3', 'claude-code', 20, 0.3, 0.4),
    ];
    const a = cheaperPerPrompt(rows);
    expect(
      a.map((x) => [
        x.model,
        x.harness,
        x.than_harness,
        x.times,
        x.cost_per_prompt_usd_p90,
        x.than_cost_per_prompt_usd_p90,
      ]),
    ).toEqual([
      ['m1', 'pi', 'opencode', 2, 0.09, 0.3],
      ['m1', 'pi', 'claude-code', 4, 0.09, 0.5],
    ]);
  });

  it('on the demo data: the lead table answers, the CSV is still the per-harness table', () => {
    const env = cleanEnv(tempDir('txu-compare-lead-'));
    const j = reportJson(['compare', '--demo'], env);
    expect(j.cheaper_per_prompt.length).toBeGreaterThan(0);
    // The answer is made from the same_model rows the JSON keeps, every one of them still there.
    expect(j.same_model.some((r: any) => r.prompts < FEW_PROMPTS)).toBe(true);
    for (const a of j.cheaper_per_prompt) {
      const of = (h: string) => j.same_model.find((r: any) => r.model === a.model && r.harness === h);
      expect(of(a.harness).cost_per_prompt_usd_median).toBe(a.cost_per_prompt_usd_median);
      expect(of(a.than_harness).cost_per_prompt_usd_median).toBe(a.than_cost_per_prompt_usd_median);
      expect(a.times).toBeCloseTo(a.than_cost_per_prompt_usd_median / a.cost_per_prompt_usd_median, 2);
      expect(Math.min(of(a.harness).prompts, of(a.than_harness).prompts)).toBeGreaterThanOrEqual(FEW_PROMPTS);
    }
    const t = runCli(['demo', 'compare'], env).stdout;
    const first = j.cheaper_per_prompt[0];
    expect(t.split('\n')[0]).toMatch(
      /^Harness efficiency \d{4}-\d\d-\d\d – \d{4}-\d\d-\d\d \(UTC\): cheaper per prompt, same model$/,
    );
    expect(t.replace(/\s+/g, ' ')).toContain(
      `${first.model}: ${first.harness} is cheaper per prompt than ${first.than_harness}, ${first.times}× less at the median`,
    );
    expect(runCli(['demo', 'compare', '--format', 'csv'], env).stdout.split('\r\n')[0]).toMatch(
      /^harness,billed,requests,/,
    );
    // --all is compare's: refused elsewhere.
    const other = runCli(['demo', '--all'], env);
    expect(other.status).toBe(2);
    expect(other.stderr).toContain('--all is for report compare');
  });
});
