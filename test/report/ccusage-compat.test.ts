// ccusage 20's commands and JSON, as they are (issue 44): the real ccusage
// 20.0.24 (installed as the benchmark installs it, bench/ccusage.ts) and
// tx-usage run on one fixture home. Every key path of ccusage's JSON, with
// its JSON type, is in ours, for daily, weekly, monthly, session, blocks and
// a per-agent report; the token totals agree per agent and the costs where
// both price the model alike. An unpriced model is written as ccusage writes
// it (cost 0, missingPricing, unpricedModels) and marked costPartial.
import { rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CCUSAGE_VERSION, findCcusage } from '../../bench/ccusage.js';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { newContext, writeRollout, writer, id as codexId } from '../../fixtures/codex/home.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

type Json = any;

/** Every key path of a JSON value with the JSON types seen there (`$.daily[].period` → string). */
function keyPaths(v: unknown, path = '$', acc = new Map<string, Set<string>>()): Map<string, Set<string>> {
  const type = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
  (acc.get(path) ?? acc.set(path, new Set()).get(path)!).add(type);
  if (Array.isArray(v)) for (const x of v) keyPaths(x, `${path}[]`, acc);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) keyPaths(x, `${path}.${/^(gpt|o\d|claude)/.test(k) ? '<model>' : k}`, acc);
  return acc;
}

/** ccusage's key paths (and types) that ours lacks. */
function missing(theirs: Json, ours: Json): string[] {
  const a = keyPaths(theirs);
  const b = keyPaths(ours);
  const out: string[] = [];
  for (const [p, types] of a) for (const t of types) if (!b.get(p)?.has(t)) out.push(`${p} ${t}`);
  return out;
}

const UNPRICED = 'claude-made-up-9';
const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();

let home: string;
/** The first Claude Code session's id (session --id). */
let sessionA = '';
let env: NodeJS.ProcessEnv;
let ccusage: { cmd: string; version: string } | null = null;
let installDir: string | null = null;

function buildHome(h: string): void {
  const claude = new ClaudeHome(join(h, '.claude'));
  // Two finished days and an unpriced model, priced alike by both (Sonnet 4.5's list prices).
  const a = claude.session({ cwd: '/home/user/webshop' });
  sessionA = a.sessionId;
  a.user('2026-10-05T09:00:00.000Z');
  a.response({
    ts: '2026-10-05T09:01:00.000Z',
    model: 'claude-sonnet-4-5-20250929',
    usage: { input: 1200, output: 800, cacheRead: 30_000, cacheWrite5m: 4000 },
  });
  a.response({
    ts: '2026-10-06T10:02:00.000Z',
    model: 'claude-sonnet-4-5-20250929',
    usage: { input: 300, output: 150, cacheRead: 12_000 },
  });
  const b = claude.session({ cwd: '/home/user/tools' });
  b.user('2026-10-06T11:00:00.000Z');
  b.response({ ts: '2026-10-06T11:01:00.000Z', model: UNPRICED, usage: { input: 50, output: 70, cacheRead: 900 } });
  // The active block: responses 40 and 10 minutes ago.
  const c = claude.session({ cwd: '/home/user/webshop' });
  c.user(iso(NOW - 41 * 60_000));
  c.response({
    ts: iso(NOW - 40 * 60_000),
    model: 'claude-sonnet-4-5-20250929',
    usage: { input: 500, output: 600, cacheRead: 8000 },
  });
  c.response({
    ts: iso(NOW - 10 * 60_000),
    model: 'claude-sonnet-4-5-20250929',
    usage: { input: 400, output: 300, cacheRead: 9000 },
  });
  // Codex: one rollout, two responses of gpt-5.
  const ctx = newContext(join(h, '.codex'), 7);
  const start = Date.UTC(2026, 9, 7, 9, 0, 0);
  const w = writer(ctx, {
    threadId: codexId(0xc0c0),
    start,
    paginated: false,
    label: 'compat',
    project: '/home/user/api',
    cacheWriteField: false,
  });
  w.sessionMeta().turn('gpt-5', '/home/user/api');
  w.response({ input: 5000, cached: 3000, cacheWrite: 0, output: 700, reasoning: 300 });
  w.response({ input: 7000, cached: 6000, cacheWrite: 0, output: 400, reasoning: 100 }).endTurn();
  writeRollout(ctx, w);
}

