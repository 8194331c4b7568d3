// Terminal table details: which parts of a long key survive, the narrow
// layout at 80 columns, the totals row, wrapped notes, money columns at one
// precision, and partly priced amounts marked.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { keyColumns, USAGE_METRIC_COLUMNS, type Dataset } from '../src/render/columns.js';
import { usd, usdDecimals } from '../src/render/format.js';
import { cutText, renderTable, wrapText } from '../src/render/table.js';
import { CLI, cleanEnv, tempDir } from './helpers/cli.js';

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
        project, model, requests: 1234 * i, input_tokens: 123_456 * i, cache_read_tokens: 12_345_678 * i, cache_write_tokens: 234_567 * i, output_tokens: 345_678 * i,
        reasoning_tokens: 0, total_tokens: 13_049_379 * i, cost_usd: 12.34 * i, cost_source: 'computed',
      });
    }
  }
  const totals = { requests: 25_914, input_tokens: 2_592_576, cache_read_tokens: 259_259_238, cache_write_tokens: 4_925_907, output_tokens: 7_259_238, reasoning_tokens: 0, total_tokens: 274_036_959, cost_usd: 259.14, cost_source: 'computed' };
  const d: Dataset = { title: 'Usage', columns: [...keyColumns(['project', 'model']), ...USAGE_METRIC_COLUMNS], rows, totals, notes: ['A note long enough that it has to be wrapped to the width of the table, and then some more words so that it needs three lines at forty columns.'] };

  it('shows project and model names whole, leaving out the least telling number columns instead (and saying so)', () => {
    const lines = strip(renderTable(d, { width: 80, color: false }));
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/^Project\s+Model\s+Reqs\s+Output\s+Total\s+Cost$/);
    const body = lines.slice(3, 9);
    // Every model name whole; before, all three read "claude-opu…" / "claude-…".
    expect(body.map((l) => models.find((m) => l.includes(` ${m} `)))).toEqual([...models, ...models]);
    // The longer path loses its first folder, at a folder boundary.
    expect(body.map((l) => l.split(/\s+/)[0])).toEqual([...Array(3).fill('…/dev/src/webshop-frontend'), ...Array(3).fill('/home/dev/src/infra')]);
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

  it('one precision per column: cents when any amount is $1 or more, else four significant digits of the largest', () => {
    expect(usdDecimals([12.5, 0.1234])).toBe(2);
    expect(usdDecimals([0.1234, 0.5])).toBe(4);
    expect(usdDecimals([0.001234, 0.0005])).toBe(6);
    // Per-request costs: as many digits as it takes for different amounts to differ.
    expect(usdDecimals([0.01234561, 0.01234569], true)).toBe(7); // $0.0123456 and $0.0123457
    const cells = (values: number[]) =>
      strip(renderTable({ columns: [{ field: 'k', label: 'K', kind: 'key', narrow: true }, { field: 'c', label: 'Cost', kind: 'usd', narrow: true }], rows: values.map((c, i) => ({ k: `k${i}`, c })) }, { width: 80, color: false }))
        .slice(2)
        .map((l) => l.split(/\s+/)[1]);
    expect(cells([0.5, 0.0123, 0.0004])).toEqual(['$0.5000', '$0.0123', '$0.0004']);
    expect(cells([2.5, 0.0123])).toEqual(['$2.50', '$0.01']);
  });

  it('a partly priced amount reads as a lower bound, and the table says how many responses have no price', () => {
    const out = renderTable(
      {
        columns: [{ field: 'model', label: 'Model', kind: 'key', narrow: true }, ...USAGE_METRIC_COLUMNS],
        rows: [
          { model: 'acme-experimental-1', requests: 15, total_tokens: 1500, cost_usd: 4.18, cost_source: 'partial', unpriced_requests: 12, unpriced_tokens: 1200 },
          { model: 'claude-opus-5-5', requests: 3, total_tokens: 300, cost_usd: 1.5, cost_source: 'computed', unpriced_requests: 0, unpriced_tokens: 0 },
          { model: 'acme-2', requests: 1, total_tokens: 10, cost_usd: null, cost_source: 'none', unpriced_requests: 1, unpriced_tokens: 10 },
        ],
      },
      { width: 80, color: false },
    );
    const cost = (model: string) => strip(out).find((l) => l.startsWith(model))!.trim().split(/\s+/).at(-1);
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
    const d: Dataset = { title: 'Same model', columns: [{ field: 'model', label: 'Model', kind: 'key', narrow: true }], rows: [], empty: 'No model answered prompts in two harnesses.' };
    expect(strip(renderTable(d, { width: 80, color: false }))).toEqual(['Same model', 'No model answered prompts in two harnesses.']);
    expect(renderTable({ ...d, empty: undefined }, { width: 80, color: false })).toContain('(no usage in this period)');
  });
});

describe('days and session ids at 80 columns', () => {
  it('a day is never cut; a session id keeps both ends, so ids sharing a prefix stay apart', () => {
    const ids = ['019ae1c2-7b3a-7000-8000-0000000000a1', '019ae1c2-7b3a-7000-8000-0000000000b2'];
    const d: Dataset = {
      columns: [...keyColumns(['day', 'session', 'project']), ...USAGE_METRIC_COLUMNS],
      rows: ids.map((session, i) => ({ day: '2026-11-06', session, project: '/home/dev/src/a-long-project-name/webshop', requests: 10 + i, input_tokens: 1e6, cache_read_tokens: 2e7, cache_write_tokens: 3e5, output_tokens: 4e5, reasoning_tokens: 0, total_tokens: 2.2e7, cost_usd: 12.5, cost_source: 'computed' })),
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
