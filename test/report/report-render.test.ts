// The HTML renderer and chart plumbing in process: hostile data strings in
// every field stay inert text, chart fallbacks, top-N grouping, labels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChart, topWithOther, withShortLabels, type ChartDef } from '../../src/report/charts.js';
import { findDefinition, runReport, type ReportOutput } from '../../src/report/definitions.js';
import type { GroupKey } from '../../src/report/groups.js';
import type { ReportParams } from '../../src/report/summary.js';
import { escapeHtml, jsonForScript, renderHtml } from '../../src/render/html.js';
import { renderOutput } from '../../src/render/index.js';
import type { Store } from '../../src/store/store.js';
import type { HarnessId } from '../../src/core/types.js';
import { memoryStore } from '../helpers/report-store.js';

const EVIL_PROJECT = '/home/x/</script><script>alert(1)</script>\u2028';
const EVIL_MODEL = '<img src=x onerror=alert(2)>';
const EVIL_SESSION = '"><svg onload=alert(3)>&amp;';

let store: Store;
beforeAll(async () => {
  const ev = (i: number, day: string, o: Record<string, unknown> = {}) => ({
    harness: 'claude-code',
    session: EVIL_SESSION,
    project: EVIL_PROJECT,
    model: EVIL_MODEL,
    ts: `${day}T10:00:00Z`,
    key: `k${i}`,
    input: 10 + i,
    cache_read: 100 * i + ((i * i) % 7),
    cache_write: 20 + ((i * 3) % 11),
    output: 5 * i + (i % 4),
    computed_e10: 1000 + i * 37,
    ...o,
  });
  store = await memoryStore(
    [
      ev(1, '2026-01-05'),
      ev(2, '2026-01-06'),
      ev(3, '2026-02-07'),
      ev(4, '2026-02-08', { harness: 'codex', session: 'plain' }),
    ],
    [
      {
        harness: 'cursor-agent',
        session: EVIL_SESSION,
        project: EVIL_PROJECT,
        model: EVIL_MODEL,
        turns: 2,
        latest: 10,
        max: 100,
        peak: 20,
        first: '2026-01-05T00:00:00Z',
        last: '2026-01-05T01:00:00Z',
      },
    ],
  );
});
afterAll(() => store?.close());

const params = (by: GroupKey[]): ReportParams => ({
  since: '2026-01-01',
  until: '2026-02-28',
  tz: 'UTC',
  by,
  harnesses: ['claude-code', 'codex', 'cursor-agent', 'opencode', 'pi'] as HarnessId[],
  project: '',
  costMode: 'auto',
});

async function output(name: string, by: GroupKey[]): Promise<ReportOutput> {
  return runReport(store.conn, findDefinition(name)!, params(by), [`a warning naming ${EVIL_PROJECT}`]);
}

describe('HTML escaping', () => {
  it.each([
    ['summary', ['project', 'model', 'session']],
    ['monthly', ['harness', 'model', 'project', 'session']],
    ['compare', ['model']],
  ] as [string, GroupKey[]][])('%s: hostile strings in every field stay text', async (name, by) => {
    const out = await output(name, by);
    const html = renderHtml(out);
    // The only script elements are the data block, the three libraries and the boot script.
    expect(html.match(/<script/gi)).toHaveLength(5);
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<svg onload');
    expect(html).toContain(escapeHtml(EVIL_MODEL));
    // The data block: no markup can start in it, and it parses back to the original strings.
    const block = /<script type="application\/json" id="tx-usage-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(block).not.toMatch(/[<>&\u2028\u2029]/);
    const data = JSON.parse(block);
    expect(JSON.stringify(data)).toContain(JSON.stringify(EVIL_MODEL).slice(1, -1));
    expect(data.charts.length).toBeGreaterThan(0);
    // Every chart points at a data set the kind filled.
    for (const c of data.charts) expect(Array.isArray(data.data[c.data]), c.data).toBe(true);
  });

  it('renderOutput html goes through the registered renderer', async () => {
    const out = await output('compare', ['model']);
    expect(renderOutput('html', out, { width: 80, color: false })).toBe(renderHtml(out));
  });

  it('jsonForScript round-trips and leaves nothing that can close or open markup', () => {
    const v = { a: '</script><!-- <script>', b: 'x\u2028y\u2029z', c: '&lt;' };
    const s = jsonForScript(v);
    expect(s).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(s)).toEqual(v);
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;',
    );
  });
});

describe('chart data and specs', () => {
  const def: ChartDef = {
    id: 'c',
    title: 'Cost',
    data: 'd',
    needs: 'cost_usd',
    fallback: {
      title: 'Tokens (no costs known yet)',
      replace: { cost_usd: { field: 'total_tokens', title: 'Tokens' } },
    },
    spec: {
      mark: 'bar',
      encoding: {
        x: { field: 'cost_usd', title: 'Cost (USD)', axis: { format: '$,.2f' } },
        tooltip: [{ field: 'cost_usd', format: '$,.4f' }, { field: 'model' }],
      },
    },
  };

  it('draws the spec as written when the needed field is known somewhere', () => {
    expect(resolveChart(def, [{ cost_usd: null }, { cost_usd: 1 }])).toEqual({ title: 'Cost', spec: def.spec });
  });

  it('swaps to the fallback field (and drops currency formats) when no row has a cost', () => {
    expect(resolveChart(def, [{ cost_usd: null, total_tokens: 5 }])).toEqual({
      title: 'Tokens (no costs known yet)',
      spec: {
        mark: 'bar',
        encoding: {
          x: { field: 'total_tokens', title: 'Tokens', axis: { format: '$,.2f' } },
          tooltip: [{ field: 'total_tokens', title: 'Tokens' }, { field: 'model' }],
        },
      },
    });
  });

  it('leaves a chart out without data, or without a fallback for what it needs', () => {
    expect(resolveChart(def, [])).toBeNull();
    expect(resolveChart(def, undefined)).toBeNull();
    expect(resolveChart({ ...def, fallback: undefined }, [{ cost_usd: null }])).toBeNull();
  });

  it('topWithOther keeps the n largest and adds up the rest', () => {
    const rows = [5, 1, 3, 2, 4].map((c, i) => ({ project: `/p${i}`, requests: 1, total_tokens: 10 * c, cost_usd: c }));
    expect(topWithOther(rows, 'project', 2)).toEqual([
      { project: '/p0', requests: 1, total_tokens: 50, cost_usd: 5 },
      { project: '/p4', requests: 1, total_tokens: 40, cost_usd: 4 },
      { project: '(3 other projects)', requests: 3, total_tokens: 60, cost_usd: 6 },
    ]);
    const unpriced = [
      { project: '/a', requests: 1, total_tokens: 1, cost_usd: null },
      { project: '/b', requests: 1, total_tokens: 2, cost_usd: null },
    ];
    expect(topWithOther(unpriced, 'project', 1)).toEqual([
      unpriced[1],
      { project: '(1 other project)', requests: 1, total_tokens: 1, cost_usd: null },
    ]);
  });

  it('withShortLabels uses the shortest tail that tells paths apart', () => {
    const rows = ['/home/a/src/app', '/home/b/src/app', '/home/a/infra', '(2 other projects)'].map((project) => ({
      project,
    }));
    expect(withShortLabels(rows, 'project').map((r) => r.project_label)).toEqual([
      '…/a/src/app',
      '…/b/src/app',
      '…/infra',
      '(2 other projects)',
    ]);
  });
});
