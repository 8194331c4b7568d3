// `prices update`: download the library's data file, store it under the cache
// dir, use it from then on; without network (or with a bad download) say so and
// keep what was in use. A local HTTP server stands in for the remote URL.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForUpdate } from '@pydantic/genai-prices';
import type { PriceableUsage } from '../../src/pricing/index.js';
import { dataPaths, loadPricer, updatePrices } from '../../src/pricing/index.js';
import { tempDir } from '../helpers/temp.js';

let base = '';
let routes: Record<string, { status: number; body: string }> = {};
const server = createServer((req, res) => {
  const r = routes[req.url ?? ''] ?? { status: 404, body: 'not found' };
  res.writeHead(r.status, { 'content-type': 'application/json' });
  res.end(r.body);
});

// A "newer" data file: the bundled data with claude-opus-5-5's input price raised from 4 to 40 per million.
let newerData = '';

beforeAll(async () => {
  const bundled = JSON.parse(JSON.stringify(await waitForUpdate()));
  const opus = bundled.find((p: any) => p.id === 'anthropic').models.find((m: any) => m.id === 'claude-opus-5-5');
  expect(opus.prices.input_mtok).toBe(4);
  opus.prices.input_mtok = 40;
  // A price key newer than the installed library: it warns (through our warnings, not the console) and prices the rest.
  opus.prices.teleport_mtok = 1;
  newerData = JSON.stringify(bundled);
  routes = {
    '/data.json': { status: 200, body: newerData },
    '/object.json': { status: 200, body: JSON.stringify({ providers: [] }) },
    '/garbage.json': { status: 200, body: '<html>captive portal</html>' },
    '/error.json': { status: 503, body: 'unavailable' },
  };
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

const resp: PriceableUsage = {
  harness: 'claude-code',
  model: 'claude-opus-5-5',
  provider: null,
  ts: Date.parse('2026-01-10T00:00:00Z'),
  input_tokens: 1200,
  cache_read_tokens: 50000,
  cache_write_tokens: 3000,
  cache_write_5m_tokens: 1000,
  cache_write_1h_tokens: 2000,
  output_tokens: 800,
  reasoning_tokens: 0,
};
// bundled: 1200×4 + 50000×0.2 + 1000×5 + 2000×8 + 800×20 = 51800
const BUNDLED_COST = '0.0518';
// updated: 1200×40 + 10000 + 5000 + 16000 + 16000 = 95000
const UPDATED_COST = '0.095';

describe('updatePrices', () => {
  it('without network: clear message, nothing stored, bundled data kept', async () => {
    const cacheDir = tempDir('txu-upd-');
    // A port nobody listens on: connection refused, as offline.
    const closed = createServer();
    await new Promise<void>((ok) => closed.listen(0, '127.0.0.1', ok));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((ok) => closed.close(() => ok()));
    const r = await updatePrices({ cacheDir, url: `http://127.0.0.1:${port}/data.json` });
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/could not download price data .*no network\?.*keeping the bundled price data/);
    expect(existsSync(dataPaths(cacheDir).data)).toBe(false);
    const p = await loadPricer({ cacheDir });
    expect(p.cost(resp)).toBe(BUNDLED_COST);
  });

  it('stores a newer data file that is used from then on, and isolates pricers from each other', async () => {
    const cacheDir = tempDir('txu-upd-');
    const before = await loadPricer({ cacheDir });
    const r = await updatePrices({ cacheDir, url: `${base}/data.json` });
    expect(r).toMatchObject({ ok: true });
    expect(r.message).toMatch(/price data updated from .* stored in /);
    expect(readFileSync(dataPaths(cacheDir).data, 'utf8')).toBe(newerData);
    const meta = JSON.parse(readFileSync(dataPaths(cacheDir).meta, 'utf8'));
    expect(meta).toMatchObject({ url: `${base}/data.json` });
    const after = await loadPricer({ cacheDir });
    expect(after.dataSource).toContain(dataPaths(cacheDir).data);
    expect(after.fingerprint).not.toBe(before.fingerprint);
    expect(after.cost(resp)).toBe(UPDATED_COST);
    expect(after.warnings).toEqual(['genai-prices: Unsupported price key for standard pricing: teleport_mtok']);
    // The older pricer resolves this model only now, after the newer one made its data active in the library.
    expect(before.cost(resp)).toBe(BUNDLED_COST);
    expect(after.cost({ ...resp, ts: resp.ts + 86_400_000 * 3 })).toBe(UPDATED_COST);

    const again = await updatePrices({ cacheDir, url: `${base}/data.json` });
    expect(again).toMatchObject({ ok: true });
    expect(again.message).toMatch(/already up to date/);
  });

  it('rejects unusable downloads and keeps the stored data', async () => {
    const cacheDir = tempDir('txu-upd-');
    expect((await updatePrices({ cacheDir, url: `${base}/data.json` })).ok).toBe(true);
    for (const [path, why] of [
      ['/object.json', /not usable price data \(expected a JSON array of providers\)/],
      ['/garbage.json', /is not JSON/],
      ['/error.json', /HTTP 503/],
    ] as const) {
      const r = await updatePrices({ cacheDir, url: `${base}${path}` });
      expect(r.ok).toBe(false);
      expect(r.message).toMatch(why);
      expect(r.message).toMatch(/keeping the price data stored on /);
      expect(readFileSync(dataPaths(cacheDir).data, 'utf8')).toBe(newerData);
    }
    expect((await loadPricer({ cacheDir })).cost(resp)).toBe(UPDATED_COST);
  });

  it('falls back to the bundled data, with a warning, when the stored file is damaged', async () => {
    const cacheDir = tempDir('txu-upd-');
    expect((await updatePrices({ cacheDir, url: `${base}/data.json` })).ok).toBe(true);
    writeFileSync(dataPaths(cacheDir).data, newerData.slice(0, 1000));
    const p = await loadPricer({ cacheDir });
    expect(p.warnings.join('\n')).toMatch(/genai-prices-data\.json is unusable \(not valid JSON/);
    expect(p.dataSource).toMatch(/^bundled/);
    expect(p.cost(resp)).toBe(BUNDLED_COST);
  });
});