beforeAll(() => {
  home = tempDir('txu-ccusage-');
  buildHome(home);
  env = cleanEnv(home);
  // An install outside the repo (the benchmark's) is reused; else one under this file's TMPDIR, removed after.
  const shared = join(process.env.TX_USAGE_TEST_REAL_TMPDIR ?? tmpdir(), 'tx-usage-bench');
  ccusage = findCcusage(shared, [], () => undefined);
  if (!ccusage) {
    installDir = join(tmpdir(), 'ccusage-install');
    ccusage = findCcusage(installDir, [], (s) => process.stderr.write(`${s}\n`));
  }
}, 300_000);

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  if (installDir) rmSync(installDir, { recursive: true, force: true });
});

function theirs(args: string[]): Json {
  expect(
    ccusage,
    `ccusage ${CCUSAGE_VERSION} could not be installed (npm install ccusage@${CCUSAGE_VERSION}); this test needs it`,
  ).not.toBeNull();
  const r = spawnSync(ccusage!.cmd, [...args, '--json', '--offline'], {
    env: {
      PATH: env.PATH,
      HOME: home,
      TZ: 'UTC',
      NO_COLOR: '1',
      XDG_CONFIG_HOME: env.XDG_CONFIG_HOME,
      XDG_CACHE_HOME: join(home, '.ccusage-cache'),
    },
    encoding: 'utf8',
  });
  expect(r.status, `ccusage ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

function ours(args: string[]): Json {
  const r = runCli([...args, '--json'], env);
  expect(r.status, `tx-usage ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

const tokens = (t: Json) => ({
  inputTokens: t.inputTokens,
  outputTokens: t.outputTokens,
  cacheCreationTokens: t.cacheCreationTokens,
  cacheReadTokens: t.cacheReadTokens,
  totalTokens: t.totalTokens,
});

describe("ccusage's commands and JSON (ccusage " + CCUSAGE_VERSION + ')', () => {
  const cases: [string, string[]][] = [
    ['daily', ['daily']],
    ['daily --by-agent', ['daily', '--by-agent']],
    ['weekly', ['weekly']],
    ['monthly', ['monthly']],
    ['session', ['session']],
    ['blocks', ['blocks']],
    ['claude daily', ['claude', 'daily']],
    ['claude session', ['claude', 'session']],
    ['codex daily', ['codex', 'daily']],
  ];
  const withId = () => ['session', '--id', sessionA];
  const got = new Map<string, { cc: Json; tx: Json }>();
  beforeAll(() => {
    for (const [name, args] of cases) got.set(name, { cc: theirs(args), tx: ours(args) });
    got.set('session --id', { cc: theirs(withId()), tx: ours(withId()) });
  }, 300_000);

  it.each([...cases.map(([n]) => n), 'session --id'])(
    "%s: every key path of ccusage's JSON is in ours, with its type",
    (name) => {
      const { cc, tx } = got.get(name)!;
      expect(missing(cc, tx)).toEqual([]);
    },
  );

  it('the token totals agree, per agent and in all; the costs where both price the model alike', () => {
    const { cc, tx } = got.get('daily')!;
    expect(tokens(tx.totals)).toEqual(tokens(cc.totals));
    for (const agent of ['claude', 'codex']) {
      const a = got.get(`${agent} daily`)!;
      expect(tokens(a.tx.totals), agent).toEqual(tokens(a.cc.totals));
    }
    // Per day and model: the same tokens; the same cost (to a millionth of a dollar) for the models both price.
    const perModel = (doc: Json) =>
      new Map<string, Json>(
        doc.daily.flatMap((d: Json) => d.modelBreakdowns.map((m: Json) => [`${d.period} ${m.modelName}`, m])),
      );
    const a = perModel(cc);
    const b = perModel(tx);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [k, m] of a) {
      const o = b.get(k);
      expect(tokens({ ...o, totalTokens: 0 }), k).toEqual(tokens({ ...m, totalTokens: 0 }));
      if (!m.missingPricing) expect(Math.abs(o.cost - m.cost), k).toBeLessThan(1e-6);
    }
    expect(Math.abs(tx.totals.totalCost - cc.totals.totalCost)).toBeLessThan(1e-6);
  });

  it('an unpriced model: cost 0 as ccusage writes it, missingPricing, unpricedModels, and costPartial with what was left out', () => {
    const { cc, tx } = got.get('daily')!;
    expect(cc.totals.unpricedModels).toEqual([UNPRICED]);
    expect(tx.totals.unpricedModels).toEqual([UNPRICED]);
    const day = tx.daily.find((d: Json) => d.period === '2026-10-06');
    const m = day.modelBreakdowns.find((x: Json) => x.modelName === UNPRICED);
    expect({
      cost: m.cost,
      missingPricing: m.missingPricing,
      costSource: m.costSource,
      unpricedRequests: m.unpricedRequests,
    }).toEqual({ cost: 0, missingPricing: true, costSource: 'none', unpricedRequests: 1 });
    expect({ costPartial: day.costPartial, costSource: day.costSource, unpricedTokens: day.unpricedTokens }).toEqual({
      costPartial: true,
      costSource: 'partial',
      unpricedTokens: 50 + 70 + 900,
    });
    expect(tx.totals.costPartial).toBe(true);
  });

  it("session --id: the session's responses one by one, as ccusage lists them", () => {
    const { cc, tx } = got.get('session --id')!;
    const view = (e: Json) => ({ timestamp: e.timestamp, model: e.model, ...tokens({ ...e, totalTokens: 0 }) });
    expect(tx.entries.map(view)).toEqual(cc.entries.map(view));
    expect({ sessionId: tx.sessionId, totalTokens: tx.totalTokens }).toEqual({
      sessionId: cc.sessionId,
      totalTokens: cc.totalTokens,
    });
  });

  it('blocks: the same blocks, the active one with its burn rate and projection', () => {
    const { cc, tx } = got.get('blocks')!;
    const view = (b: Json) => ({
      id: b.id,
      isActive: b.isActive,
      isGap: b.isGap,
      entries: b.entries,
      totalTokens: b.totalTokens,
      tokenCounts: b.tokenCounts,
      burn: b.burnRate !== null,
      projection: b.projection !== null,
    });
    expect(tx.blocks.map(view)).toEqual(cc.blocks.map(view));
    expect(tx.blocks.filter((b: Json) => b.isActive)).toHaveLength(1);
  });

  it('per-agent reports are that agent alone; an agent tx-usage does not read is exit 2', () => {
    const { tx } = got.get('claude daily')!;
    expect(tx.daily.map((d: Json) => d.date)).toContain('2026-10-05');
    expect(tx.daily.flatMap((d: Json) => d.modelsUsed)).not.toContain('gpt-5');
    const r = runCli(['codebuff', 'daily'], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/tx-usage does not read codebuff's files/);
    // Goose and Hermes are read: their agent names run their harness alone (nothing of theirs in this home).
    const g = runCli(['goose', 'daily', '--json'], env);
    expect(g.status, g.stderr).toBe(0);
    expect(JSON.parse(g.stdout).daily).toEqual([]);
    // ccusage's short options, as its --help spells them.
    const s = runCli(['daily', '-j', '-s', '20261006', '-u', '20261006', '-z', 'UTC'], env);
    expect(s.status, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).daily.map((d: Json) => d.period)).toEqual(['2026-10-06']);
  });

  it('an empty home: ccusage-shaped JSON with nothing in it, and the three lines of the empty home on stderr', () => {
    const r = runCli(['daily', '--json'], cleanEnv(tempDir('txu-ccusage-empty-')));
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).daily).toEqual([]);
    expect(r.stderr.split('\n')[0]).toMatch(/^No harness data found/);
    expect(r.stderr).toContain('`tx-usage sources`');
    expect(r.stderr).not.toContain('\\n');
  });
});
