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
import { ALL_RANGE, buildAllHome, type AllHome } from '../fixtures/all-harnesses.js';
import { packageRoot } from '../src/report/template.js';
import { cleanEnv, runCli, tempDir } from './helpers/cli.js';
import { buildTwoMonthHome, XSS, XSS_PROJECT } from './report-fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(packageRoot(), 'test-artifacts');

let browser: Browser;
let dir: string;
let fx: AllHome;
const files: Record<string, string> = {};

function html(name: string, args: string[], env: NodeJS.ProcessEnv): string {
  const out = join(dir, `${name}.html`);
  const r = runCli(['report', ...args, '--format', 'html', '--out', out], env);
  if (r.status !== 0) throw new Error(`tx-usage ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return out;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)`);
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
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
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
  await page.waitForFunction(() => [...document.querySelectorAll('.vis')].every((e) => e.getAttribute('data-rendered')), null, { timeout: 30_000 });
  return o;
}

/** Per chart: rendered state and how many data marks its SVG holds. */
const chartMarks = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('figure.chart')].map((f) => ({
      chart: f.getAttribute('data-chart'),
      rendered: f.querySelector('.vis')?.getAttribute('data-rendered'),
      marks: f.querySelectorAll('.vis svg g.role-mark > path, .vis svg g.role-mark > rect, .vis svg g.role-mark > line, .vis svg g.role-mark > g').length,
    })),
  );

describe.each([
  ['summary', ['daily-cost-by-model', 'cost-by-project', 'cost-by-harness', 'token-mix-by-harness']],
  ['monthly', ['month-over-month', 'cost-components', 'daily-cost-by-model', 'cost-by-project', 'cost-by-harness', 'token-mix-by-harness']],
  ['compare', ['cost-per-prompt', 'cost-per-request', 'tokens-per-request', 'output-per-request', 'cache-hit-rate', 'reasoning-share', 'daily-cost-by-model', 'cost-by-project', 'cost-by-harness', 'token-mix-by-harness']],
  ['compare-all-harnesses', ['cost-per-prompt', 'cost-per-request', 'tokens-per-request', 'output-per-request', 'cache-hit-rate', 'reasoning-share', 'daily-cost-by-model', 'cost-by-project', 'cost-by-harness', 'token-mix-by-harness']],
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
      expect(await o.page.evaluate(() => (window as unknown as { alertCalled?: boolean }).alertCalled ?? null)).toBeNull();
      if (!name.includes('all-harnesses')) {
        // The injected project name is on the page as text, in tables and chart labels.
        const cells = await o.page.evaluate((p) => [...document.querySelectorAll('td')].filter((td) => td.textContent === p).length, XSS_PROJECT);
        if (name !== 'compare') expect(cells).toBeGreaterThan(0); // compare has no project table, only the chart
        // The project chart labels it by its shortest distinct tail ("…/script>"), drawn as SVG text.
        const svgText = await o.page.evaluate(() => [...document.querySelectorAll('svg text')].map((t) => t.textContent ?? ''));
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
      const values = () => table.evaluate((t, i) => [...(t as HTMLTableElement).tBodies[0]!.rows].map((r) => Number(r.cells[i]!.getAttribute('data-v'))), col);
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
      const costs = await table.evaluate((t, i) => [...(t as HTMLTableElement).tBodies[0]!.rows].map((r) => r.cells[i]!.getAttribute('data-v')), costCol);
      const known = costs.filter((c) => c !== '');
      expect(costs.slice(0, known.length)).toEqual(known); // unknown (unpriced) costs last
      expect(known.map(Number)).toEqual([...known].map(Number).sort((a, b) => b - a));
      expect(o.console).toEqual([]);
    } finally {
      await o.page.close();
    }
  });
});
