// The blocks report's HTML in real headless Chromium: the chart draws its
// blocks and the limit line, nothing is logged, nothing is loaded.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BLOCKS_NOW, buildBlocksHome } from '../../fixtures/live/blocks.js';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';

let browser: Browser;
let dir: string;
let file: string;

beforeAll(async () => {
  dir = tempDir('txu-blocks-html-');
  const fx = buildBlocksHome(join(dir, 'home'));
  file = join(dir, 'blocks.html');
  const r = runCli(
    [
      'report',
      'blocks',
      '--prices',
      fx.pricesFile,
      '--tz',
      'UTC',
      '--since',
      '2026-03-27',
      '--until',
      '2026-03-29',
      '--token-limit',
      '20000',
      '--format',
      'html',
      '--out',
      file,
    ],
    cleanEnv(fx.home, { TX_USAGE_NOW: BLOCKS_NOW }),
  );
  if (r.status !== 0) throw new Error(r.stderr);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
});

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('draws one bar per block and the token-limit rule, with no console message or request', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const consoleMsgs: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') consoleMsgs.push(m.text());
  });
  page.on('pageerror', (e) => consoleMsgs.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(
    () => [...document.querySelectorAll('.vis')].every((e) => e.getAttribute('data-rendered')),
    null,
    { timeout: 30_000 },
  );
  const marks = await page.evaluate(() => ({
    rendered: document.querySelector('figure[data-chart="blocks-over-time"] .vis')?.getAttribute('data-rendered'),
    rects: document.querySelectorAll('figure[data-chart="blocks-over-time"] g.mark-rect.role-mark path').length,
    rules: document.querySelectorAll('figure[data-chart="blocks-over-time"] g.mark-rule.role-mark line').length,
  }));
  expect(marks).toEqual({ rendered: 'true', rects: 4, rules: 1 });
  expect(consoleMsgs).toEqual([]);
  expect(requests).toEqual([pathToFileURL(file).href]);
  await page.close();
});
