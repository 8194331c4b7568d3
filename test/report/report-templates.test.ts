// Every report template run on a small in-memory store with known rows; the
// expected rows are worked out by hand from the rows inserted below.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupExpr, keysSlot } from '../../src/report/groups.js';
import { loadFragment, loadTemplate, parseTemplate, runTemplate, TemplateError } from '../../src/report/template.js';
import { packageRoot } from '../../src/core/package-root.js';
import type { Store } from '../../src/store/store.js';
import { ALL_HARNESSES, memoryStore, type TestContext, type TestEvent } from '../helpers/report-store.js';

// e0 is in the month before the range, e6 just after it (in UTC; in New York it is 28 Feb).
const E: Record<string, TestEvent> = {
  e0: {
    harness: 'claude-code',
    session: 's0',
    project: '/p/a',
    model: 'opus',
    ts: '2025-12-31T23:00:00Z',
    key: 'k0',
    input: 10,
    output: 10,
    computed_e10: 100,
  },
  e1: {
    harness: 'claude-code',
    session: 's1',
    project: '/p/a',
    model: 'opus',
    ts: '2026-01-10T10:00:00Z',
    key: 'k1',
    input: 100,
    cache_read: 1000,
    cache_write: 200,
    cache_write_5m: 150,
    output: 50,
    computed_e10: 1000,
  },
  e2: {
    harness: 'claude-code',
    session: 's1',
    project: '/p/a',
    model: 'opus',
    ts: '2026-01-11T10:00:00Z',
    key: 'k2',
    input: 10,
    cache_read: 2000,
    output: 100,
    computed_e10: 2000,
  },
  e3: {
    harness: 'codex',
    session: 's2',
    project: '/p/b',
    model: 'gpt-5',
    ts: '2026-01-20T12:00:00Z',
    key: 'k3',
    input: 500,
    cache_read: 500,
    output: 300,
    reasoning: 100,
  },
  e4: {
    harness: 'claude-code',
    session: 's3',
    project: '/p/a',
    model: 'sonnet',
    ts: '2026-02-03T09:00:00Z',
    key: 'k4',
    input: 50,
    cache_write: 1000,
    cache_write_1h: 400,
    output: 20,
    computed_e10: 500,
  },
  // A copy of e4 (fork) with less usage: billed_events keeps e4 only.
  e4copy: {
    harness: 'claude-code',
    session: 's3b',
    project: '/p/a',
    model: 'sonnet',
    ts: '2026-02-03T09:00:00Z',
    key: 'k4',
    rank: 1,
    input: 50,
    cache_write: 1000,
    output: 10,
    computed_e10: 400,
    file: '/fixture/fork.jsonl',
  },
  e5: {
    harness: 'opencode',
    session: 's4',
    project: '/p/b',
    model: 'gpt-5',
    provider: 'openai',
    ts: '2026-02-03T23:30:00Z',
    key: 'k5',
    input: 200,
    output: 40,
    recorded_e10: 3000,
    computed_e10: 2500,
  },
  e7: {
    harness: 'claude-code',
    session: 's3',
    project: '/p/a',
    model: 'sonnet',
    ts: '2026-02-04T09:00:00Z',
    key: 'k7',
    input: 5,
    output: 5,
  },
  e6: {
    harness: 'pi',
    session: 's5',
    project: '/p/c',
    model: 'm1',
    ts: '2026-03-01T02:00:00Z',
    key: 'k6',
    input: 1,
    output: 1,
  },
};
const ms = (k: string) => String(Date.parse(E[k]!.ts));

const CONTEXTS: TestContext[] = [
  {
    harness: 'cursor-agent',
    session: 'chat1',
    project: '/p/a',
    model: 'x',
    turns: 5,
    latest: 40000,
    max: 200000,
    peak: 60000,
    first: '2026-01-05T10:00:00Z',
    last: '2026-01-06T10:00:00Z',
  },
  { harness: 'cursor-agent', session: 'chat2', project: '/p/b', turns: 3, latest: 10000, peak: 15000 }, // no timestamps: always counted
  {
    harness: 'cursor-agent',
    session: 'chat3',
    project: '/p/b',
    turns: 2,
    latest: 1000,
    max: 100000,
    peak: 2000,
    first: '2025-11-01T10:00:00Z',
    last: '2025-11-01T11:00:00Z',
  },
];

let store: Store;
beforeAll(async () => {
  store = await memoryStore(Object.values(E), CONTEXTS);
});
afterAll(() => store?.close());

