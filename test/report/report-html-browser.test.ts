// The HTML reports in real headless Chromium (Debian `chromium`, driven by
// playwright-core): every chart drawn with marks, no console errors or
// warnings, no network request, the injected <script> inert and shown as
// text, sortable tables, no sideways scrolling at phone width. Screenshots
// (laptop and phone) and a print PDF go to test-artifacts/.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome, type AllHome } from '../../fixtures/all-harnesses.js';
import { packageRoot } from '../../src/core/package-root.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { buildTwoMonthHome, XSS, XSS_PROJECT } from '../helpers/report-fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(packageRoot(), 'test-artifacts');

let browser: Browser;
let dir: string;
let fx: AllHome;
let homeDir: string;
const files: Record<string, string> = {};

function html(name: string, args: string[], env: NodeJS.ProcessEnv): string {
  const out = join(dir, `${name}.html`);
  const r = runCli(['report', ...args, '--format', 'html', '--out', out], env);
  if (r.status !== 0) throw new Error(`tx-usage ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return out;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  dir = tempDir('txu-html-');
  const home = join(dir, 'home');
  buildTwoMonthHome(home);
  const env = cleanEnv(home);
  const range = ['--since', '2026-10-01', '--until', '2026-11-30'];
  files.summary = html('summary', ['summary', ...range, '--by', 'project,model'], env);
  files.monthly = html('monthly', ['monthly', ...range], env);
  files.compare = html('compare', ['compare', ...range], env);
  fx = buildAllHome(join(dir, 'all'));
  files['compare-all-harnesses'] = html('compare-all-harnesses', ['compare', ...ALL_RANGE], cleanEnv(fx.home));
  files['summary-all-harnesses'] = html(
    'summary-all-harnesses',
    ['summary', ...ALL_RANGE, '--by', 'day,harness'],
    cleanEnv(fx.home),
  );
  // A month cut short, in another zone.
  files['monthly-tokyo'] = html(
    'monthly-tokyo',
    ['monthly', '--since', '2026-10-01', '--until', '2026-11-05', '--tz', 'Asia/Tokyo'],
    env,
  );
  files.demo = html('demo', ['summary', '--demo'], cleanEnv(join(dir, 'empty-home')));
  files.sessions = html('sessions', ['summary', ...ALL_RANGE, '--by', 'session'], cleanEnv(fx.home));
  files.blocks = html('blocks', ['blocks', ...range, '--token-limit', 'max'], env);
  homeDir = home;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  fx?.close();
});

interface Opened {
  page: Page;
  console: string[];
  requests: string[];
  dialogs: string[];
}

async function open(file: string, width: number): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const o: Opened = { page, console: [], requests: [], dialogs: [] };
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') o.console.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => o.console.push(`pageerror: ${e.message}`));
  page.on('request', (r) => o.requests.push(r.url()));
  page.on('dialog', (d) => {
    o.dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(
    () => [...document.querySelectorAll('.vis')].every((e) => e.getAttribute('data-rendered')),
    null,
    { timeout: 30_000 },
  );
  return o;
}

/** Per chart: rendered state and how many data marks its SVG holds. */
const chartMarks = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('figure.chart')].map((f) => ({
      chart: f.getAttribute('data-chart'),
      rendered: f.querySelector('.vis')?.getAttribute('data-rendered'),
      marks: f.querySelectorAll(
        '.vis svg g.role-mark > path, .vis svg g.role-mark > rect, .vis svg g.role-mark > line, .vis svg g.role-mark > g',
      ).length,
    })),
  );

describe.each([
  ['summary', ['daily-cost-by-model', 'cost-by-project', 'cost-by-harness', 'token-mix-by-harness']],
  [
    'monthly',
    [
      'month-over-month',
      'cost-components',
      'daily-cost-by-model',
      'cost-by-project',
      'cost-by-harness',
      'token-mix-by-harness',
    ],
  ],
  [
    'compare',
    [
      'cost-per-prompt',
      'cost-per-request',
      'tokens-per-request',
      'output-per-request',
      'cache-hit-rate',
      'reasoning-share',
      'daily-cost-by-model',
      'cost-by-project',
      'cost-by-harness',
      'token-mix-by-harness',
    ],
  ],
  [
    'compare-all-harnesses',
    [
      'cost-per-prompt',
      'cost-per-request',
      'tokens-per-request',
      'output-per-request',
      'cache-hit-rate',
      'reasoning-share',
      'daily-cost-by-model',
      'cost-by-project',
      'cost-by-harness',
      'token-mix-by-harness',
    ],
  ],
])('%s.html in Chromium', (name, charts) => {
  it('draws every chart, logs nothing, loads nothing, and runs no injected script (laptop width)', async () => {
    const o = await open(files[name]!, 1280);
    try {
      const marks = await chartMarks(o.page);
      expect(marks.map((m) => m.chart)).toEqual(charts);
      for (const m of marks) {
        expect(m.rendered, m.chart!).toBe('true');
        expect(m.marks, m.chart!).toBeGreaterThan(0);
      }
      expect(o.console).toEqual([]);
      expect(o.requests).toEqual([pathToFileURL(files[name]!).href]); // the file itself, nothing else
      expect(o.dialogs).toEqual([]);
      // Only the page's own scripts exist: the data block, vega, vega-lite, vega-embed, and the boot script.
      expect(await o.page.evaluate(() => document.scripts.length)).toBe(5);
      expect(
        await o.page.evaluate(() => (window as unknown as { alertCalled?: boolean }).alertCalled ?? null),
      ).toBeNull();
      if (!name.includes('all-harnesses')) {
        // The injected project name is on the page as text, in tables and chart labels.
        // (Shortened on the page, whole in the cell's title.)
        const cells = await o.page.evaluate(
          (p) => [...document.querySelectorAll('td')].filter((td) => td.getAttribute('title') === p).length,
          XSS_PROJECT,
        );
        if (name !== 'compare') expect(cells).toBeGreaterThan(0); // compare has no project table, only the chart
        // The project chart labels it by its shortest distinct tail ("…/script>"), drawn as SVG text.
        const svgText = await o.page.evaluate(() =>
          [...document.querySelectorAll('svg text')].map((t) => t.textContent ?? ''),
        );
        expect(svgText).toContain(`…/${XSS.split('/').pop()}`);
      }
      await o.page.screenshot({ path: join(ARTIFACTS, `report-${name}-laptop.png`), fullPage: true });
      await o.page.emulateMedia({ media: 'print' });
      await o.page.pdf({ path: join(ARTIFACTS, `report-${name}-print.pdf`), format: 'A4', printBackground: false });
    } finally {
      await o.page.close();
    }
  });

  it('fits a phone-width screen without sideways scrolling of the page', async () => {
    const o = await open(files[name]!, 390);
    try {
      expect(o.console).toEqual([]);
      const widths = await o.page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        charts: [...document.querySelectorAll('.vis svg')].map((s) => s.getBoundingClientRect().right),
      }));
      expect(widths.page).toBeLessThanOrEqual(390);
      for (const r of widths.charts) expect(r).toBeLessThanOrEqual(390);
      await o.page.screenshot({ path: join(ARTIFACTS, `report-${name}-phone.png`), fullPage: true });
    } finally {
      await o.page.close();
    }
  });
});

describe('sortable tables', () => {
  it('a click on a heading sorts the rows by that column, again reverses, unknown values stay last', async () => {
    const o = await open(files.summary!, 1280);
    try {
      const table = o.page.locator('table.sortable').first();
      const heading = table.locator('thead th', { hasText: 'Total' });
      const col = await heading.evaluate((th) => (th as HTMLTableCellElement).cellIndex);
      const values = () =>
        table.evaluate(
          (t, i) =>
            [...(t as HTMLTableElement).tBodies[0]!.rows].map((r) => Number(r.cells[i]!.getAttribute('data-v'))),
          col,
        );
      const before = await values();
      await heading.locator('button').click();
      expect(await heading.getAttribute('aria-sort')).toBe('descending');
      const desc = await values();
      expect(desc).toEqual([...before].sort((a, b) => b - a));
      await heading.locator('button').click();
      expect(await heading.getAttribute('aria-sort')).toBe('ascending');
      expect(await values()).toEqual([...before].sort((a, b) => a - b));
      const costHeading = table.locator('thead th', { hasText: /^Cost$/ });
      await costHeading.locator('button').click();
      const costCol = await costHeading.evaluate((th) => (th as HTMLTableCellElement).cellIndex);
      const costs = await table.evaluate(
        (t, i) => [...(t as HTMLTableElement).tBodies[0]!.rows].map((r) => r.cells[i]!.getAttribute('data-v')),
        costCol,
      );
      const known = costs.filter((c) => c !== '');
      expect(costs.slice(0, known.length)).toEqual(known); // unknown (unpriced) costs last
      expect(known.map(Number)).toEqual([...known].map(Number).sort((a, b) => b - a));
      expect(o.console).toEqual([]);
    } finally {
      await o.page.close();
    }
  });
});

/** `aria-label`s vega gives a chart's axes and legends, e.g. "X-axis for a utc scale with values from October 01 to December 01". */
const guides = (page: Page, chart: string) =>
  page.evaluate(
    (id) =>
      [
        ...document.querySelectorAll(
          `figure.chart[data-chart="${id}"] [aria-roledescription="axis"], figure.chart[data-chart="${id}"] [aria-roledescription="legend"]`,
        ),
      ].map((e) => e.getAttribute('aria-label') ?? ''),
    chart,
  );

/** Per chart: harness → fill colour of its marks, from each mark's aria-label ("…; harness: codex; …"). */
const harnessFills = (page: Page) =>
  page.evaluate(() => {
    const out: Record<string, Record<string, string[]>> = {};
    for (const f of document.querySelectorAll('figure.chart')) {
      for (const m of f.querySelectorAll('.vis svg g.role-mark path')) {
        const h = /(?:^|; )harness: ([^;]+)/.exec(m.getAttribute('aria-label') ?? '')?.[1];
        if (!h) continue;
        const chart = f.getAttribute('data-chart')!;
        ((out[chart] ??= {})[h] ??= []).push(m.getAttribute('fill') ?? '');
      }
    }
    return out;
  });

/** Fill colours of a chart's marks. */
const fills = (page: Page, chart: string) =>
  page.evaluate(
    (id) => [
      ...new Set(
        [...document.querySelectorAll(`figure.chart[data-chart="${id}"] .vis svg g.role-mark path`)].map((m) =>
          m.getAttribute('fill'),
        ),
      ),
    ],
    chart,
  );

describe('what the HTML reports say', () => {
  it('one colour per harness in every chart, another palette for models', async () => {
    const seen = new Map<string, string>();
    for (const name of ['compare-all-harnesses', 'summary-all-harnesses']) {
      const o = await open(files[name]!, 1280);
      try {
        const byChart = await harnessFills(o.page);
        const charts = Object.keys(byChart);
        expect(charts.length, name).toBeGreaterThanOrEqual(name.startsWith('compare') ? 6 : 2); // cost/tokens per request, …, cost by harness
        for (const chart of charts) {
          if (chart === 'token-mix-by-harness') continue; // coloured by token kind, one bar per harness
          for (const [h, colours] of Object.entries(byChart[chart]!)) {
            expect(new Set(colours).size, `${name} ${chart} ${h}`).toBe(1);
            if (!seen.has(h)) seen.set(h, colours[0]!);
            expect(colours[0], `${name} ${chart} ${h}`).toBe(seen.get(h));
          }
        }
        const models = await fills(o.page, 'daily-cost-by-model');
        expect(models.length, name).toBeGreaterThan(0);
        for (const c of models) expect([...seen.values()], `model colour ${c}`).not.toContain(c);
      } finally {
        await o.page.close();
      }
    }
    // Every harness with billed usage in the home (all but Cursor, which records none), each in a colour of its own.
    const billed = Object.keys(fx.expected).length;
    expect(seen.size).toBe(billed);
    expect(new Set(seen.values()).size).toBe(billed);
  });

  it('the daily chart spans the requested range; an unpriced model is named in a note, not an empty legend entry', async () => {
    const o = await open(files.summary!, 1280);
    try {
      const g = await guides(o.page, 'daily-cost-by-model');
      // --since 2026-10-01 --until 2026-11-30, while usage runs from Oct 3 to Nov 20.
      expect(g.find((a) => a.startsWith('X-axis'))).toBe(
        'X-axis for a utc scale with values from October 01 to December 01',
      );
      const legend = g.find((a) => a.includes('legend'))!;
      expect(legend).toMatch(
        /^Symbol legend titled 'Model' for fill color with 2 values: claude-opus-5-5, claude-sonnet-5-5$/,
      );
      const note = await o.page.locator('figure.chart[data-chart="daily-cost-by-model"] .note').textContent();
      expect(note).toBe('Not drawn, no price known: =2+5.');
    } finally {
      await o.page.close();
    }
  });

  it('partly priced costs are marked and counted; one cost precision per column; the warnings show ~ for the home folder', async () => {
    const o = await open(files.summary!, 1280);
    try {
      const card = await o.page.locator('.card', { hasText: 'Cost' }).first().locator('.value').textContent();
      expect(card).toMatch(/^≥\$\d+\.\d{2}$/);
      const first = o.page.locator('section.dataset').first();
      const costCol = await first
        .locator('thead th', { hasText: /^Cost$/ })
        .evaluate((th) => (th as HTMLTableCellElement).cellIndex);
      const costs = await first.evaluate(
        (sec, i) =>
          [...sec.querySelectorAll('tr')].map((r) => r.cells[i]?.textContent ?? '').filter((t) => t.includes('$')),
        costCol,
      );
      expect(costs.length).toBeGreaterThan(3);
      const decimals = new Set(costs.map((c) => /\.(\d+)/.exec(c)![1]!.length));
      expect(decimals.size, costs.join(' ')).toBe(1);
      expect(await first.locator('tfoot td.partial').count()).toBe(1);
      expect(await first.locator('tfoot td.partial').textContent()).toMatch(/^≥\$[\d.]+\*$/);
      expect(await first.locator('.note').allTextContents()).toContainEqual(
        expect.stringMatching(/^\* 2 responses \([\d,]+ tokens\) have no price/),
      );
      // Totals row: "Total" once, no "(none)" anywhere.
      expect(await first.locator('tfoot td').allTextContents()).toContain('Total');
      expect(await o.page.locator('body').textContent()).not.toContain('(none)');
      const warnings = await o.page.locator('.notice.warn li').allTextContents();
      expect(warnings.some((w) => w.startsWith('~/.claude/projects/'))).toBe(true);
      expect(warnings.some((w) => w.includes('near match') || w.includes('nearest entry'))).toBe(true);
      const html = await o.page.content();
      expect(html).not.toContain(homeDir);
      expect(await o.page.locator('footer').textContent()).toMatch(/never prompt text, tool output or file contents/);
    } finally {
      await o.page.close();
    }
  });

  it('compare: token averages as whole tokens, costs per request that differ read differently', async () => {
    const o = await open(files['compare-all-harnesses']!, 1280);
    try {
      // The per-harness table (compare leads with its cheaper-per-prompt answer when it has one).
      const first = o.page
        .locator('section.dataset', { has: o.page.locator('thead th', { hasText: /^Tok\/req$/ }) })
        .first();
      const col = async (label: string) =>
        first
          .locator('thead th', { hasText: new RegExp(`^${label}$`) })
          .evaluate((th) => (th as HTMLTableCellElement).cellIndex);
      const cells = async (label: string) =>
        first.evaluate(
          (sec, i) =>
            [...sec.querySelectorAll<HTMLTableRowElement>('tbody tr')].map((r) => [
              r.cells[i]!.textContent!,
              r.cells[i]!.getAttribute('data-v')!,
            ]),
          await col(label),
        );
      for (const [text, v] of await cells('Tok/req')) {
        if (v === '') continue;
        expect(text).toMatch(/^\d{1,3}(,\d{3})*$/);
        expect(Number(text.replace(/,/g, ''))).toBe(Math.round(Number(v)));
      }
      const perRequest = (await cells('Cost/req')).filter(([, v]) => v !== '');
      expect(perRequest.length).toBeGreaterThan(1);
      expect(new Set(perRequest.map(([t]) => t)).size).toBe(new Set(perRequest.map(([, v]) => v)).size);
    } finally {
      await o.page.close();
    }
  });

  it('a wide table scrolls inside its card with its heading row in view', async () => {
    const o = await open(files['summary-all-harnesses']!, 390);
    try {
      await o.page.setViewportSize({ width: 390, height: 420 });
      const box = o.page.locator('section.dataset .scroll').first();
      const dims = await box.evaluate((e) => ({
        sw: e.scrollWidth,
        cw: e.clientWidth,
        sh: e.scrollHeight,
        ch: e.clientHeight,
      }));
      expect(dims.sw).toBeGreaterThan(dims.cw); // scrolls sideways inside the card …
      expect(await o.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390); // … not the page
      expect(dims.sh).toBeGreaterThan(dims.ch); // and down, inside the card
      await box.evaluate((e) => e.scrollTo(0, 80));
      const tops = await box.evaluate((e) => ({
        box: e.getBoundingClientRect().top,
        th: e.querySelector('thead th')!.getBoundingClientRect().top,
      }));
      expect(Math.abs(tops.th - tops.box)).toBeLessThan(2);
    } finally {
      await o.page.close();
    }
  });

  it('monthly: the header ends at the requested end, times are in the report zone', async () => {
    const o = await open(files['monthly-tokyo']!, 1280);
    try {
      expect(await o.page.locator('header .period').textContent()).toBe('2026-10-01 – 2026-11-05 (Asia/Tokyo)');
      const sessions = o.page.locator('section.dataset', { hasText: 'Top sessions by cost' });
      const last = await sessions
        .locator('thead th', { hasText: /^Last$/ })
        .evaluate((th) => (th as HTMLTableCellElement).cellIndex);
      const novRow = sessions.locator('tbody tr', { hasText: '2026-11' }).first();
      // Its last response: 2026-11-02 09:05 UTC.
      expect(await novRow.locator('td').nth(last).textContent()).toBe('2026-11-02 18:05');
      expect(await o.page.locator('footer').textContent()).toContain('Times are in Asia/Tokyo');
      expect(await o.page.locator('.note').allTextContents()).toContainEqual(
        expect.stringContaining('2026-11: days 1–5 of 30'),
      );
    } finally {
      await o.page.close();
    }
  });

  it('demo output says so in its title and footer', async () => {
    const o = await open(files.demo!, 1280);
    try {
      expect(await o.page.title()).toMatch(/demo/i);
      expect(await o.page.locator('footer').textContent()).toMatch(/Demo: made from generated sample data/);
      expect(o.console).toEqual([]);
    } finally {
      await o.page.close();
    }
  });
});

describe('tables at 1280 px (issue 44)', () => {
  /** Per table: the headings in view (not hidden, not past the right edge of the table's box), the row heights and the text of time cells. */
  const tables = (page: Page) =>
    page.evaluate(() =>
      [...document.querySelectorAll('section.dataset')].map((s) => {
        const box = s.querySelector('.scroll')!.getBoundingClientRect();
        const ths = [...s.querySelectorAll('thead th')] as HTMLElement[];
        const inView = ths
          .filter((t) => t.offsetParent !== null && t.getBoundingClientRect().right <= box.right + 0.5)
          .map((t) => t.textContent!);
        const cut = ths
          .filter((t) => t.offsetParent !== null && t.getBoundingClientRect().right > box.right + 0.5)
          .map((t) => t.textContent!);
        const lineHeight = parseFloat(getComputedStyle(s.querySelector('td') ?? s).lineHeight);
        const rows = [...s.querySelectorAll('tbody tr')].map((r) => r.getBoundingClientRect().height);
        return {
          title: s.querySelector('h2')!.textContent!,
          inView,
          cut,
          tallest: Math.max(0, ...rows),
          lineHeight,
          texts: [...s.querySelectorAll('td')]
            .filter((td) => (td as HTMLElement).offsetParent !== null)
            .map((td) => td.textContent!),
        };
      }),
    );

  it.each([
    ['summary', ['Project', 'Model', 'Total', 'Cost']],
    ['summary-all-harnesses', ['Day', 'Harness', 'Total', 'Cost']],
    ['sessions', ['Session', 'Harness', 'Project', 'Active min', 'Reqs', 'Total', 'Cost']],
    ['blocks', ['Block start', 'Status', 'Reqs', 'Total', 'Cost']],
    ['monthly', ['Month', 'Key', 'Cost', 'Δ cost']],
    ['compare-all-harnesses', ['Harness', 'Reqs', 'Cost', 'Cost/req']],
  ])(
    '%s: key and money columns in view, nothing clipped, no row over two lines, times to the minute',
    async (name, wanted) => {
      const o = await open(files[name]!, 1280);
      try {
        const t = await tables(o.page);
        expect(t.length).toBeGreaterThan(0);
        for (const x of t) {
          expect(x.cut, `${name}: ${x.title}`).toEqual([]);
          expect(x.tallest, `${name}: ${x.title}`).toBeLessThan(x.lineHeight * 3 + 14); // nothing over three lines (paths: one)
          for (const text of x.texts)
            expect(text, `${name}: ${x.title}`).not.toMatch(/\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/);
        }
        // The report's main table: the first with the key column (compare may lead with its answer's table).
        const k = Math.max(
          0,
          t.findIndex((x) => x.inView.includes(wanted[0]!)),
        );
        for (const label of wanted) expect(t[k]!.inView, `${name}: ${label}`).toContain(label);
        // The columns left out are behind a toggle, and come into view with it.
        const toggle = o.page.locator('section.dataset').nth(k).locator('label.more-toggle');
        if (await toggle.count()) {
          const before = t[k]!.inView.length;
          await toggle.click();
          const after = await tables(o.page);
          expect(after[k]!.inView.length + after[k]!.cut.length).toBeGreaterThan(before);
        }
        expect(o.console).toEqual([]);
      } finally {
        await o.page.close();
      }
    },
  );

  it('sessions: times in the report zone to the minute; long paths shortened with the whole path in the title', async () => {
    const o = await open(files.sessions!, 1280);
    try {
      const first = o.page.locator('section.dataset').first();
      await first.locator('label.more-toggle').click();
      const col = async (label: string) =>
        first
          .locator('thead th', { hasText: new RegExp(`^${label}$`) })
          .evaluate((th) => (th as HTMLTableCellElement).cellIndex);
      const cells = await first.evaluate(
        (sec, i) =>
          [...sec.querySelectorAll<HTMLTableRowElement>('tbody tr')].map((r) => [
            r.cells[i]!.textContent!,
            r.cells[i]!.getAttribute('data-v')!,
          ]),
        await col('Last'),
      );
      for (const [text, v] of cells) {
        expect(text).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
        expect(text).toBe(new Date(v).toISOString().slice(0, 16).replace('T', ' ')); // the page is in UTC
      }
      const projects = await first.evaluate(
        (sec, i) =>
          [...sec.querySelectorAll<HTMLTableRowElement>('tbody tr')].map((r) => [
            r.cells[i]!.textContent!,
            r.cells[i]!.getAttribute('title')!,
          ]),
        await col('Project'),
      );
      for (const [text, title] of projects) {
        expect(text.length).toBeLessThanOrEqual(28);
        if (text.startsWith('…')) expect(title.endsWith(text.slice(1))).toBe(true); // "…/tail" of the whole path
      }
    } finally {
      await o.page.close();
    }
  });
});

describe('chart legends and colours (issue 44)', () => {
  const legend = async (page: Page, chart: string) =>
    (await guides(page, chart)).find((a) => a.includes('legend')) ?? '';

  it('the harness legend lists only the harnesses with data in the chart', async () => {
    for (const name of ['monthly', 'summary-all-harnesses']) {
      const o = await open(files[name]!, 1280);
      try {
        const chart = name === 'monthly' ? 'month-over-month' : 'token-mix-by-harness';
        const data = await o.page.evaluate(
          () =>
            JSON.parse(document.getElementById('tx-usage-data')!.textContent!) as {
              charts: { el: string; data: string }[];
              data: Record<string, Record<string, unknown>[]>;
            },
        );
        if (name === 'monthly') {
          const rows = data.data.month_by_harness!.filter((r) => r.cost_usd !== null && r.cost_usd !== 0);
          const harnesses = [...new Set(rows.map((r) => r.harness as string))];
          const text = await legend(o.page, chart);
          expect(text).toMatch(new RegExp(`with ${harnesses.length} values?: `));
          for (const h of harnesses) expect(text).toContain(h);
          expect(harnesses.length).toBeLessThan(11);
        } else {
          // Token kinds: only those with tokens.
          const kinds = [
            ...new Set(data.data.token_mix!.filter((r) => Number(r.tokens) > 0).map((r) => r.kind as string)),
          ];
          expect(await legend(o.page, chart)).toMatch(new RegExp(`with ${kinds.length} values?: `));
        }
      } finally {
        await o.page.close();
      }
    }
  });

  it('cache read and cache write are clearly different colours', async () => {
    const o = await open(files['summary-all-harnesses']!, 1280);
    try {
      const byKind = await o.page.evaluate(() => {
        const out: Record<string, string> = {};
        for (const m of document.querySelectorAll(
          'figure.chart[data-chart="token-mix-by-harness"] .vis svg g.role-mark path',
        )) {
          const k = /(?:^|; )Kind: ([^;]+)/.exec(m.getAttribute('aria-label') ?? '')?.[1];
          if (k) out[k] = m.getAttribute('fill') ?? '';
        }
        return out;
      });
      const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
      const [a, b] = [rgb(byKind['cache read']!), rgb(byKind['cache write']!)];
      // Different in hue, not two near blues: the channels differ by far more than two shades of one blue do.
      const distance = Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
      expect(distance, JSON.stringify(byKind)).toBeGreaterThan(120);
      expect(new Set(Object.values(byKind)).size).toBe(Object.keys(byKind).length);
    } finally {
      await o.page.close();
    }
  });
});
