// The one place that talks to @pydantic/genai-prices.
//
// The library keeps ONE active price dataset in module state: the bundled data,
// or whatever was last passed to `setProviderData` through its `updatePrices`
// hook. A Pricer owns a dataset (bundled, or the file `prices update` stored);
// before asking the library anything it makes its dataset the active one, so
// two Pricers in one process (tests, `prices show` after an update) never see
// each other's data.
import {
  calcPrice,
  updatePrices as libUpdatePrices,
  waitForUpdate,
  REMOTE_DATA_JSON_URL,
} from '@pydantic/genai-prices';
import type { ModelInfo, ModelPrice, Provider } from '@pydantic/genai-prices';

let bundled: Provider[] | null = null;
let setProviderData: ((data: Provider[]) => void) | null = null;
let remoteDataUrl: string = REMOTE_DATA_JSON_URL;
let active: Provider[] | null = null;

/** Captures the bundled dataset and the library's data setter (once per process). */
export async function initLibrary(): Promise<{ bundled: Provider[]; remoteDataUrl: string }> {
  if (!bundled) {
    // Before anyone calls setProviderData, the library's pending data IS the bundled array.
    const data = await waitForUpdate();
    if (!Array.isArray(data)) throw new Error('genai-prices: bundled price data unavailable');
    bundled = data;
    active = data;
    libUpdatePrices((p) => {
      setProviderData = p.setProviderData as (data: Provider[]) => void;
      remoteDataUrl = p.remoteDataUrl;
    });
  }
  return { bundled, remoteDataUrl };
}

/** Makes `data` the library's active dataset. Throws (library validation) on malformed data. */
export function activate(data: Provider[]): void {
  if (active === data) return;
  if (!setProviderData) throw new Error('genai-prices: initLibrary() not called');
  // A plain array is applied synchronously (the library normalizes and validates it).
  setProviderData(data);
  active = data;
}

/** Checks that a parsed data file is something the library accepts, without leaving it active. */
export function validateDataset(data: unknown): string | null {
  if (!Array.isArray(data)) return 'expected a JSON array of providers';
  if (data.length === 0) return 'no providers';
  for (const p of data) {
    if (typeof p !== 'object' || p === null || typeof p.id !== 'string' || !Array.isArray(p.models))
      return 'a provider lacks id/models';
  }
  const before = active;
  try {
    activate(data as Provider[]);
    // A smoke resolution exercises matching and price selection on the new data.
    calcPrice({}, 'gpt-4o', { timestamp: new Date() });
    return null;
  } catch (e) {
    return (e as Error).message;
  } finally {
    if (before) activate(before);
  }
}

export interface LibraryMatch {
  provider: Provider;
  model: ModelInfo;
  /** Prices in force at the requested time (the library resolved start-date and time-of-day constraints). */
  prices: ModelPrice;
}

/**
 * Resolves (name, provider) at `ts` with the library's own provider and model
 * matching (incl. its dated-suffix normalization and provider fallbacks).
 * Passes an empty usage so only resolution runs. Null when nothing matches.
 */
export function libraryResolve(
  data: Provider[],
  model: string,
  providerId: string | undefined,
  ts: Date,
  warn?: (msg: string) => void,
): LibraryMatch | null {
  activate(data);
  // The library reports data it cannot use (e.g. a price key newer than it) on console.warn;
  // route that to our warnings instead of interleaving it with report output.
  const orig = console.warn;
  if (warn) console.warn = (...args: unknown[]) => warn(`genai-prices: ${args.map(String).join(' ')}`);
  try {
    const r = calcPrice({}, model, { providerId, timestamp: ts });
    if (!r) return null;
    return { provider: r.provider, model: r.model, prices: r.model_price };
  } finally {
    console.warn = orig;
  }
}
