// Honest costs in every report: a row whose responses are only partly priced
// shows the priced part, says `partial`, and counts what was left out
// (unpriced_requests, unpriced_tokens); a row with no priced response has no
// cost (null); a stored recorded cost of $0 stays $0 (`recorded`; the
// extractors store 0 only where it is known, see test/opencode-cost-zero.test.ts); recorded + computed is `mixed`. Tables and HTML mark the
// partial amounts and say under the table how many responses have no price.
// Expected figures are worked out by hand from the rows written below.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDefinition, runReport, type ReportOutput } from '../../src/report/definitions.js';
import type { GroupKey } from '../../src/report/groups.js';
import type { ReportParams } from '../../src/report/summary.js';
import { renderHtml } from '../../src/render/html.js';
import { renderOutput } from '../../src/render/index.js';
import type { Store } from '../../src/store/store.js';
import type { HarnessId } from '../../src/core/types.js';
import { ALL_HARNESSES, memoryStore, type TestEvent } from '../helpers/report-store.js';

// acme-experimental-1: 15 responses of 110 tokens, 3 priced at $0.01 each.
// claude-opus-5-5: 2 priced at $0.50. big-pickle (OpenCode): recorded at $0.
// gpt-5: OpenCode recorded $0.20 + Codex computed $0.30 → mixed.
const EVENTS: TestEvent[] = [
  ...Array.from({ length: 15 }, (_, i): TestEvent => ({
    harness: 'claude-code',
    session: 'c1',
    project: '/p/a',
    model: 'acme-experimental-1',
    ts: `2026-11-${String(3 + (i % 5)).padStart(2, '0')}T10:00:00Z`,
    key: `acme${i}`,
    input: 100,
    output: 10,
    computed_e10: i < 3 ? 100_000_000 : null,
  })),
  {
    harness: 'claude-code',
    session: 'c1',
    project: '/p/a',
    model: 'claude-opus-5-5',
    ts: '2026-11-03T11:00:00Z',
    key: 'o1',
    input: 1000,
    output: 100,
    computed_e10: 5_000_000_000,
  },
  {
    harness: 'claude-code',
    session: 'c2',
    project: '/p/a',
    model: 'claude-opus-5-5',
    ts: '2026-11-04T11:00:00Z',
    key: 'o2',
    input: 1000,
    output: 100,
    computed_e10: 5_000_000_000,
  },
  {
    harness: 'opencode',
    session: 'o1',
    project: '/p/b',
    model: 'big-pickle',
    provider: 'opencode',
    ts: '2026-11-05T11:00:00Z',
    key: 'bp1',
    input: 500,
    output: 50,
    recorded_e10: 0,
  },
  {
    harness: 'opencode',
    session: 'o1',
    project: '/p/b',
    model: 'big-pickle',
    provider: 'opencode',
    ts: '2026-11-05T12:00:00Z',
    key: 'bp2',
    input: 400,
    output: 40,
    recorded_e10: 0,
  },
  {
    harness: 'opencode',
    session: 'o2',
    project: '/p/b',
    model: 'gpt-5',
    provider: 'openai',
    ts: '2026-11-06T11:00:00Z',
    key: 'g1',
    input: 300,
    output: 30,
    recorded_e10: 2_000_000_000,
    computed_e10: 1_900_000_000,
  },
  {
    harness: 'codex',
    session: 'x1',
    project: '/p/b',
    model: 'gpt-5',
    ts: '2026-11-06T12:00:00Z',
    key: 'g2',
    input: 300,
    output: 30,
    computed_e10: 3_000_000_000,
  },
];

let store: Store;
beforeAll(async () => {
  store = await memoryStore(EVENTS);
});
afterAll(() => store?.close());

const params = (by: GroupKey[], o: Partial<ReportParams> = {}): ReportParams => ({
  since: '2026-11-01',
  until: '2026-11-30',
  tz: 'UTC',
  by,
  harnesses: ALL_HARNESSES as HarnessId[],
  project: '',
  costMode: 'auto',
  charts: false,
  ...o,
});
const run = (name: string, by: GroupKey[], o: Partial<ReportParams> = {}): Promise<ReportOutput> =>
  runReport(store.conn, findDefinition(name)!, params(by, o), []);

const ACME = {
  requests: 15,
  total_tokens: 1650,
  cost_usd: 0.03,
  cost_source: 'partial',
  unpriced_requests: 12,
  unpriced_tokens: 1320,
};
const TOTALS = { requests: 21, cost_usd: 1.53, cost_source: 'partial', unpriced_requests: 12, unpriced_tokens: 1320 };

