// `report blocks`: ccusage's 5-hour block rule on hand-computed fixtures
// (fixtures/live/blocks.ts), in all four formats. Every expected figure below
// is worked out by hand from the fixture's responses and prices:
//   r0 03-27 12:00Z  in 100  out 10                      $0.0003
//   r1 03-28 21:10Z  in 1000 out 100                     $0.003
//   r2 03-28 23:50Z  in 2000 out 200 cache rd 10000      $0.008
//   r3 03-29 01:59Z  in 500  out 50                      $0.0015
//   r4 03-29 02:00Z  in 300  out 30  cache wr 1000       $0.0034  (exactly 5 h after block 1's start: still in it)
//   r5 03-29 02:30Z  in 4000 out 400                     $0.012   (5.5 h after block 1's start: block 2, no gap)
//   r6 03-29 03:10Z  in 1000 out 1000                    $0.012
//   r7 03-29 09:20Z  in 6000 out 600                     $0.018   (6 h 10 m after r6: gap row 08:10Z-09:20Z, block 3)
//   r8 03-29 10:40Z  in 100  out 100  unpriced model     —
//   r9 03-29 10:45Z  in 2000 out 500                     $0.009
// now = 10:50Z. Europe/Berlin switches to summer time at 01:00Z on 03-29, so
// block 1 (21:00Z-02:00Z) runs 22:00+01:00 to 04:00+02:00: across midnight and the DST change.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { BLOCKS_NOW, buildBlocksHome, type BlocksHome } from '../../fixtures/live/blocks.js';
import { activeFigures, identifyBlocks, latestBlockFirstTs, type LiveEvent } from '../../src/live/blocks.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

const ev = (iso: string, tokens = 1): LiveEvent => ({
  harness: 'claude-code',
  session: 's',
  project: null,
  model: 'm',
  ts: Date.parse(iso),
  requests: 1,
  input: tokens,
  cache_read: 0,
  cache_write: 0,
  output: 0,
  reasoning: 0,
  cost_e10: null,
  computed_e10: null,
  recorded_e10: null,
  uses_recorded: false,
});
const iso = (ms: number) => new Date(ms).toISOString();

describe('identifyBlocks (ccusage _session-blocks rule)', () => {
  it('floors the start to the UTC hour, keeps a response exactly at the end, starts the next block after it', () => {
    const b = identifyBlocks('claude-code', [
      ev('2026-01-01T10:55:30Z'),
      ev('2026-01-01T15:00:00Z'),
      ev('2026-01-01T15:00:01Z'),
    ]);
    expect(b.map((x) => [iso(x.start), iso(x.end), x.isGap, x.events.length])).toEqual([
      ['2026-01-01T10:00:00.000Z', '2026-01-01T15:00:00.000Z', false, 2],
      ['2026-01-01T15:00:00.000Z', '2026-01-01T20:00:00.000Z', false, 1],
    ]);
  });

  it('a gap of more than 5 h between responses is a gap row from 5 h after the last response to the next one', () => {
    const b = identifyBlocks('claude-code', [
      ev('2026-01-01T10:30:00Z'),
      ev('2026-01-01T11:00:00Z'),
      ev('2026-01-01T16:00:00Z'),
      ev('2026-01-01T21:00:01Z'),
    ]);
    expect(b.map((x) => [iso(x.start), iso(x.end), x.isGap, x.events.length])).toEqual([
      ['2026-01-01T10:00:00.000Z', '2026-01-01T15:00:00.000Z', false, 2],
      // 16:00 is 5 h after 11:00 exactly: no gap, but more than 5 h after the block's start.
      ['2026-01-01T16:00:00.000Z', '2026-01-01T21:00:00.000Z', false, 1],
      ['2026-01-01T21:00:00.000Z', '2026-01-01T21:00:01.000Z', true, 0],
      ['2026-01-01T21:00:00.000Z', '2026-01-02T02:00:00.000Z', false, 1],
    ]);
  });

  it('sorts its input', () => {
    const b = identifyBlocks('x', [ev('2026-01-01T12:00:00Z'), ev('2026-01-01T10:00:00Z')]);
    expect(b.map((x) => x.events.map((e) => iso(e.ts)))).toEqual([
      ['2026-01-01T10:00:00.000Z', '2026-01-01T12:00:00.000Z'],
    ]);
  });
});

