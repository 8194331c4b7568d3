// Terminal table details: which parts of a long key survive, the narrow
// layout at 80 columns, the totals row, wrapped notes, money columns at one
// precision, and partly priced amounts marked.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { keyColumns, USAGE_METRIC_COLUMNS, type Dataset } from '../../src/render/columns.js';
import { csvUsd, pct, usd } from '../../src/render/format.js';
import { renderCsv } from '../../src/render/csv.js';
import { cutText, renderTable, wrapText } from '../../src/render/table.js';
import { CLI, cleanEnv, tempDir } from '../helpers/cli.js';

const strip = (s: string) => s.trimEnd().split('\n');

describe('cutting names', () => {
  it('keeps a model name’s first word and its distinctive tail, a path’s last folders, an id’s start', () => {
    expect(cutText('claude-haiku-4-5-20251001', 21)).toBe('claude-…-4-5-20251001');
    expect(cutText('claude-sonnet-5-5-20261001-with-a-suffix', 20)).toBe('claude-…ith-a-suffix');
    expect(cutText('/home/someone/src/a-very-long-project-name/webshop', 20)).toBe('…roject-name/webshop'); // a folder boundary would waste half the room
    expect(cutText('/home/dev/src/webshop-frontend', 24)).toBe('…/src/webshop-frontend');
    expect(cutText('0195f3c2-aaaa-bbbb-cccc-ddddeeeeffff', 12, 'start')).toBe('0195f3c2-aa…');
    expect(cutText('short', 10)).toBe('short');
  });
});

describe('80 columns', () => {
  const models = ['claude-opus-4-5-20251101', 'claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929'];
  const projects = ['/home/dev/src/webshop-frontend', '/home/dev/src/infra'];
  const rows: Dataset['rows'] = [];
  let i = 0;
  for (const project of projects) {
    for (const model of models) {
      i++;
      rows.push({
        project,
        model,
        requests: 1234 * i,
        input_tokens: 123_456 * i,
        cache_read_tokens: 12_345_678 * i,
        cache_write_tokens: 234_567 * i,
        output_tokens: 345_678 * i,
        reasoning_tokens: 0,
        total_tokens: 13_049_379 * i,
        cost_usd: 12.34 * i,
        cost_source: 'computed',
      });
    }
  }
  const totals = {
    requests: 25_914,
    input_tokens: 2_592_576,
    cache_read_tokens: 259_259_238,
    cache_write_tokens: 4_925_907,
    output_tokens: 7_259_238,
    reasoning_tokens: 0,
    total_tokens: 274_036_959,
    cost_usd: 259.14,
    cost_source: 'computed',
  };
  const d: Dataset = {
    title: 'Usage',
    columns: [...keyColumns(['project', 'model']), ...USAGE_METRIC_COLUMNS],
    rows,
    totals,
    notes: [
      'A note long enough that it has to be wrapped to the width of the table, and then some more words so that it needs three lines at forty columns.',
    ],
  };

  it('shows project and model names whole, leaving out the least telling number columns instead (and saying so)', () => {
    const lines = strip(renderTable(d, { width: 80, color: false }));
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/^Project\s+Model\s+Reqs\s+Output\s+Total\s+Cost$/);
    const body = lines.slice(3, 9);
    // Every model name whole; before, all three read "claude-opu…" / "claude-…".
    expect(body.map((l) => models.find((m) => l.includes(` ${m} `)))).toEqual([...models, ...models]);
    // The longer path loses its first folder, at a folder boundary.
    expect(body.map((l) => l.split(/\s+/)[0])).toEqual([
      ...Array(3).fill('…/dev/src/webshop-frontend'),
      ...Array(3).fill('/home/dev/src/infra'),
    ]);
    expect(lines).toContain('Not shown at this width: Cache wr, Input, Cache rd (a wider terminal, --format');
  });

  it('the totals row says Total once and leaves the other key columns empty', () => {
    const out = renderTable(d, { width: 80, color: false });
    const total = strip(out).find((l) => l.startsWith('Total'))!;
    expect(total).toMatch(/^Total\s+25\.9k\s+7\.26M\s+274M\s+\$259\.14$/);
    expect(out).not.toContain('(none)');
  });

  it('wraps notes to the width', () => {
    const lines = strip(renderTable({ ...d, columns: d.columns.slice(0, 3) }, { width: 40, color: false }));
    const at = lines.findIndex((l) => l.startsWith('A note'));
    expect(lines.slice(at, at + 4)).toEqual([
      'A note long enough that it has to be',
      'wrapped to the width of the table, and',
      'then some more words so that it needs',
      'three lines at forty columns.',
    ]);
    expect(wrapText('a bb ccc', 4)).toEqual(['a bb', 'ccc']);
  });
});