describe('summary', () => {
  it('JSON: the priced part, partial, and what was left out, on every row and in the totals', async () => {
    const j = (await run('summary', ['model'])).json as any;
    const by = Object.fromEntries(j.rows.map((r: any) => [r.model, r]));
    expect(by['acme-experimental-1']).toMatchObject(ACME);
    expect(by['claude-opus-5-5']).toMatchObject({
      cost_usd: 1,
      cost_source: 'computed',
      unpriced_requests: 0,
      unpriced_tokens: 0,
    });
    // Recorded by the harness at $0: stays $0, and says so.
    expect(by['big-pickle']).toMatchObject({
      cost_usd: 0,
      recorded_cost_usd: 0,
      cost_source: 'recorded',
      unpriced_requests: 0,
      unpriced_tokens: 0,
    });
    expect(by['gpt-5']).toMatchObject({ cost_usd: 0.5, cost_source: 'mixed', unpriced_requests: 0 });
    expect(j.totals).toMatchObject(TOTALS);
    for (const r of [...j.rows, j.totals])
      expect(Object.keys(r)).toEqual(expect.arrayContaining(['unpriced_requests', 'unpriced_tokens']));
  });

  it('a row without any priced response has no cost', async () => {
    const j = (await run('summary', ['model'], { costMode: 'recorded' })).json as any;
    const by = Object.fromEntries(j.rows.map((r: any) => [r.model, r]));
    expect(by['acme-experimental-1']).toMatchObject({
      cost_usd: null,
      cost_source: 'none',
      unpriced_requests: 15,
      unpriced_tokens: 1650,
    });
    expect(by['big-pickle']).toMatchObject({ cost_usd: 0, cost_source: 'recorded' });
  });

  it('table and CSV: the partial amount marked ≥…*, the count of unpriced responses under the table', async () => {
    const out = await run('summary', ['model']);
    const table = renderOutput('table', out, { width: 80, color: false });
    const line = table.split('\n').find((l) => l.startsWith('acme-experimental-1'))!;
    expect(line.trim().split(/\s+/).at(-1)).toBe('≥$0.03*');
    expect(
      table
        .split('\n')
        .find((l) => l.startsWith('Total'))!
        .trim()
        .split(/\s+/)
        .at(-1),
    ).toBe('≥$1.53*');
    expect(
      table
        .split('\n')
        .find((l) => l.startsWith('big-pickle'))!
        .trim()
        .split(/\s+/)
        .at(-1),
    ).toBe('$0.00');
    expect(table).toContain('* 12 responses (1,320 tokens) have no price');
    const csv = renderOutput('csv', out, { width: 80, color: false }).split('\r\n');
    const head = csv[0]!.split(',');
    const acme = csv.find((l) => l.startsWith('acme-experimental-1,'))!.split(',');
    expect([
      acme[head.indexOf('cost_usd')],
      acme[head.indexOf('cost_source')],
      acme[head.indexOf('unpriced_requests')],
      acme[head.indexOf('unpriced_tokens')],
    ]).toEqual(['0.03', 'partial', '12', '1320']);
  });

  it('HTML: partial cells marked, the header says "at least", the note counts the unpriced responses', async () => {
    const html = renderHtml(await run('summary', ['model'], { charts: true }));
    expect(html).toMatch(/<td class="num partial" data-v="0.03">≥\$0\.03\*<\/td>/);
    expect(html).toContain('≥$1.53');
    expect(html).toContain('12 responses (1,320 tokens) have no price');
  });
});

describe('monthly and compare', () => {
  it('monthly: months, breakdowns and totals carry the unpriced counts and partial', async () => {
    const j = (await run('monthly', ['model'], { until: '2026-11-30' })).json as any;
    expect(j.totals).toMatchObject(TOTALS);
    const nov = j.months.find((m: any) => m.month === '2026-11');
    expect(nov.totals).toMatchObject(TOTALS);
    expect(nov.by_model.find((r: any) => r.model === 'acme-experimental-1')).toMatchObject(ACME);
    expect(nov.by_model.find((r: any) => r.model === 'big-pickle')).toMatchObject({
      cost_usd: 0,
      cost_source: 'recorded',
    });
    expect(nov.top_sessions.find((s: any) => s.session === 'c1')).toMatchObject({
      cost_source: 'partial',
      unpriced_requests: 12,
      unpriced_tokens: 1320,
    });
    const table = renderOutput('table', await run('monthly', ['model'], { until: '2026-11-30' }), {
      width: 120,
      color: false,
    });
    expect(table).toContain('≥$0.03*');
    expect(table).toContain('* 12 responses (1,320 tokens) have no price');
  });

  it('compare: per harness and per model, and the totals', async () => {
    const j = (await run('compare', ['model'])).json as any;
    expect(j.totals).toMatchObject(TOTALS);
    expect(j.harnesses.find((h: any) => h.harness === 'claude-code')).toMatchObject({
      cost_usd: 1.03,
      cost_source: 'partial',
      unpriced_requests: 12,
      unpriced_tokens: 1320,
    });
    expect(j.harnesses.find((h: any) => h.harness === 'opencode')).toMatchObject({
      cost_usd: 0.2,
      cost_source: 'recorded',
      unpriced_requests: 0,
    });
    expect(j.breakdown.find((b: any) => b.model === 'acme-experimental-1')).toMatchObject(ACME);
  });
});