const params = (o: Partial<Record<string, unknown>> = {}) =>
  ({
    since: '2026-01-15',
    until: '2026-02-10',
    tz: 'UTC',
    harnesses: ALL_HARNESSES,
    project: '',
    models: [],
    cost_mode: 'auto',
    ...o,
  }) as Record<string, string | number | string[]>;

/** A monthly row: usage of the month, then the previous month's. */
function monthRow(o: Record<string, unknown>) {
  return {
    requests: '0',
    input_tokens: '0',
    cache_read_tokens: '0',
    cache_write_tokens: '0',
    output_tokens: '0',
    reasoning_tokens: '0',
    total_tokens: '0',
    cost_e10: '0',
    computed_cost_e10: null,
    recorded_cost_e10: null,
    usage_events: '0',
    priced_events: '0',
    recorded_events: '0',
    unpriced_requests: '0',
    unpriced_tokens: '0',
    sessions: '0',
    active_days: '0',
    session_grain_requests: '0',
    session_grain_tokens: '0',
    session_grain_cost_e10: null,
    previous_requests: '0',
    previous_total_tokens: '0',
    previous_cost_e10: '0',
    previous_usage_events: '0',
    previous_priced_events: '0',
    previous_recorded_events: '0',
    total_tokens_change: '0',
    total_tokens_change_ratio: null,
    cost_change_e10: '0',
    cost_change_ratio: null,
    ...o,
  };
}

