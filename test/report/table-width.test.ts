// Tables never wider than the terminal, and names whole while there is room
// (user audit: at 120 and 130 columns `report --by model` took the full
// layout, 131 columns wide, models cut to `…pus-4-6`; `--by session` was 281
// columns wide at 120 and 200 with ids cut to `11111…0001`; `explain` cut
// `claude-opus-…` with room to spare). The renderer gets representative
// datasets (report rows, session rows, explain records) at each width.
import { describe, expect, it } from 'vitest';
import { keyColumns, USAGE_METRIC_COLUMNS, type Dataset, type DataRow } from '../../src/render/columns.js';
import { renderTable } from '../../src/render/table.js';
import { sessionColumns } from '../../src/report/session-columns.js';
import { explainTables } from '../../src/explain/datasets.js';
import type { ExplainDocument } from '../../src/explain/explain.js';

const WIDTHS = [80, 100, 120, 130, 140, 200];

/** Display width: every character here is one column (no wide or combining ones in the data). */
const cols = (l: string) => [...l].length;
const lines = (d: Dataset, width: number) => renderTable(d, { width, color: false }).trimEnd().split('\n');
/** The labels of the columns a table shows (its header line: labels one or two spaces apart). */
const header = (d: Dataset, width: number) => {
  const h = lines(d, width)[d.title ? 1 : 0]!;
  return d.columns.map((c) => c.label).filter((l) => new RegExp(`(^|\\s)${l}(\\s|$)`).test(h));
};

function usage(i: number): DataRow {
  const input = 1234 * i,
    read = 12_345_678 * i,
    write = 234_567 * i,
    output = 345_678 * i;
  return {
    requests: 1000 * i,
    input_tokens: input,
    cache_read_tokens: read,
    cache_write_tokens: write,
    output_tokens: output,
    reasoning_tokens: 0,
    total_tokens: input + read + write + output,
    cost_usd: 12.34 * i,
    cost_source: i % 2 ? 'computed' : 'mixed',
    computed_cost_usd: 12.34 * i,
    recorded_cost_usd: i % 2 ? null : 3.21 * i,
    unpriced_requests: 0,
    unpriced_tokens: 0,
  };
}

describe('report --by model', () => {
  const models = ['claude-opus-4-6', 'claude-sonnet-4-5-20250929', 'gpt-5.1-codex-max', 'claude-haiku-4-5-20251001'];
  const d: Dataset = {
    title: 'Usage summary 2026-12-04 – 2026-12-05 (UTC)',
    columns: [...keyColumns(['model']), ...USAGE_METRIC_COLUMNS],
    rows: models.map((model, i) => ({ model, ...usage(i + 1) })),
    totals: usage(10),
  };

  for (const w of WIDTHS) {
    it(`${w} columns: every line fits and every model name is whole`, () => {
      const out = lines(d, w);
      for (const l of out) expect(cols(l), l).toBeLessThanOrEqual(w);
      for (const m of models)
        expect(
          out.some((l) => l.startsWith(`${m} `)),
          m,
        ).toBe(true);
      expect(out.join('\n')).not.toContain('…');
    });
  }

  it('a wider terminal shows every column a narrower one shows, and more up to all of them', () => {
    const shown = WIDTHS.map((w) => header(d, w));
    for (let k = 1; k < shown.length; k++)
      for (const h of shown[k - 1]!) expect(shown[k], `${WIDTHS[k]}: ${h}`).toContain(h);
    expect(shown.at(-1)).toContain('Unpriced tok'); // all of them at 200
    expect(shown[2]!.length).toBeGreaterThan(shown[0]!.length); // 120 is wider than 80
    // The widest layout that fits: at 120, the next wide-only column would not.
    expect(Math.max(...lines(d, 120).map(cols))).toBeGreaterThan(110);
  });

  it('80 columns and fewer keep the narrow layout (abbreviated numbers), whatever fits', () => {
    expect(lines(d, 80)[1]).toMatch(/^Model\s+Reqs\s+Input\s+Cache rd\s+Cache wr\s+Output\s+Total\s+Cost$/);
    expect(lines(d, 80).join('\n')).toContain('k ');
  });
});

