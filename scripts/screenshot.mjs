// Renders the README's HTML report screenshot (docs/report-summary.png) from
// generated demo data: `tx-usage demo` writes a month of sample history in
// each harness's real format into a private temporary home, and headless
// Chromium (Debian's `chromium`, driven by playwright-core) photographs the
// self-contained HTML page. Nothing is read from your home directory.
//
//   npm run build && node scripts/screenshot.mjs [OUT.png] [REPORT]
//
// REPORT is a report name (summary, monthly, compare, blocks; default summary).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? join(root, 'docs', 'report-summary.png'));
const report = process.argv[3] ?? 'summary';
const bin = join(root, 'dist', 'src', 'cli', 'fast.cjs');

const dir = mkdtempSync(join(tmpdir(), 'tx-usage-screenshot-'));
let browser;
try {
  const html = join(dir, 'report.html');
  const by = report === 'summary' ? ['--by', 'day,harness'] : [];
  // An empty HOME and cache: the demo never looks at the real one anyway.
  const env = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    TZ: 'UTC',
    NO_COLOR: '1',
  };
  const r = spawnSync(
    process.execPath,
    [bin, 'demo', report, ...by, '--tz', 'UTC', '--format', 'html', '--out', html, '--quiet'],
    { env, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`tx-usage demo exited ${r.status}: ${r.stderr}`);
  // The page must not name an absolute path of this machine (the shared-output rule).
  const text = readFileSync(html, 'utf8');
  if (text.includes(dir)) throw new Error(`the HTML names the temporary home ${dir}`);

  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(`file://${html}`);
  // Vega draws asynchronously: wait until every chart has its marks.
  await page
    .waitForFunction(
      () => [...document.querySelectorAll('.vis')].every((el) => el.querySelector('svg, canvas')),
      null,
      { timeout: 30000 },
    )
    .catch(() => {});
  await page.waitForTimeout(500);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.screenshot({
    path: out,
    fullPage: true,
    clip: { x: 0, y: 0, width: 1280, height: Math.min(height, 1400) },
  });
  process.stdout.write(`${out}\n`);
} finally {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
}