describe('monthly.sql', () => {
  it('month totals: whole months, each against the month before (read only for that)', async () => {
    const rows = await runTemplate(store.conn, loadTemplate('monthly'), params({ until: '2026-02-28' }), {
      key: `'total'`,
    });
    expect(rows).toEqual([
      monthRow({
        month: '2026-01',
        key: 'total',
        requests: '3',
        input_tokens: '610',
        cache_read_tokens: '3500',
        cache_write_tokens: '200',
        output_tokens: '450',
        reasoning_tokens: '100',
        total_tokens: '4760',
        cost_e10: '3000',
        computed_cost_e10: '3000',
        usage_events: '3',
        priced_events: '2',
        unpriced_requests: '1',
        unpriced_tokens: '1300',
        sessions: '2',
        active_days: '3',
        previous_requests: '1',
        previous_total_tokens: '20',
        previous_cost_e10: '100',
        previous_usage_events: '1',
        previous_priced_events: '1',
        total_tokens_change: '4740',
        total_tokens_change_ratio: 237,
        cost_change_e10: '2900',
        cost_change_ratio: 29,
      }),
      monthRow({
        month: '2026-02',
        key: 'total',
        requests: '3',
        input_tokens: '255',
        cache_write_tokens: '1000',
        output_tokens: '65',
        total_tokens: '1320',
        cost_e10: '3500',
        computed_cost_e10: '3000',
        recorded_cost_e10: '3000',
        usage_events: '3',
        priced_events: '2',
        recorded_events: '1',
        unpriced_requests: '1',
        unpriced_tokens: '10',
        sessions: '2',
        active_days: '2',
        previous_requests: '3',
        previous_total_tokens: '4760',
        previous_cost_e10: '3000',
        previous_usage_events: '3',
        previous_priced_events: '2',
        total_tokens_change: '-3440',
        total_tokens_change_ratio: -3440 / 4760,
        cost_change_e10: '500',
        cost_change_ratio: 500 / 3000,
      }),
    ]);
  });

  it('months are cut in the report time zone', async () => {
    const rows = await runTemplate(
      store.conn,
      loadTemplate('monthly'),
      params({ until: '2026-02-28', tz: 'America/New_York' }),
      { key: `'total'` },
    );
    // e6 (01 Mar 02:00 UTC) is 28 Feb in New York.
    expect(rows[1]).toEqual(
      monthRow({
        month: '2026-02',
        key: 'total',
        requests: '4',
        input_tokens: '256',
        cache_write_tokens: '1000',
        output_tokens: '66',
        total_tokens: '1322',
        cost_e10: '3500',
        computed_cost_e10: '3000',
        recorded_cost_e10: '3000',
        usage_events: '4',
        priced_events: '2',
        recorded_events: '1',
        unpriced_requests: '2',
        unpriced_tokens: '12',
        sessions: '3',
        active_days: '3',
        previous_requests: '3',
        previous_total_tokens: '4760',
        previous_cost_e10: '3000',
        previous_usage_events: '3',
        previous_priced_events: '2',
        total_tokens_change: '-3438',
        total_tokens_change_ratio: -3438 / 4760,
        cost_change_e10: '500',
        cost_change_ratio: 500 / 3000,
      }),
    );
  });

  it('per model: keys of this or the previous month, unknown costs stay unknown, a dropped key shows its fall', async () => {
    const rows = await runTemplate(store.conn, loadTemplate('monthly'), params({ until: '2026-02-28' }), {
      key: groupExpr('model'),
    });
    expect(rows).toEqual([
      monthRow({
        month: '2026-01',
        key: 'opus',
        requests: '2',
        input_tokens: '110',
        cache_read_tokens: '3000',
        cache_write_tokens: '200',
        output_tokens: '150',
        total_tokens: '3460',
        cost_e10: '3000',
        computed_cost_e10: '3000',
        usage_events: '2',
        priced_events: '2',
        sessions: '1',
        active_days: '2',
        previous_requests: '1',
        previous_total_tokens: '20',
        previous_cost_e10: '100',
        previous_usage_events: '1',
        previous_priced_events: '1',
        total_tokens_change: '3440',
        total_tokens_change_ratio: 172,
        cost_change_e10: '2900',
        cost_change_ratio: 29,
      }),
      monthRow({
        month: '2026-01',
        key: 'gpt-5',
        requests: '1',
        input_tokens: '500',
        cache_read_tokens: '500',
        output_tokens: '300',
        reasoning_tokens: '100',
        total_tokens: '1300',
        cost_e10: null,
        usage_events: '1',
        unpriced_requests: '1',
        unpriced_tokens: '1300',
        sessions: '1',
        active_days: '1',
        total_tokens_change: '1300',
        cost_change_e10: null,
      }),
      monthRow({
        month: '2026-02',
        key: 'gpt-5',
        requests: '1',
        input_tokens: '200',
        output_tokens: '40',
        total_tokens: '240',
        cost_e10: '3000',
        computed_cost_e10: '2500',
        recorded_cost_e10: '3000',
        usage_events: '1',
        priced_events: '1',
        recorded_events: '1',
        sessions: '1',
        active_days: '1',
        previous_requests: '1',
        previous_total_tokens: '1300',
        previous_cost_e10: null,
        previous_usage_events: '1',
        total_tokens_change: '-1060',
        total_tokens_change_ratio: -1060 / 1300,
        cost_change_e10: null,
      }),
      monthRow({
        month: '2026-02',
        key: 'sonnet',
        requests: '2',
        input_tokens: '55',
        cache_write_tokens: '1000',
        output_tokens: '25',
        total_tokens: '1080',
        cost_e10: '500',
        computed_cost_e10: '500',
        usage_events: '2',
        priced_events: '1',
        unpriced_requests: '1',
        unpriced_tokens: '10',
        sessions: '1',
        active_days: '2',
        total_tokens_change: '1080',
        cost_change_e10: '500',
      }),
      monthRow({
        month: '2026-02',
        key: 'opus',
        previous_requests: '2',
        previous_total_tokens: '3460',
        previous_cost_e10: '3000',
        previous_usage_events: '2',
        previous_priced_events: '2',
        total_tokens_change: '-3460',
        total_tokens_change_ratio: -1,
        cost_change_e10: '-3000',
        cost_change_ratio: -1,
      }),
    ]);
  });

  it('a month cut short is compared with the same days of the month before; a key absent from both is not listed', async () => {
    // Until 10 Feb: February's days 1–10 against January's days 1–10, which hold
    // e1 only (e2 is on the 11th, codex's e3 on the 20th: codex is in neither).
    const rows = await runTemplate(store.conn, loadTemplate('monthly'), params({ until: '2026-02-10' }), {
      key: groupExpr('harness'),
    });
    expect(rows.filter((r) => r.month === '2026-02')).toEqual([
      monthRow({
        month: '2026-02',
        key: 'opencode',
        requests: '1',
        input_tokens: '200',
        output_tokens: '40',
        total_tokens: '240',
        cost_e10: '3000',
        computed_cost_e10: '2500',
        recorded_cost_e10: '3000',
        usage_events: '1',
        priced_events: '1',
        recorded_events: '1',
        sessions: '1',
        active_days: '1',
        total_tokens_change: '240',
        cost_change_e10: '3000',
      }),
      monthRow({
        month: '2026-02',
        key: 'claude-code',
        requests: '2',
        input_tokens: '55',
        cache_write_tokens: '1000',
        output_tokens: '25',
        total_tokens: '1080',
        cost_e10: '500',
        computed_cost_e10: '500',
        usage_events: '2',
        priced_events: '1',
        unpriced_requests: '1',
        unpriced_tokens: '10',
        sessions: '1',
        active_days: '2',
        previous_requests: '1',
        previous_total_tokens: '1350',
        previous_cost_e10: '1000',
        previous_usage_events: '1',
        previous_priced_events: '1',
        total_tokens_change: '-270',
        total_tokens_change_ratio: -0.2,
        cost_change_e10: '-500',
        cost_change_ratio: -0.5,
      }),
    ]);
    // January is whole: against the whole of December (e0), codex listed.
    expect(rows.filter((r) => r.month === '2026-01').map((r) => [r.key, r.previous_requests])).toEqual([
      ['claude-code', '1'],
      ['codex', '0'],
    ]);
  });

  it('honours the harness and project filters and the cost mode', async () => {
    const rows = await runTemplate(
      store.conn,
      loadTemplate('monthly'),
      params({ until: '2026-02-28', harnesses: ['opencode'], project: '/p/b', cost_mode: 'computed' }),
      { key: `'total'` },
    );
    expect(rows).toEqual([
      monthRow({
        month: '2026-02',
        key: 'total',
        requests: '1',
        input_tokens: '200',
        output_tokens: '40',
        total_tokens: '240',
        cost_e10: '2500',
        computed_cost_e10: '2500',
        recorded_cost_e10: '3000',
        usage_events: '1',
        priced_events: '1',
        sessions: '1',
        active_days: '1',
        total_tokens_change: '240',
        cost_change_e10: '2500',
      }),
    ]);
  });

  it('honours the model filter: exact ids, any of a list, [] for any', async () => {
    const total = async (models: string[]) =>
      (
        await runTemplate(store.conn, loadTemplate('monthly'), params({ until: '2026-02-28', models }), {
          key: `'total'`,
        })
      ).map((r) => [r.month, r.requests]);
    expect(await total(['gpt-5'])).toEqual([
      ['2026-01', '1'],
      ['2026-02', '1'],
    ]); // e3 (codex), e5 (opencode)
    expect(await total(['opus', 'sonnet'])).toEqual([
      ['2026-01', '2'],
      ['2026-02', '2'],
    ]); // e1, e2; e4 (its fork copy counted once), e7
    expect(await total(['gpt'])).toEqual([]); // exact, not a substring
    expect(await total([])).toEqual(await total(['opus', 'sonnet', 'gpt-5', 'm1']));
  });
});

