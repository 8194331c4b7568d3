// The price data file `tx-usage prices update` stores, and how it is read back.
// Layout under the tx-usage cache dir:
//   prices/genai-prices-data.json   the library's data file, byte for byte as downloaded
//   prices/genai-prices-meta.json   { url, fetched_at, sha256, providers, models }
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { readInputText } from '../core/inputs.js';
import { join } from 'node:path';
import type { Provider } from '@pydantic/genai-prices';
import { initLibrary, validateDataset } from './library.js';
import { sha256 } from '../core/digest.js';

export function dataPaths(cacheDir: string): { dir: string; data: string; meta: string } {
  const dir = join(cacheDir, 'prices');
  return { dir, data: join(dir, 'genai-prices-data.json'), meta: join(dir, 'genai-prices-meta.json') };
}

export interface StoredMeta {
  url: string;
  fetched_at: string;
  sha256: string;
  providers: number;
  models: number;
}

export type StoredData =
  | { state: 'none' }
  | { state: 'ok'; data: Provider[]; sha256: string; meta: StoredMeta | null; path: string }
  | { state: 'bad'; path: string; reason: string };

/** Reads the stored data file; never throws. */
export function readStoredData(cacheDir: string): StoredData {
  const p = dataPaths(cacheDir);
  let text: string;
  try {
    text = readInputText(p.data); // core/inputs.ts: the report memo keys on it
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'none' };
    return { state: 'bad', path: p.data, reason: (e as Error).message };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { state: 'bad', path: p.data, reason: `not valid JSON (${(e as Error).message})` };
  }
  const invalid = validateDataset(data);
  if (invalid) return { state: 'bad', path: p.data, reason: invalid };
  let meta: StoredMeta | null = null;
  try {
    meta = JSON.parse(readInputText(p.meta)) as StoredMeta;
  } catch {
    meta = null;
  }
  return { state: 'ok', data: data as Provider[], sha256: sha256(text, 'hex'), meta, path: p.data };
}

export function countModels(data: Provider[]): { providers: number; models: number } {
  return { providers: data.length, models: data.reduce((n, p) => n + p.models.length, 0) };
}

export interface UpdateOptions {
  cacheDir: string;
  /** Where to download from; default: the library's own remote data URL (env TX_USAGE_PRICES_URL overrides). */
  url?: string;
  timeoutMs?: number;
}

/**
 * Downloads the library's current data file and stores it under cacheDir, after
 * checking the library can load it. Any failure leaves the stored file (or the
 * bundled data) in use and says so.
 */
export async function updatePrices(opts: UpdateOptions): Promise<{ ok: boolean; message: string }> {
  const { remoteDataUrl } = await initLibrary();
  const url = opts.url ?? (process.env.TX_USAGE_PRICES_URL || remoteDataUrl);
  const before = readStoredData(opts.cacheDir);
  const keeping =
    before.state === 'ok'
      ? `keeping the price data stored ${before.meta ? `on ${before.meta.fetched_at}` : 'earlier'} (${before.path})`
      : 'keeping the bundled price data';
  let text: string;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000) });
    if (!res.ok)
      return { ok: false, message: `could not download price data from ${url}: HTTP ${res.status}; ${keeping}` };
    text = await res.text();
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const why = err.name === 'TimeoutError' ? 'timed out' : (err.cause?.code ?? err.cause?.message ?? err.message);
    return { ok: false, message: `could not download price data from ${url} (no network? ${why}); ${keeping}` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, message: `the file downloaded from ${url} is not JSON; ${keeping}` };
  }
  const invalid = validateDataset(data);
  if (invalid)
    return { ok: false, message: `the file downloaded from ${url} is not usable price data (${invalid}); ${keeping}` };
  const counts = countModels(data as Provider[]);
  const hash = sha256(text, 'hex');
  const p = dataPaths(opts.cacheDir);
  if (before.state === 'ok' && before.sha256 === hash) {
    return {
      ok: true,
      message: `price data already up to date (${counts.providers} providers, ${counts.models} models; ${p.data})`,
    };
  }
  const meta: StoredMeta = { url, fetched_at: new Date().toISOString(), sha256: hash, ...counts };
  try {
    mkdirSync(p.dir, { recursive: true });
    // Write-then-rename: a reader never sees half a file.
    writeFileSync(`${p.data}.tmp`, text);
    renameSync(`${p.data}.tmp`, p.data);
    writeFileSync(`${p.meta}.tmp`, JSON.stringify(meta, null, 2) + '\n');
    renameSync(`${p.meta}.tmp`, p.meta);
  } catch (e) {
    return { ok: false, message: `could not store price data in ${p.dir}: ${(e as Error).message}; ${keeping}` };
  }
  return {
    ok: true,
    message: `price data updated from ${url}: ${counts.providers} providers, ${counts.models} models, stored in ${p.data}`,
  };
}
