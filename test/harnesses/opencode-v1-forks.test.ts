// OpenCode 1.x Session.fork copies (issue 42): a fork copies every message
// and part of its source under new ids with the original data (time, model,
// tokens, cost), so each copied response must count once, with its
// original; Kilo before June 2026 copied every sub-agent session the same
// way (kilocode#11075). And 1.x turns imported into a 2.x database, then
// continued there, count once (README "1.x turns continued in 2.x").
// Expected figures are worked out by hand below from the usages written.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenCodeDb, type ModelRef } from '../../fixtures/opencode/builder.js';
import { importV1 } from '../../fixtures/opencode/v1-import.js';
import { cleanEnv, reportJson, runCli, tempDir } from '../helpers/cli.js';

const SONNET: ModelRef = { id: 'claude-sonnet-4-5', providerID: 'anthropic' };
const RANGE = ['--since', '2025-12-01', '--until', '2026-02-28'];
const DAY = 86_400_000;

interface Want {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cost_usd: number;
}

function expectRow(row: any, want: Want, what: string) {
  expect(
    {
      requests: row.requests,
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      cache_read_tokens: row.cache_read_tokens,
    },
    what,
  ).toEqual({
    requests: want.requests,
    input_tokens: want.input_tokens,
    output_tokens: want.output_tokens,
    cache_read_tokens: want.cache_read_tokens,
  });
  expect(row.cost_usd, what).toBeCloseTo(want.cost_usd, 9);
}