const metricsRow = (o: Record<string, unknown>) => ({
  input_tokens: '0',
  cache_read_tokens: '0',
  cache_write_tokens: '0',
  output_tokens: '0',
  reasoning_tokens: '0',
  computed_cost_e10: null,
  recorded_cost_e10: null,
  recorded_events: '0',
  unpriced_requests: '0',
  unpriced_tokens: '0',
  ...o,
});

describe('monthly_sessions.sql', () => {
  // No units of work in this store: every session shows 0 prompts and 0 tool calls.
  const sessionRow = (o: Record<string, unknown>) => metricsRow({ ...o, prompts: '0', tool_calls: '0' });
  const s1 = sessionRow({
    month: '2026-01',
    rank: '1',
    harness: 'claude-code',
    session: 's1',
    project: '/p/a',
    models: 'opus',
    requests: '2',
    input_tokens: '110',
    cache_read_tokens: '3000',
    cache_write_tokens: '200',
    output_tokens: '150',
    total_tokens: '3460',
    cost_e10: '3000',
    computed_cost_e10: '3000',
    usage_events: '2',
    priced_events: '2',
    first_ts_ms: ms('e1'),
    last_ts_ms: ms('e2'),
  });
  const s4 = sessionRow({
    month: '2026-02',
    rank: '1',
    harness: 'opencode',
    session: 's4',
    project: '/p/b',
    models: 'gpt-5',
    requests: '1',
    input_tokens: '200',
    output_tokens: '40',
    total_tokens: '240',
    cost_e10: '3000',
    computed_cost_e10: '2500',
    recorded_cost_e10: '3000',
    usage_events: '1',
    priced_events: '1',
    recorded_events: '1',
    first_ts_ms: ms('e5'),
    last_ts_ms: ms('e5'),
  });

  it('ranks sessions per month by cost, unpriced last', async () => {
    const rows = await runTemplate(store.conn, loadTemplate('monthly_sessions'), { ...params(), top: 5 });
    expect(rows).toEqual([
      s1,
      sessionRow({
        month: '2026-01',
        rank: '2',
        harness: 'codex',
        session: 's2',
        project: '/p/b',
        models: 'gpt-5',
        requests: '1',
        input_tokens: '500',
        cache_read_tokens: '500',
        output_tokens: '300',
        reasoning_tokens: '100',
        total_tokens: '1300',
        cost_e10: null,
        usage_events: '1',
        priced_events: '0',
        unpriced_requests: '1',
        unpriced_tokens: '1300',
        first_ts_ms: ms('e3'),
        last_ts_ms: ms('e3'),
      }),
      s4,
      sessionRow({
        month: '2026-02',
        rank: '2',
        harness: 'claude-code',
        session: 's3',
        project: '/p/a',
        models: 'sonnet',
        requests: '2',
        input_tokens: '55',
        cache_write_tokens: '1000',
        output_tokens: '25',
        total_tokens: '1080',
        cost_e10: '500',
        computed_cost_e10: '500',
        usage_events: '2',
        priced_events: '1',
        unpriced_requests: '1',
        unpriced_tokens: '10',
        first_ts_ms: ms('e4'),
        last_ts_ms: ms('e7'),
      }),
    ]);
  });

  it('lists at most `top` per month', async () => {
    expect(await runTemplate(store.conn, loadTemplate('monthly_sessions'), { ...params(), top: 1 })).toEqual([s1, s4]);
  });
});