describe('report --by session', () => {
  const ids = [1, 2, 3].map((n) => `11111111-1111-4111-8111-00000000000${n}`);
  const d: Dataset = {
    title: 'Usage summary 2026-11-28 – 2026-12-05 (UTC)',
    columns: sessionColumns(['session']),
    rows: ids.map((session, i) => ({
      session,
      harness: 'claude-code',
      project: `/home/dev/src/webshop-${['frontend', 'backend', 'infra'][i]}`,
      title: `Refactor the checkout flow so the payment step ${'and its retries '.repeat(i + 1)}work offline`,
      first_activity: '2026-11-29T13:33:00.000Z',
      last_activity: '2026-11-29T15:48:33.579Z',
      models: 'claude-haiku-4-5, claude-sonnet-4-5-20250929',
      prompts: 12 * (i + 1),
      tool_calls: 140 * (i + 1),
      active_minutes: 75.5,
      ...usage(i + 1),
    })),
    totals: usage(6),
  };

  for (const w of WIDTHS) {
    it(`${w} columns: every line fits; ids whole from 120 columns, both ends kept below`, () => {
      const out = lines(d, w);
      for (const l of out) expect(cols(l), l).toBeLessThanOrEqual(w);
      const body = out.filter((l) => l.startsWith('1111'));
      expect(body).toHaveLength(3);
      body.forEach((l, i) => {
        if (w >= 120) expect(l.startsWith(`${ids[i]} `), l).toBe(true);
        else expect(l.split(/\s+/)[0]).toMatch(new RegExp(`^1111.*….*${i + 1}$`));
      });
    });
  }

  it('the title yields before the ids; at 200 columns it takes the room left, beside the first activity and active time', () => {
    const out = lines(d, 200);
    expect(header(d, 200)).toEqual([
      'Session',
      'Harness',
      'Project',
      'Title',
      'First',
      'Last',
      'Prompts',
      'Tools',
      'Active min',
      'Reqs',
      'Total',
      'Cost',
    ]);
    // The title's cell: up to the gap before the next column (a time column's values are wider than its heading).
    const title = out[3]!.slice(out[1]!.indexOf('Title')).split(/\s{2,}/)[0]!;
    expect(title).toMatch(/^Refactor the checkout flo.*…$/);
    expect(cols(out[1]!)).toBeGreaterThan(195); // the leftover went to the title
    // 120 columns: the narrow set, projects whole beside the whole ids.
    expect(lines(d, 120)[1]).toMatch(/^Session\s+Harness\s+Project\s+Title\s+Prompts\s+Tools\s+Reqs\s+Total\s+Cost$/);
    expect(lines(d, 120)[3]).toContain('/home/dev/src/webshop-frontend');
  });
});

describe('explain', () => {
  const rec = (line: number, counted_as: string, rule: string, added: number) => ({
    line,
    row: null,
    key: null,
    record: 'usage',
    counted: added > 0,
    counted_as,
    rule,
    session_id: null,
    model: null,
    timestamp: '2026-10-05T09:01:00.000Z',
    record_tokens: 2100,
    counted_at: null,
    cost_source: added > 0 ? 'computed' : null,
    requests: added > 0 ? 1 : 0,
    input_tokens: added,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    output_tokens: 0,
    reasoning_tokens: 0,
    total_tokens: added,
    cost_usd: added ? 0.00176 : null,
    computed_cost_usd: null,
    recorded_cost_usd: null,
    unpriced_requests: 0,
    unpriced_tokens: 0,
  });
  const totals = {
    requests: 1,
    input_tokens: 2100,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    output_tokens: 0,
    reasoning_tokens: 0,
    total_tokens: 2100,
    cost_usd: 0.00176,
    cost_source: 'computed',
    computed_cost_usd: 0.00176,
    recorded_cost_usd: null,
    unpriced_requests: 0,
    unpriced_tokens: 0,
  };
  const records = [
    rec(2, 'split line of line 4', 'Largest usage wins', 0),
    rec(4, 'response of claude-opus-4-6', 'One response, one count', 2100),
    rec(5, 'not counted', 'token_count already counted in the turn total', 0),
  ];
  const doc = {
    since: null,
    until: null,
    timezone: 'UTC',
    cost_mode: 'auto',
    warnings: [],
    totals,
    sources: [
      {
        harness: 'claude-code',
        path: '/home/user/.claude/projects/-home-user-x/00000000-0000-4000-8000-000000000023.jsonl',
        kind: 'file',
        session_id: null,
        retained: false,
        records,
        totals,
        notes: [],
      },
    ],
  } as unknown as ExplainDocument;
  const [table] = explainTables(doc);

  for (const w of WIDTHS) {
    it(`${w} columns: every line but an unbreakable path fits; verdicts and rules whole where the narrow set fits them`, () => {
      const out = lines(table!, w);
      for (const l of out) if (!/^\S+$/.test(l)) expect(cols(l), l).toBeLessThanOrEqual(w);
      // The 45-character rule needs 101 columns; before, 120 columns cut `response of …` to 13.
      const whole = w >= 120 ? records : w >= 100 ? records.slice(0, 2) : [];
      for (const r of whole)
        expect(
          out.some((l) => l.includes(r.counted_as) && l.includes(r.rule)),
          r.counted_as,
        ).toBe(true);
    });
  }
});