describe('opencode 1.x Session.fork copies and Kilo sub-agent copies', () => {
  const home = tempDir('txu-oc-v1fork-');
  const dataDir = join(home, '.local/share/opencode');
  const kiloDir = join(home, '.local/share/kilo');
  let dbs: OpenCodeDb[] = [];
  const env = cleanEnv(home);
  const ids: Record<string, string> = {};
  let upgrade: () => void;
  afterAll(() => {
    dbs.forEach((d) => d.close());
    rmSync(home, { recursive: true, force: true });
  });

  beforeAll(() => {
    mkdirSync(dataDir, { recursive: true });
    mkdirSync(kiloDir, { recursive: true });
    const main = new OpenCodeDb(join(dataDir, 'opencode.db'), 'v1');
    // The case: three responses (two steps of one message, one of the next), a fork of all of it, one new turn in the fork.
    const src = main.v1Session({ directory: '/work/forked', model: SONNET });
    src.user();
    src.assistant([
      { input: 100, output: 10, cost: 0.001 },
      { input: 200, output: 20, cacheRead: 1000, cost: 0.002 },
    ]);
    src.user();
    src.assistant([{ input: 300, output: 30, cost: 0.003 }]);
    const fork = src.fork();
    fork.user();
    fork.assistant([{ input: 400, output: 40, cost: 0.004 }]);
    // A fork before the second message, and a fork of that fork: only the first message is copied (twice).
    const part = main.v1Session({ directory: '/work/partial', model: SONNET });
    part.user();
    part.assistant([{ input: 1000, output: 100, cost: 0.01 }]);
    const second = part.user();
    part.assistantWithoutParts({ input: 2000, output: 200, cost: 0.02 });
    const early = part.fork({ before: second });
    early.user();
    early.assistantWithoutParts({ input: 3000, output: 300, cost: 0.03 });
    const earlier = early.fork();
    // A fork whose source was deleted afterwards: its copy is all that is left, and counts (once).
    const gone = main.v1Session({ directory: '/work/gone', model: SONNET });
    gone.user();
    gone.assistant([{ input: 5000, output: 500, cost: 0.05 }]);
    const orphan = gone.fork();
    for (const t of ['part', 'message', 'session'])
      main.writer.prepare(`DELETE FROM ${t} WHERE ${t === 'session' ? 'id' : 'session_id'} = ?`).run(gone.id);
    Object.assign(ids, {
      src: src.id,
      fork: fork.id,
      part: part.id,
      early: early.id,
      earlier: earlier.id,
      orphan: orphan.id,
    });

    // Kilo before June 2026: a fork copied every sub-agent session too (its child under the fork).
    const kilo = new OpenCodeDb(join(kiloDir, 'kilo.db'), 'v1');
    const parent = kilo.v1Session({ directory: '/work/kilo', model: SONNET });
    parent.user();
    parent.assistant([{ input: 10, output: 1, cost: 0.0001 }]);
    const child = kilo.v1Session({ directory: '/work/kilo', model: SONNET, parentId: parent.id });
    child.user();
    child.assistant([
      { input: 20, output: 2, cost: 0.0002 },
      { input: 30, output: 3, cost: 0.0003 },
    ]);
    const parentCopy = parent.fork();
    child.fork({ parentId: parentCopy.id });
    parentCopy.user();
    parentCopy.assistant([{ input: 40, output: 4, cost: 0.0004 }]);

    // 1.x then 2.x: a 1.x database (a multi-step message, a message without parts, a fork), upgraded in place and continued.
    const old = new OpenCodeDb(join(dataDir, 'opencode-old.db'), 'v1', { baseTime: main.startedAt + 3 * DAY });
    const u = old.v1Session({ directory: '/work/upgraded', model: SONNET });
    u.user();
    u.assistant([
      { input: 700, output: 70, cost: 0.007 },
      { input: 800, output: 80, cacheRead: 900, cost: 0.008 },
    ]);
    u.user();
    u.assistantWithoutParts({ input: 600, output: 60, cost: 0.006 });
    const v = u.fork();
    v.user();
    v.assistant([{ input: 900, output: 90, cost: 0.009 }]);
    Object.assign(ids, { u: u.id, v: v.id });
    upgrade = () => {
      const continued = importV1(old, [u, v]);
      const cu = continued.get(u.id)!;
      cu.user();
      cu.step({ input: 1100, output: 110, cost: 0.011 });
      cu.title({ input: 50, output: 5, cost: 0.0005 });
      cu.idle();
      continued.get(v.id)!.step({ input: 1200, output: 120, cost: 0.012 });
    };
    // 1.x since 1.16.0: session.cost and tokens_* hold running totals. Never added to the
    // messages: only what no message holds (a title, 40/4; usage only the session kept, 500/50) is.
    const tot = new OpenCodeDb(join(dataDir, 'opencode-totals.db'), 'v1', { baseTime: main.startedAt + 5 * DAY });
    for (const c of [
      'cost real DEFAULT 0 NOT NULL',
      ...['input', 'output', 'reasoning', 'cache_read', 'cache_write'].map(
        (k) => `tokens_${k} integer DEFAULT 0 NOT NULL`,
      ),
    ]) {
      tot.writer.exec(`ALTER TABLE session ADD COLUMN ${c}`);
    }
    const totals = (id: string, input: number, output: number, cost: number) =>
      tot.writer
        .prepare('UPDATE session SET cost = ?, tokens_input = ?, tokens_output = ? WHERE id = ?')
        .run(cost, input, output, id);
    const t1 = tot.v1Session({ directory: '/work/totals', model: SONNET });
    t1.user();
    t1.assistant([
      { input: 100, output: 10, cost: 0.001 },
      { input: 200, output: 20, cost: 0.002 },
    ]);
    totals(t1.id, 340, 34, 0.0034);
    const t2 = tot.v1Session({ directory: '/work/totals', model: SONNET });
    t2.user();
    t2.assistant([{ input: 0, output: 0, cost: 0 }]);
    totals(t2.id, 500, 50, 0.005);
    const t3 = t1.fork();
    t3.user();
    t3.assistant([{ input: 70, output: 7, cost: 0.0007 }]);
    totals(t3.id, 70, 7, 0.0007);
    Object.assign(ids, { t1: t1.id, t2: t2.id, t3: t3.id });
    dbs = [main, kilo, old, tot];
  });

  it('counts each copied response once, with its original; a fork adds only its own turns', () => {
    const j = reportJson([...RANGE, '--by', 'harness,session'], env);
    const row = (s: string) => j.rows.find((r: any) => r.session === s);
    // The case: 4 requests, not 7 (a+b, c in the source; d in the fork).
    expectRow(
      row(ids.src!),
      { requests: 3, input_tokens: 600, output_tokens: 60, cache_read_tokens: 1000, cost_usd: 0.006 },
      'source',
    );
    expectRow(
      row(ids.fork!),
      { requests: 1, input_tokens: 400, output_tokens: 40, cache_read_tokens: 0, cost_usd: 0.004 },
      'fork',
    );
    expectRow(
      row(ids.part!),
      { requests: 2, input_tokens: 3000, output_tokens: 300, cache_read_tokens: 0, cost_usd: 0.03 },
      'partial source',
    );
    expectRow(
      row(ids.early!),
      { requests: 1, input_tokens: 3000, output_tokens: 300, cache_read_tokens: 0, cost_usd: 0.03 },
      'early fork',
    );
    expect(row(ids.earlier!), 'a fork of a fork holding copies only').toBeUndefined();
    // The source is gone: its response counts once, under the fork that kept it.
    expectRow(
      row(ids.orphan!),
      { requests: 1, input_tokens: 5000, output_tokens: 500, cache_read_tokens: 0, cost_usd: 0.05 },
      'orphaned fork',
    );
    // Kilo: parent 10/1, child 20/2 + 30/3, the fork's own turn 40/4 — the child's copy adds nothing.
    const kilo = j.rows.filter((r: any) => r.harness === 'kilo-code');
    expect(kilo.map((r: any) => r.requests).reduce((a: number, b: number) => a + b)).toBe(4);
    expect(kilo.map((r: any) => r.input_tokens).reduce((a: number, b: number) => a + b)).toBe(100);
    expect(kilo.map((r: any) => r.cost_usd).reduce((a: number, b: number) => a + b)).toBeCloseTo(0.001, 9);
    // 1.x before the upgrade: 700+800, 600, the fork's 900.
    expectRow(
      row(ids.u!),
      { requests: 3, input_tokens: 2100, output_tokens: 210, cache_read_tokens: 900, cost_usd: 0.021 },
      '1.x session',
    );
    expectRow(
      row(ids.v!),
      { requests: 1, input_tokens: 900, output_tokens: 90, cache_read_tokens: 0, cost_usd: 0.009 },
      '1.x fork',
    );
    // Session totals: the steps (100+200), then the title (40/4) no message holds; a session whose
    // only step recorded zeros, its totals (500/50, as a residual without a request); the fork its own 70/7.
    expectRow(
      row(ids.t1!),
      { requests: 2, input_tokens: 340, output_tokens: 34, cache_read_tokens: 0, cost_usd: 0.0034 },
      'totals beyond the steps',
    );
    expectRow(
      row(ids.t2!),
      { requests: 1, input_tokens: 500, output_tokens: 50, cache_read_tokens: 0, cost_usd: 0.005 },
      'totals only',
    );
    expectRow(
      row(ids.t3!),
      { requests: 1, input_tokens: 70, output_tokens: 7, cache_read_tokens: 0, cost_usd: 0.0007 },
      'fork with totals of its own',
    );
    const oc = j.rows.filter((r: any) => r.harness === 'opencode');
    expect(oc.map((r: any) => r.requests).reduce((a: number, b: number) => a + b)).toBe(
      3 + 1 + 2 + 1 + 1 + 3 + 1 + 2 + 1 + 1,
    );
  });

  it('explain names each copy by the rule that made it one, counted where its original is', () => {
    const r = runCli(['explain', join(dataDir, 'opencode.db'), '--format', 'json'], env);
    expect(r.status, r.stderr).toBe(0);
    const records = JSON.parse(r.stdout).sources.flatMap((s: any) => s.records);
    const copies = records.filter((x: any) => x.rule === 'Forks (1.x)');
    // fork: 3 copies; early: 1; earlier: 2 (early's copy and early's own message); orphan: 1 (counted: its source is gone).
    expect(copies).toHaveLength(7);
    expect(copies.filter((x: any) => x.counted)).toHaveLength(1);
    const ofSource = copies.filter((x: any) => x.session_id === ids.fork);
    expect(ofSource.every((x: any) => x.counted_as.startsWith(`copy of ${ids.src}'s response`))).toBe(true);
  });

  it('1.x turns imported into 2.x and continued there count once, each 1.x step as before the upgrade', () => {
    upgrade();
    const j = reportJson([...RANGE, '--by', 'session', '--harness', 'opencode'], env);
    const row = (s: string) => j.rows.find((r: any) => r.session === s);
    // The imported rows hold only their last step's tokens; the 1.x steps still count one by one (700+800+600),
    // then the 2.x turn (1100) and the title (50/5, a residual of the session totals without a request).
    expectRow(
      row(ids.u!),
      { requests: 4, input_tokens: 3250, output_tokens: 325, cache_read_tokens: 900, cost_usd: 0.0325 },
      'continued session',
    );
    expectRow(
      row(ids.v!),
      { requests: 2, input_tokens: 2100, output_tokens: 210, cache_read_tokens: 0, cost_usd: 0.021 },
      'continued fork',
    );
    expect(j.warnings).toEqual([]);
  });
});