describe('monthly_days.sql', () => {
  it('ranks days per month by cost, unpriced last', async () => {
    const rows = await runTemplate(store.conn, loadTemplate('monthly_days'), { ...params(), top: 5 });
    const day = (o: Record<string, unknown>) => metricsRow({ sessions: '1', usage_events: '1', ...o });
    expect(rows).toEqual([
      day({
        month: '2026-01',
        rank: '1',
        day: '2026-01-11',
        requests: '1',
        input_tokens: '10',
        cache_read_tokens: '2000',
        output_tokens: '100',
        total_tokens: '2110',
        cost_e10: '2000',
        computed_cost_e10: '2000',
        priced_events: '1',
      }),
      day({
        month: '2026-01',
        rank: '2',
        day: '2026-01-10',
        requests: '1',
        input_tokens: '100',
        cache_read_tokens: '1000',
        cache_write_tokens: '200',
        output_tokens: '50',
        total_tokens: '1350',
        cost_e10: '1000',
        computed_cost_e10: '1000',
        priced_events: '1',
      }),
      day({
        month: '2026-01',
        rank: '3',
        day: '2026-01-20',
        requests: '1',
        input_tokens: '500',
        cache_read_tokens: '500',
        output_tokens: '300',
        reasoning_tokens: '100',
        total_tokens: '1300',
        cost_e10: null,
        priced_events: '0',
        unpriced_requests: '1',
        unpriced_tokens: '1300',
      }),
      day({
        month: '2026-02',
        rank: '1',
        day: '2026-02-03',
        requests: '2',
        input_tokens: '250',
        cache_write_tokens: '1000',
        output_tokens: '60',
        total_tokens: '1310',
        cost_e10: '3500',
        computed_cost_e10: '3000',
        recorded_cost_e10: '3000',
        usage_events: '2',
        priced_events: '2',
        recorded_events: '1',
        sessions: '2',
      }),
      day({
        month: '2026-02',
        rank: '2',
        day: '2026-02-04',
        requests: '1',
        input_tokens: '5',
        output_tokens: '5',
        total_tokens: '10',
        cost_e10: null,
        priced_events: '0',
        unpriced_requests: '1',
        unpriced_tokens: '10',
      }),
    ]);
    expect(await runTemplate(store.conn, loadTemplate('monthly_days'), { ...params(), top: 1 })).toHaveLength(2);
  });
});