describe('money', () => {
  it('writes the sign before the dollar', () => {
    expect(usd(-12.65, false)).toBe('-$12.65');
    expect(usd(12.65, false)).toBe('$12.65');
    expect(usd(-0.001, false)).toBe('>-$0.01');
    expect(usd(-25000, false)).toBe('-$25.0k');
  });

  it('one rule: amounts in cents; figures per unit of work under $1 with four significant digits, the same value the same text everywhere', () => {
    const table = (columns: Dataset['columns'], rows: Dataset['rows']) =>
      strip(renderTable({ columns, rows }, { width: 80, color: false })).slice(2);
    const key = { field: 'k', label: 'K', kind: 'key' as const, narrow: true };
    const cells = (values: number[]) =>
      table(
        [key, { field: 'c', label: 'Cost', kind: 'usd', narrow: true }],
        values.map((c, i) => ({ k: `k${i}`, c })),
      ).map((l) => l.split(/\s+/)[1]);
    // Amounts: cents, whatever else is in the column (was $0.5000 / $0.0123 / $0.0004 beside $0.01 in another column).
    expect(cells([0.5, 0.0123, 0.0004])).toEqual(['$0.50', '$0.01', '<$0.01']);
    expect(cells([2.5, 0.0123])).toEqual(['$2.50', '$0.01']);
    // Per unit (a `…per_…` field, or perUnit): four significant digits under $1, cents from $1 up.
    expect(usd(0.0594, true, { perUnit: true })).toBe('$0.05940');
    expect(usd(0.35083, true, { perUnit: true })).toBe('$0.3508');
    expect(usd(0.00014, true, { perUnit: true })).toBe('$0.0001400');
    expect(usd(0.99996, true, { perUnit: true })).toBe('$1.00');
    expect(usd(3.456, true, { perUnit: true })).toBe('$3.46');
    // The same cost per request in two tables of different ranges reads the same (compare showed it two ways).
    const perReq = (values: number[]) =>
      table(
        [key, { field: 'cost_per_request_usd', label: 'Cost/req', kind: 'usd', narrow: true }],
        values.map((c, i) => ({ k: `k${i}`, cost_per_request_usd: c })),
      ).map((l) => l.split(/\s+/)[1]);
    expect(perReq([0.08, 2.5])[0]).toBe(perReq([0.08, 0.0123])[0]);
    expect(perReq([0.08, 0.0123])).toEqual(['$0.08000', '$0.01230']);
  });

  it('a positive change has its sign; a partial one keeps its mark', () => {
    expect(usd(1.2, true, { signed: true })).toBe('+$1.20');
    expect(usd(-1.2, true, { signed: true })).toBe('-$1.20');
    expect(usd(0, true, { signed: true })).toBe('$0.00');
    expect(pct(0.125, true)).toBe('+12.5%');
    expect(pct(-0.125, true)).toBe('-12.5%');
    expect(pct(0.125)).toBe('12.5%');
    const lines = strip(
      renderTable(
        {
          columns: [
            { field: 'k', label: 'K', kind: 'key', narrow: true },
            { field: 'prev', label: 'Prev', kind: 'usd', narrow: true, partial: { by: ['src'], bound: true } },
            {
              field: 'd',
              label: 'Δ cost',
              kind: 'usd',
              narrow: true,
              signed: true,
              partial: { by: ['src'], bound: false },
            },
            { field: 'r', label: 'Δ %', kind: 'pct', narrow: true, signed: true },
          ],
          rows: [
            { k: 'a', prev: 5, d: 1.2, r: 0.24, src: 'computed' },
            { k: 'b', prev: 5, d: 1.2, r: 0.24, src: 'partial' },
          ],
        },
        { width: 80, color: false },
      ),
    );
    expect(lines[2]!.split(/\s+/)).toEqual(['a', '$5.00', '+$1.20', '+24.0%']);
    expect(lines[3]!.split(/\s+/)).toEqual(['b', '≥$5.00*', '+$1.20*', '+24.0%']);
  });

  it('CSV carries money exactly, without float noise', () => {
    expect(csvUsd(6.200000000000003)).toBe('6.2');
    expect(csvUsd(0.1 + 0.2)).toBe('0.3');
    expect(csvUsd(12.111748115)).toBe('12.111748115');
    expect(csvUsd(0.01927759962962963)).toBe('0.0192775996');
    expect(csvUsd(-0.00000000001)).toBe('0');
    const csv = renderCsv({
      columns: [
        { field: 'k', label: 'K', kind: 'key' },
        { field: 'cost_change_usd', label: 'Δ', kind: 'usd' },
        { field: 'n', label: 'N', kind: 'ratio' },
      ],
      rows: [{ k: 'a', cost_change_usd: 9.3 - 3.1, n: 1.5 }],
    });
    expect(csv).toBe('k,cost_change_usd,n\r\na,6.2,1.5\r\n');
  });

  it('a partly priced amount reads as a lower bound, and the table says how many responses have no price', () => {
    const out = renderTable(
      {
        columns: [{ field: 'model', label: 'Model', kind: 'key', narrow: true }, ...USAGE_METRIC_COLUMNS],
        rows: [
          {
            model: 'acme-experimental-1',
            requests: 15,
            total_tokens: 1500,
            cost_usd: 4.18,
            cost_source: 'partial',
            unpriced_requests: 12,
            unpriced_tokens: 1200,
          },
          {
            model: 'claude-opus-5-5',
            requests: 3,
            total_tokens: 300,
            cost_usd: 1.5,
            cost_source: 'computed',
            unpriced_requests: 0,
            unpriced_tokens: 0,
          },
          {
            model: 'acme-2',
            requests: 1,
            total_tokens: 10,
            cost_usd: null,
            cost_source: 'none',
            unpriced_requests: 1,
            unpriced_tokens: 10,
          },
        ],
      },
      { width: 80, color: false },
    );
    const cost = (model: string) =>
      strip(out)
        .find((l) => l.startsWith(model))!
        .trim()
        .split(/\s+/)
        .at(-1);
    expect(cost('acme-experimental-1')).toBe('≥$4.18*');
    expect(cost('claude-opus-5-5')).toBe('$1.50');
    expect(cost('acme-2')).toBe('—');
  });
});