const METRIC_KEYS = [
  'requests',
  'input_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'total_tokens',
  'cost_usd',
  'cost_source',
  'computed_cost_usd',
  'recorded_cost_usd',
  'unpriced_requests',
  'unpriced_tokens',
];
const NOT_ACTIVE = {
  elapsed_minutes: null,
  remaining_minutes: null,
  tokens_per_minute_30m: null,
  cost_usd_per_hour_30m: null,
  tokens_per_minute_block: null,
  cost_usd_per_hour_block: null,
  projected_total_tokens: null,
  projected_cost_usd: null,
  projected_token_limit_share: null,
  cost_per_hour_30m_partial: null,
  cost_per_hour_block_partial: null,
};

describe('latestBlockFirstTs (where the live snapshot starts a chain)', () => {
  it('the fixture: r0 alone, then r1 starts block 1, r5 block 2, r7 block 3', () => {
    const t = [
      '2026-03-27T12:00:00Z',
      '2026-03-28T21:10:00Z',
      '2026-03-28T23:50:00Z',
      '2026-03-29T01:59:00Z',
      '2026-03-29T02:00:00Z',
      '2026-03-29T02:30:00Z',
      '2026-03-29T03:10:00Z',
      '2026-03-29T09:20:00Z',
      '2026-03-29T10:45:00Z',
    ].map((x) => Date.parse(x));
    const spans = (x: number[]) => x.map((v) => [v, v] as const);
    expect(latestBlockFirstTs([])).toBeNull();
    expect(iso(latestBlockFirstTs(spans(t.slice(0, 1)))!)).toBe('2026-03-27T12:00:00.000Z');
    expect(iso(latestBlockFirstTs(spans(t.slice(0, 5)))!)).toBe('2026-03-28T21:10:00.000Z'); // r4, exactly 5 h after block 1's start, stays in it
    expect(iso(latestBlockFirstTs(spans(t.slice(0, 7)))!)).toBe('2026-03-29T02:30:00.000Z');
    expect(iso(latestBlockFirstTs(spans(t))!)).toBe('2026-03-29T09:20:00.000Z');
  });

  it('blocks computed from the latest block before any instant equal those computed from the chain start (a history with no 5-hour pause)', () => {
    // A busy history: a response every 1–59 minutes for 20 days, so the
    // chain never breaks and every block is cut by the 5-hour rule alone.
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const ts: number[] = [];
    for (
      let t = Date.parse('2026-03-01T00:17:00Z');
      t < Date.parse('2026-03-21T00:00:00Z');
      t += Math.floor(1 + rand() * 59) * 60_000 + Math.floor(rand() * 60_000)
    )
      ts.push(t);
    const whole = identifyBlocks(
      'claude-code',
      ts.map((t) => ev(iso(t))),
    );
    expect(whole.some((b) => b.isGap)).toBe(false);
    for (const cut of [ts[10]!, ts[500]!, ts[Math.floor(ts.length / 2)]!, ts[ts.length - 3]!]) {
      const first = latestBlockFirstTs(ts.filter((t) => t <= cut).map((t) => [t, t] as const))!;
      const fromThere = identifyBlocks(
        'claude-code',
        ts.filter((t) => t >= first).map((t) => ev(iso(t))),
      );
      const same = whole.filter((b) => b.start >= fromThere[0]!.start);
      expect(fromThere.map((b) => [b.start, b.end, b.events.length])).toEqual(
        same.map((b) => [b.start, b.end, b.events.length]),
      );
      expect(fromThere[0]!.start).toBeLessThanOrEqual(cut); // the block that holds (or last precedes) the instant
      expect(cut - fromThere[0]!.start).toBeLessThanOrEqual(5 * 3_600_000 + 3_600_000);
    }
  });
});