describe('monthly_costfit.sql', () => {
  it('sums of products per month, harness, provider and model over priced responses; 1h writes split out', async () => {
    const rows = await runTemplate(store.conn, loadTemplate('monthly_costfit'), params());
    // Independent sums over the priced responses the range holds (e1, e2 | e4, e5).
    const regressors = (e: TestEvent) => {
      const cw = e.cache_write ?? 0;
      const w1h =
        e.cache_write_1h ?? (e.cache_write_5m !== undefined && e.cache_write_5m !== null ? cw - e.cache_write_5m : 0);
      return { in: e.input ?? 0, cr: e.cache_read ?? 0, cw: cw - w1h, cw1h: w1h, out: e.output ?? 0 };
    };
    const sums = (month: string, harness: string, provider: string | null, model: string, list: TestEvent[]) => {
      const cost = (e: TestEvent) => e.recorded_e10 ?? e.computed_e10!;
      const out: Record<string, unknown> = {
        month,
        harness,
        provider,
        model,
        responses: String(list.length),
        cost_e10: String(list.reduce((s, e) => s + cost(e), 0)),
      };
      out.sum_cost = list.reduce((s, e) => s + cost(e), 0);
      out.sum_cost_cost = list.reduce((s, e) => s + cost(e) ** 2, 0);
      const names = ['in', 'cr', 'cw', 'cw1h', 'out'] as const;
      for (const a of names) out[`sum_${a}`] = list.reduce((s, e) => s + regressors(e)[a], 0);
      names.forEach((a, i) => {
        for (const b of names.slice(i))
          out[`sum_${a}_${b}`] = list.reduce((s, e) => s + regressors(e)[a] * regressors(e)[b], 0);
      });
      for (const a of names) out[`sum_${a}_cost`] = list.reduce((s, e) => s + regressors(e)[a] * cost(e), 0);
      return out;
    };
    expect(rows).toEqual([
      sums('2026-01', 'claude-code', null, 'opus', [E.e1!, E.e2!]),
      sums('2026-02', 'claude-code', null, 'sonnet', [E.e4!]),
      sums('2026-02', 'opencode', 'openai', 'gpt-5', [E.e5!]),
    ]);
    // The split the sums encode: e1 has 150 5-minute writes of 200, so 50 are 1-hour ones; e4 records 400 1-hour ones.
    expect([rows[0]!.sum_cw, rows[0]!.sum_cw1h, rows[1]!.sum_cw, rows[1]!.sum_cw1h]).toEqual([150, 50, 600, 400]);
  });
});

const compareRange = { since: '2026-01-01', until: '2026-02-28' };

function efficiencyRow(o: Record<string, unknown>) {
  return metricsRow({ reasoning_tokens: '0', ...o });
}

const CC = efficiencyRow({
  harness: 'claude-code',
  detail: '',
  requests: '4',
  input_tokens: '165',
  cache_read_tokens: '3000',
  cache_write_tokens: '1200',
  output_tokens: '175',
  total_tokens: '4540',
  cost_e10: '3500',
  computed_cost_e10: '3500',
  usage_events: '4',
  priced_events: '3',
  unpriced_requests: '1',
  unpriced_tokens: '10',
  sessions: '2',
  priced_sessions: '1',
  active_days: '4',
  cost_per_request_usd: 3500 / 3 / 1e10, // the 3 priced requests
  cost_per_session_usd: 3000 / 1 / 1e10, // s1 is fully priced; s3 (e7 unpriced) is not
  tokens_per_request: 4540 / 4,
  output_tokens_per_request: 175 / 4,
  cache_hit_rate: 3000 / 4365,
  cache_write_share: 1200 / 4365,
  reasoning_share: 0,
});
const CODEX = efficiencyRow({
  harness: 'codex',
  detail: '',
  requests: '1',
  input_tokens: '500',
  cache_read_tokens: '500',
  output_tokens: '300',
  reasoning_tokens: '100',
  total_tokens: '1300',
  cost_e10: null,
  usage_events: '1',
  priced_events: '0',
  unpriced_requests: '1',
  unpriced_tokens: '1300',
  sessions: '1',
  priced_sessions: '0',
  active_days: '1',
  cost_per_request_usd: null,
  cost_per_session_usd: null,
  tokens_per_request: 1300,
  output_tokens_per_request: 300,
  cache_hit_rate: 0.5,
  cache_write_share: 0,
  reasoning_share: 100 / 300,
});
const OPENCODE = efficiencyRow({
  harness: 'opencode',
  detail: '',
  requests: '1',
  input_tokens: '200',
  output_tokens: '40',
  total_tokens: '240',
  cost_e10: '3000',
  computed_cost_e10: '2500',
  recorded_cost_e10: '3000',
  usage_events: '1',
  priced_events: '1',
  recorded_events: '1',
  sessions: '1',
  priced_sessions: '1',
  active_days: '1',
  cost_per_request_usd: 3000 / 1 / 1e10,
  cost_per_session_usd: 3000 / 1 / 1e10,
  tokens_per_request: 240,
  output_tokens_per_request: 40,
  cache_hit_rate: 0,
  cache_write_share: 0,
  reasoning_share: 0,
});