describe('column legends', () => {
  it('explain a header under the table only where that column is shown', () => {
    const d: Dataset = {
      columns: [
        { field: 'harness', label: 'Harness', kind: 'key', narrow: true },
        { field: 'cost_usd', label: '$', kind: 'usd', narrow: true },
        { field: 'per_hour', label: '$/act h', kind: 'usd', legend: '$/act h = cost per active hour.' },
      ],
      rows: [{ harness: 'codex', cost_usd: 1, per_hour: 2 }],
    };
    const wide = renderTable(d, { width: 140, color: false });
    expect(wide).toContain('$/act h');
    expect(strip(wide).at(-1)).toBe('$/act h = cost per active hour.');
    const narrow = renderTable(d, { width: 80, color: false });
    expect(narrow).not.toContain('$/act h');
  });
});

describe('an empty table with its own words', () => {
  it('prints them instead of a header over "(no usage in this period)"', () => {
    const d: Dataset = {
      title: 'Same model',
      columns: [{ field: 'model', label: 'Model', kind: 'key', narrow: true }],
      rows: [],
      empty: 'No model answered prompts in two harnesses.',
    };
    expect(strip(renderTable(d, { width: 80, color: false }))).toEqual([
      'Same model',
      'No model answered prompts in two harnesses.',
    ]);
    expect(renderTable({ ...d, empty: undefined }, { width: 80, color: false })).toContain('(no usage in this period)');
  });
});

describe('days and session ids at 80 columns', () => {
  it('a day is never cut; a session id keeps both ends, so ids sharing a prefix stay apart', () => {
    const ids = ['019ae1c2-7b3a-7000-8000-0000000000a1', '019ae1c2-7b3a-7000-8000-0000000000b2'];
    const d: Dataset = {
      columns: [...keyColumns(['day', 'session', 'project']), ...USAGE_METRIC_COLUMNS],
      rows: ids.map((session, i) => ({
        day: '2026-11-06',
        session,
        project: '/home/dev/src/a-long-project-name/webshop',
        requests: 10 + i,
        input_tokens: 1e6,
        cache_read_tokens: 2e7,
        cache_write_tokens: 3e5,
        output_tokens: 4e5,
        reasoning_tokens: 0,
        total_tokens: 2.2e7,
        cost_usd: 12.5,
        cost_source: 'computed',
      })),
    };
    const lines = strip(renderTable(d, { width: 80, color: false }));
    const rows = lines.filter((l) => l.startsWith('2026-11-06 '));
    expect(rows).toHaveLength(2);
    const sessionCells = rows.map((l) => l.split(/\s+/)[1]!);
    expect(sessionCells[0]).toMatch(/^019a.*….*a1$/);
    expect(sessionCells[1]).toMatch(/^019a.*….*b2$/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
  });
  it('cutText keeps both ends of an id', () => {
    expect(cutText('0195f3c2-aaaa-bbbb-cccc-ddddeeeeffff', 12, 'ends')).toBe('0195f3…effff');
  });
});

describe('empty results in words', () => {
  it('sql with no rows and limits with nothing recorded say so, not "(no usage in this period)"', () => {
    const env = cleanEnv(tempDir('txu-empty-'));
    const sql = spawnSync(process.execPath, [CLI, 'sql', 'select 1 as a where false'], { env, encoding: 'utf8' });
    expect(sql.status, sql.stderr).toBe(0);
    expect(sql.stdout).toBe('(no rows)\n');
    const limits = spawnSync(process.execPath, [CLI, 'limits'], { env, encoding: 'utf8' });
    expect(limits.status, limits.stderr).toBe(0);
    expect(limits.stdout).toContain('No plan limits recorded');
    expect(limits.stdout).not.toContain('no usage in this period');
  });
});