describe('report blocks on the fixture', () => {
  let dir: string;
  let fx: BlocksHome;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[]) => {
    const r = runCli(['report', 'blocks', '--prices', fx.pricesFile, ...args], env);
    expect(r.status, r.stderr).toBe(0);
    return r;
  };
  const json = (args: string[]) => JSON.parse(run([...args, '--format', 'json']).stdout);

  beforeAll(() => {
    dir = tempDir('txu-blocks-');
    fx = buildBlocksHome(join(dir, 'home'));
    env = cleanEnv(fx.home, { TX_USAGE_NOW: BLOCKS_NOW });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('JSON in Europe/Berlin: blocks across midnight and the DST change, a gap row, the active block with its figures', () => {
    const j = json(['--tz', 'Europe/Berlin', '--since', '2026-03-28', '--until', '2026-03-29']);
    expect(Object.keys(j)).toEqual([
      'since',
      'until',
      'timezone',
      'harnesses',
      'now',
      'token_limit',
      'totals',
      'blocks',
      'warnings',
    ]);
    expect([j.since, j.until, j.timezone, j.harnesses, j.now, j.token_limit]).toEqual([
      '2026-03-28',
      '2026-03-29',
      'Europe/Berlin',
      ['claude-code'],
      '2026-03-29T12:50:00+02:00',
      null,
    ]);
    expect(j.blocks).toEqual([
      {
        harness: 'claude-code',
        start: '2026-03-28T22:00:00+01:00',
        end: '2026-03-29T04:00:00+02:00',
        is_gap: false,
        is_active: false,
        first_response: '2026-03-28T22:10:00+01:00',
        last_response: '2026-03-29T04:00:00+02:00',
        models: ['blk-test-model'],
        requests: 4,
        input_tokens: 3800,
        cache_read_tokens: 10000,
        cache_write_tokens: 1000,
        output_tokens: 380,
        reasoning_tokens: 0,
        total_tokens: 15180,
        cost_usd: 0.0159,
        cost_source: 'computed',
        computed_cost_usd: 0.0159,
        recorded_cost_usd: null,
        unpriced_requests: 0,
        unpriced_tokens: 0,
        token_limit_share: null,
        ...NOT_ACTIVE,
      },
      {
        harness: 'claude-code',
        start: '2026-03-29T04:00:00+02:00',
        end: '2026-03-29T09:00:00+02:00',
        is_gap: false,
        is_active: false,
        first_response: '2026-03-29T04:30:00+02:00',
        last_response: '2026-03-29T05:10:00+02:00',
        models: ['blk-test-model'],
        requests: 2,
        input_tokens: 5000,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        output_tokens: 1400,
        reasoning_tokens: 0,
        total_tokens: 6400,
        cost_usd: 0.024,
        cost_source: 'computed',
        computed_cost_usd: 0.024,
        recorded_cost_usd: null,
        unpriced_requests: 0,
        unpriced_tokens: 0,
        token_limit_share: null,
        ...NOT_ACTIVE,
      },
      {
        harness: 'claude-code',
        start: '2026-03-29T10:10:00+02:00',
        end: '2026-03-29T11:20:00+02:00',
        is_gap: true,
        is_active: false,
        first_response: null,
        last_response: null,
        models: [],
        requests: 0,
        input_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        output_tokens: 0,
        reasoning_tokens: 0,
        total_tokens: 0,
        cost_usd: null,
        cost_source: 'none',
        computed_cost_usd: null,
        recorded_cost_usd: null,
        unpriced_requests: 0,
        unpriced_tokens: 0,
        token_limit_share: null,
        ...NOT_ACTIVE,
      },
      {
        harness: 'claude-code',
        start: '2026-03-29T11:00:00+02:00',
        end: '2026-03-29T16:00:00+02:00',
        is_gap: false,
        is_active: true,
        first_response: '2026-03-29T11:20:00+02:00',
        last_response: '2026-03-29T12:45:00+02:00',
        models: ['blk-test-model', 'blk-unpriced-model'],
        requests: 3,
        input_tokens: 8100,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        output_tokens: 1200,
        reasoning_tokens: 0,
        total_tokens: 9300,
        // r8 has no price: the cost is the priced part and says how much is unpriced.
        cost_usd: 0.027,
        computed_cost_usd: 0.027,
        recorded_cost_usd: null,
        unpriced_requests: 1,
        unpriced_tokens: 200,
        cost_source: j.blocks[3].cost_source, // 'mixed' today; issue 25 names this case 'partial'
        token_limit_share: null,
        elapsed_minutes: 110,
        remaining_minutes: 190,
        // last 30 min (10:20Z-10:50Z): r8 + r9 = 2700 tokens / 30 min; priced $0.009 -> $0.018/h
        tokens_per_minute_30m: 90,
        cost_usd_per_hour_30m: 0.018,
        // since the first response (09:20Z, 90 min): 9300 / 90 = 103.33; $0.027 / 90 min -> $0.018/h
        tokens_per_minute_block: 103.3,
        cost_usd_per_hour_block: 0.018,
        // 9300 + 9300/90 x 190 = 28933.3; $0.027 + $0.018/h x 190/60 h = $0.084
        projected_total_tokens: 28933,
        projected_cost_usd: 0.084,
        projected_token_limit_share: null,
        // r8 (unpriced) falls in both windows: both rates, and the projection made from the block's, are lower bounds.
        cost_per_hour_30m_partial: true,
        cost_per_hour_block_partial: true,
      },
    ]);
    expect(['mixed', 'partial']).toContain(j.blocks[3].cost_source);
    const pick = (o: Record<string, unknown>) =>
      Object.fromEntries(METRIC_KEYS.filter((k) => k !== 'cost_source').map((k) => [k, o[k]]));
    expect(pick(j.totals)).toEqual({
      requests: 9,
      input_tokens: 16900,
      cache_read_tokens: 10000,
      cache_write_tokens: 1000,
      output_tokens: 2980,
      reasoning_tokens: 0,
      total_tokens: 30880,
      cost_usd: 0.0669,
      computed_cost_usd: 0.0669,
      recorded_cost_usd: null,
      unpriced_requests: 1,
      unpriced_tokens: 200,
    });
    expect(j.warnings.some((w: string) => w.includes('blk-unpriced-model'))).toBe(true);
  });

  it('a range starting after a block that crosses into it: blocks chain from before the range (the first block shown starts at r5, not r2)', () => {
    const j = json(['--tz', 'Europe/Berlin', '--since', '2026-03-29', '--until', '2026-03-29']);
    expect(j.blocks.map((b: any) => [b.start, b.is_gap, b.requests, b.total_tokens])).toEqual([
      ['2026-03-29T04:00:00+02:00', false, 2, 6400],
      ['2026-03-29T10:10:00+02:00', true, 0, 0],
      ['2026-03-29T11:00:00+02:00', false, 3, 9300],
    ]);
  });

  it('UTC, the whole history: the first block and the long gap after it; offsets written +00:00', () => {
    const j = json(['--tz', 'UTC', '--since', '2026-03-27', '--until', '2026-03-29']);
    expect(j.blocks.map((b: any) => [b.start, b.end, b.is_gap, b.requests, b.cost_usd])).toEqual([
      ['2026-03-27T12:00:00+00:00', '2026-03-27T17:00:00+00:00', false, 1, 0.0003],
      ['2026-03-27T17:00:00+00:00', '2026-03-28T21:10:00+00:00', true, 0, null],
      ['2026-03-28T21:00:00+00:00', '2026-03-29T02:00:00+00:00', false, 4, 0.0159],
      ['2026-03-29T02:00:00+00:00', '2026-03-29T07:00:00+00:00', false, 2, 0.024],
      ['2026-03-29T08:10:00+00:00', '2026-03-29T09:20:00+00:00', true, 0, null],
      ['2026-03-29T09:00:00+00:00', '2026-03-29T14:00:00+00:00', false, 3, 0.027],
    ]);
  });

  it("--token-limit N and max: each block's share, the active block's projected share", () => {
    const n = json(['--tz', 'UTC', '--since', '2026-03-28', '--until', '2026-03-29', '--token-limit', '20000']);
    expect(n.token_limit).toBe(20000);
    expect(n.blocks.map((b: any) => [b.token_limit_share, b.projected_token_limit_share])).toEqual([
      [0.759, null], // 15180 / 20000
      [0.32, null],
      [null, null], // gap
      [0.465, 1.44665], // 9300 / 20000; 28933 / 20000
    ]);
    // max: the largest finished block in the range (block 1, 15180), never the active one or a gap
    const m = json(['--tz', 'UTC', '--since', '2026-03-28', '--until', '2026-03-29', '--token-limit', 'max']);
    expect(m.token_limit).toBe(15180);
    expect(m.blocks.map((b: any) => b.token_limit_share)).toEqual([1, 0.421607, null, 0.612648]);
    const bad = runCli(['report', 'blocks', '--token-limit', '12k'], env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--token-limit "12k"');
    const wrong = runCli(['report', '--token-limit', '5'], env);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('--token-limit is for report blocks');
  });

  it('--harness picks other families; a harness with no responses has no blocks', () => {
    const j = json(['--tz', 'UTC', '--since', '2026-03-28', '--harness', 'codex']);
    expect(j.harnesses).toEqual(['codex']);
    expect(j.blocks).toEqual([]);
  });

  it('table at 80 columns: one row per block, the gap and the active block marked, totals, the active block described', () => {
    const out = run([
      '--tz',
      'Europe/Berlin',
      '--since',
      '2026-03-28',
      '--until',
      '2026-03-29',
      '--token-limit',
      '20000',
    ]).stdout;
    expect(out).toBe(
      [
        '5-hour blocks (claude-code) 2026-03-28 – 2026-03-29 (Europe/Berlin)',
        // Money by the one rule (README "Money"): block costs in cents, burn rates per hour with four significant digits.
        'Block start       Status              Reqs  Total  Limit     Cost',
        '─────────────────────────────────────────────────────────────────',
        '2026-03-28 22:00                         4  15.2k  75.9%    $0.02',
        '2026-03-29 04:00                         2  6.40k  32.0%    $0.02',
        '2026-03-29 10:10  gap 1h 10m             0      0      —        —',
        '2026-03-29 11:00  ACTIVE 3h 10m left     3  9.30k  46.5%  ≥$0.03*',
        '─────────────────────────────────────────────────────────────────',
        'Total                                    9  30.9k      —  ≥$0.07*',
        'Active claude-code block: 1h 50m elapsed, 3h 10m left (ends 16:00). Burn 90',
        'tokens/min, ≥$0.01800/h over the last 30 min; 103 tokens/min, ≥$0.01800/h over',
        'the block. Projected at its end: 28.9k tokens, ≥$0.08 (144.7% of the 20.0k-token',
        'limit).',
        'Limit: 20.0k tokens per block.',
        '* 1 response (200 tokens) has no price: amounts marked * cover only the priced',
        'responses (≥: at least that much). The warnings name the models.',
        '',
      ].join('\n'),
    );
  });

  it("CSV: the table's columns, one line per block", () => {
    const out = run(['--tz', 'UTC', '--since', '2026-03-28', '--until', '2026-03-29', '--format', 'csv']).stdout;
    const lines = out.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'block,harness,start,end,status,models,requests,input_tokens,cache_read_tokens,cache_write_tokens,output_tokens,reasoning_tokens,total_tokens,cost_usd,cost_source,unpriced_requests,projected_total_tokens,projected_cost_usd',
    );
    expect(lines.slice(1)).toEqual([
      '2026-03-28 21:00,claude-code,2026-03-28T21:00:00+00:00,2026-03-29T02:00:00+00:00,,blk-test-model,4,3800,10000,1000,380,0,15180,0.0159,computed,0,,',
      '2026-03-29 02:00,claude-code,2026-03-29T02:00:00+00:00,2026-03-29T07:00:00+00:00,,blk-test-model,2,5000,0,0,1400,0,6400,0.024,computed,0,,',
      '2026-03-29 08:10,claude-code,2026-03-29T08:10:00+00:00,2026-03-29T09:20:00+00:00,gap 1h 10m,,0,0,0,0,0,0,0,,none,0,,',
      `2026-03-29 09:00,claude-code,2026-03-29T09:00:00+00:00,2026-03-29T14:00:00+00:00,ACTIVE 3h 10m left,"blk-test-model, blk-unpriced-model",3,8100,0,0,1200,0,9300,0.027,${JSON.parse(run(['--tz', 'UTC', '--since', '2026-03-29', '--format', 'json']).stdout).blocks.at(-1).cost_source},1,28933,0.084`,
    ]);
  });

  it('HTML: the blocks chart with the limit line, self-contained', () => {
    const file = join(dir, 'blocks.html');
    run([
      '--tz',
      'UTC',
      '--since',
      '2026-03-28',
      '--until',
      '2026-03-29',
      '--token-limit',
      '20000',
      '--format',
      'html',
      '--out',
      file,
    ]);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('data-chart="blocks-over-time"');
    const data = JSON.parse(/<script type="application\/json" id="tx-usage-data">(.*?)<\/script>/s.exec(html)![1]!);
    expect(data.data.blocks.map((r: any) => [r.start, r.total_tokens, r.token_limit, r.status])).toEqual([
      ['2026-03-28T21:00:00+00:00', 15180, 20000, 'finished'],
      ['2026-03-29T02:00:00+00:00', 6400, 20000, 'finished'],
      ['2026-03-29T09:00:00+00:00', 9300, 20000, 'active'],
    ]);
    expect(data.charts[0].spec.layer.map((l: any) => l.mark.type)).toEqual(['rect', 'rule']);
  });

  it('never replayed from the memo: the time left moves with the clock', () => {
    json(['--tz', 'UTC', '--since', '2026-03-29']);
    const memo = join(fx.home, '.cache', 'tx-usage', 'report-memo.json');
    const entries: { argv: string }[] = (() => {
      try {
        return JSON.parse(readFileSync(memo, 'utf8')).entries;
      } catch {
        return [];
      }
    })();
    expect(entries.filter((e) => e.argv.includes('blocks'))).toEqual([]);
  });
});

it('an active block with nothing in the last 30 minutes burns $0.00/h there (a known zero), not an unknown cost', () => {
  const t0 = Date.parse('2026-03-29T09:00:00.000Z');
  const ev = (min: number): LiveEvent => ({
    harness: 'claude-code',
    session: 's',
    project: null,
    model: 'm',
    ts: t0 + min * 60_000,
    requests: 1,
    input: 600,
    cache_read: 0,
    cache_write: 0,
    output: 0,
    reasoning: 0,
    cost_e10: 300_000_000n,
    computed_e10: 300_000_000n,
    recorded_e10: null,
    uses_recorded: false,
  });
  const a = activeFigures(
    { harness: 'claude-code', start: t0, end: t0 + 5 * 3_600_000, isGap: false, events: [ev(0), ev(30)] },
    t0 + 120 * 60_000,
  )!;
  expect(a.burn_30m).toEqual({ tokens_per_minute: 0, cost_usd_per_hour: 0, partial: false });
  // The block's own rate: 1200 tokens and $0.06 over 120 minutes.
  expect(a.burn_block).toEqual({ tokens_per_minute: 10, cost_usd_per_hour: 0.03, partial: false });
});