describe('compare.sql', () => {
  it('per harness: efficiency figures over the same range, costs only from what is priced', async () => {
    const rows = await runTemplate(store.conn, loadTemplate('compare'), params(compareRange), { detail: `''` });
    expect(rows).toEqual([CC, CODEX, OPENCODE]);
  });

  it('per harness × model', async () => {
    const rows = await runTemplate(store.conn, loadTemplate('compare'), params(compareRange), {
      detail: groupExpr('model'),
    });
    expect(rows).toEqual([
      efficiencyRow({
        harness: 'claude-code',
        detail: 'opus',
        requests: '2',
        input_tokens: '110',
        cache_read_tokens: '3000',
        cache_write_tokens: '200',
        output_tokens: '150',
        total_tokens: '3460',
        cost_e10: '3000',
        computed_cost_e10: '3000',
        usage_events: '2',
        priced_events: '2',
        sessions: '1',
        priced_sessions: '1',
        active_days: '2',
        cost_per_request_usd: 3000 / 2 / 1e10,
        cost_per_session_usd: 3000 / 1 / 1e10,
        tokens_per_request: 3460 / 2,
        output_tokens_per_request: 150 / 2,
        cache_hit_rate: 3000 / 3310,
        cache_write_share: 200 / 3310,
        reasoning_share: 0,
      }),
      efficiencyRow({
        harness: 'claude-code',
        detail: 'sonnet',
        requests: '2',
        input_tokens: '55',
        cache_write_tokens: '1000',
        output_tokens: '25',
        total_tokens: '1080',
        cost_e10: '500',
        computed_cost_e10: '500',
        usage_events: '2',
        priced_events: '1',
        unpriced_requests: '1',
        unpriced_tokens: '10',
        sessions: '1',
        priced_sessions: '0',
        active_days: '2',
        cost_per_request_usd: 500 / 1 / 1e10,
        cost_per_session_usd: null,
        tokens_per_request: 540,
        output_tokens_per_request: 12.5,
        cache_hit_rate: 0,
        cache_write_share: 1000 / 1055,
        reasoning_share: 0,
      }),
      { ...CODEX, detail: 'gpt-5' },
      { ...OPENCODE, detail: 'gpt-5' },
    ]);
  });
});

describe('compare_context.sql', () => {
  it('context occupancy per harness, chats overlapping the range (or without timestamps)', async () => {
    const rows = await runTemplate(store.conn, loadTemplate('compare_context'), {
      ...compareRange,
      tz: 'UTC',
      harnesses: ALL_HARNESSES,
      project: '',
      models: [],
    });
    expect(rows).toEqual([
      {
        harness: 'cursor-agent',
        chats: '2',
        turns: '8',
        avg_latest_used_tokens: 25000,
        avg_peak_used_tokens: 37500,
        max_peak_used_tokens: '60000',
        max_window_tokens: '200000',
        avg_latest_occupancy: 0.2,
        avg_peak_occupancy: 0.3,
      },
    ]);
  });
});

describe('summary.sql and context.sql', () => {
  it('summary per harness, Cursor chats as zero-usage rows', async () => {
    const rows = await runTemplate(store.conn, loadTemplate('summary'), params(compareRange), {
      keys: keysSlot(['harness']),
    });
    // Every row here is one response's (grain response): nothing rests on session totals.
    const zero = {
      requests: '0',
      input_tokens: '0',
      cache_read_tokens: '0',
      cache_write_tokens: '0',
      cache_write_1h_tokens: '0',
      output_tokens: '0',
      reasoning_tokens: '0',
      total_tokens: '0',
      session_grain_requests: '0',
      session_grain_tokens: '0',
      session_grain_cost_e10: null,
    };
    expect(rows).toEqual([
      {
        ...zero,
        harness: 'claude-code',
        requests: '4',
        input_tokens: '165',
        cache_read_tokens: '3000',
        cache_write_tokens: '1200',
        cache_write_1h_tokens: '400',
        output_tokens: '175',
        total_tokens: '4540',
        cost_e10: '3500',
        computed_cost_e10: '3500',
        recorded_cost_e10: null,
        usage_events: '4',
        priced_events: '3',
        recorded_events: '0',
        sessions: '2',
        active_days: '4',
        unpriced_requests: '1',
        unpriced_tokens: '10',
      },
      {
        ...zero,
        harness: 'codex',
        requests: '1',
        input_tokens: '500',
        cache_read_tokens: '500',
        output_tokens: '300',
        reasoning_tokens: '100',
        total_tokens: '1300',
        cost_e10: null,
        computed_cost_e10: null,
        recorded_cost_e10: null,
        usage_events: '1',
        priced_events: '0',
        recorded_events: '0',
        sessions: '1',
        active_days: '1',
        unpriced_requests: '1',
        unpriced_tokens: '1300',
      },
      {
        ...zero,
        harness: 'cursor-agent',
        cost_e10: null,
        computed_cost_e10: null,
        recorded_cost_e10: null,
        usage_events: '0',
        priced_events: '0',
        recorded_events: '0',
        sessions: '1',
        active_days: '1',
        unpriced_requests: '0',
        unpriced_tokens: '0',
      },
      {
        ...zero,
        harness: 'opencode',
        requests: '1',
        input_tokens: '200',
        output_tokens: '40',
        total_tokens: '240',
        cost_e10: '3000',
        computed_cost_e10: '2500',
        recorded_cost_e10: '3000',
        usage_events: '1',
        priced_events: '1',
        recorded_events: '1',
        sessions: '1',
        active_days: '1',
        unpriced_requests: '0',
        unpriced_tokens: '0',
      },
    ]);
  });

  it('context rows in range', async () => {
    const rows = await runTemplate(store.conn, loadTemplate('context'), {
      ...compareRange,
      tz: 'UTC',
      harnesses: ALL_HARNESSES,
      project: '',
      models: [],
    });
    expect(rows.map((r) => [r.session, r.turns, r.peak_used_tokens])).toEqual([
      ['chat1', '5', '60000'],
      ['chat2', '3', '15000'],
    ]);
  });
});

describe('template headers', () => {
  const header = `-- report: t\n-- param: since DATE  first day\n-- param: tz VARCHAR  zone\n`;

  it('rejects a parameter used but not declared', () => {
    expect(() => parseTemplate('t.sql', `${header}SELECT $since, $tz, $until`)).toThrow(TemplateError);
    expect(() => parseTemplate('t.sql', `${header}SELECT $since, $tz, $until`)).toThrow(/used but not declared: until/);
  });

  it('rejects a parameter declared but not used', () => {
    expect(() => parseTemplate('t.sql', `${header}SELECT $since`)).toThrow(/declared but not used: tz/);
  });

  it('does not count $names in comments or string literals, and accepts a matching template', () => {
    expect(() => parseTemplate('t.sql', `${header}SELECT $since, '$tz' -- $tz\n`)).toThrow(/declared but not used: tz/);
    const t = parseTemplate('t.sql', `${header}SELECT $since, $tz, '$other' -- $more\n`);
    expect(t.params.map((p) => p.name)).toEqual(['since', 'tz']);
  });

  it('rejects a slot that is not declared', () => {
    expect(() => parseTemplate('t.sql', `${header}SELECT {{keys}} $since, $tz`)).toThrow(
      /slots used but not declared: keys/,
    );
  });

  it('puts an included fragment where the body writes it, and refuses an include the body never writes', () => {
    const frag = (n: string) => (n === 'm' ? 'sum(x) AS x,\ncount(*) AS n' : '');
    const t = parseTemplate(
      't.sql',
      `${header}-- include: m  shared\nSELECT {{m}} FROM f WHERE d >= $since AND z = $tz`,
      frag,
    );
    expect(t.body).toContain('SELECT sum(x) AS x,\ncount(*) AS n FROM f');
    expect(t.body).not.toContain('{{m}}');
    expect(() => parseTemplate('t.sql', `${header}-- include: m  shared\nSELECT 1 WHERE $since AND $tz`, frag)).toThrow(
      /includes m but never writes \{\{m\}\}/,
    );
  });

  it('the shared fragments are SQL only and each is where its templates write it', () => {
    const sql = loadFragment('metrics');
    expect(sql).not.toMatch(/--/);
    expect(sql.trimEnd()).toMatch(/AS unpriced_tokens$/);
    for (const f of ['monthly', 'monthly_days', 'monthly_sessions', 'live_sessions', 'compare'])
      expect(loadTemplate(f).body, f).toContain(sql);
    const units = loadFragment('slot_units');
    for (const f of ['compare_session_rows', 'session_view', 'monthly_sessions'])
      expect(loadTemplate(f).body, f).toContain(units);
    const span = loadFragment('span');
    for (const f of ['live_span', 'live_period_sums']) expect(loadTemplate(f).body, f).toContain(span);
  });

  it('every shipped template parses, declares its columns, and binds only declared parameters', () => {
    const dir = join(packageRoot(), 'queries');
    const files = readdirSync(dir).filter((f) => f.endsWith('.sql'));
    expect(files).toEqual(
      expect.arrayContaining([
        'monthly.sql',
        'monthly_sessions.sql',
        'monthly_days.sql',
        'monthly_costfit.sql',
        'compare.sql',
        'compare_context.sql',
      ]),
    );
    for (const f of files) {
      const t = loadTemplate(f.replace(/\.sql$/, ''));
      expect(t.columns.length, f).toBeGreaterThan(0);
      expect(t.name, f).toBe(f.replace(/\.sql$/, ''));
    }
  });

  it('rejects a value missing for a declared parameter', async () => {
    await expect(runTemplate(store.conn, loadTemplate('monthly_days'), params())).rejects.toThrow(
      /no value for parameter \$top/,
    );
  });
});
