// What every command needs: resolved global options, the store opened and
// refreshed, progress on stderr, and clean error reporting.
import { rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { makeWorkDir } from './workdir.js';
import { isHarnessId, type HarnessId } from '../core/types.js';
import type { IngestResult } from '../ingest/ingest.js';
import type { Store } from '../store/store.js';
import { UsageError } from '../report/period.js';
import type { CostFn } from '../store/write.js';
import { mark } from '../core/trace.js';

export interface GlobalArgs {
  db?: string;
  root?: string[];
  quiet?: boolean;
  color?: boolean;
  rebuild?: boolean;
  prices?: string;
}

export interface Runtime {
  home: string;
  env: NodeJS.ProcessEnv;
  dbPath: string;
  rootOverrides: Partial<Record<HarnessId, string[]>>;
  quiet: boolean;
  color: boolean;
  rebuild: boolean;
  /** `--prices FILE`: LiteLLM-format price overrides. */
  pricesFile?: string;
}

export function cacheDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.trim() ? env.XDG_CACHE_HOME : join(home, '.cache'), 'tx-usage');
}

export function parseRootOverrides(list: string[] | undefined): Partial<Record<HarnessId, string[]>> {
  const out: Partial<Record<HarnessId, string[]>> = {};
  for (const item of list ?? []) {
    const eq = item.indexOf('=');
    const id = eq > 0 ? item.slice(0, eq) : '';
    if (!isHarnessId(id) || eq === item.length - 1) {
      throw new UsageError(`--root ${JSON.stringify(item)}: expected HARNESS=PATH with HARNESS one of claude-code, codex, cursor-agent, opencode, pi`);
    }
    (out[id] ??= []).push(item.slice(eq + 1));
  }
  return out;
}

export function runtimeFrom(args: GlobalArgs, env = process.env): Runtime {
  const home = env.HOME && env.HOME.trim() ? env.HOME : homedir();
  const colorAllowed = args.color !== false && !('NO_COLOR' in env && env.NO_COLOR !== '') && process.stdout.isTTY === true;
  return {
    home,
    env,
    dbPath: args.db ?? join(cacheDir(env, home), 'usage.duckdb'),
    rootOverrides: parseRootOverrides(args.root),
    quiet: args.quiet === true,
    color: colorAllowed,
    rebuild: args.rebuild === true,
    pricesFile: args.prices,
  };
}

/** A one-line progress bar on stderr, only when stderr is a terminal. */
export function progressBar(rt: Runtime): ((done: number, total: number) => void) | undefined {
  if (rt.quiet || !process.stderr.isTTY) return undefined;
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (done < total && now - last < 100) return;
    last = now;
    const w = 30;
    const filled = total ? Math.round((done / total) * w) : w;
    process.stderr.write(`\r[${'#'.repeat(filled)}${' '.repeat(w - filled)}] ${done}/${total} sources`);
    if (done >= total) process.stderr.write('\r' + ' '.repeat(w + 30) + '\r');
  };
}

export function notice(rt: Runtime, msg: string): void {
  if (!rt.quiet) process.stderr.write(`tx-usage: ${msg}\n`);
}

export interface Refreshed {
  store: Store;
  ingest: IngestResult;
}

/** Opens the store and brings it up to date with the harness files. */
export async function openAndRefresh(rt: Runtime, cost: CostFn, o: { horizonMs?: number | null; deltaBaseByCaller?: boolean } = {}): Promise<Refreshed> {
  // Loaded here, not at start-up: a report answered from its memo never needs DuckDB.
  const [{ openStore }, { ingest, sidecarPath }, { repriceStore, priceCacheOf, pricingMetaOf }, { earlyExtractionStarted }] = await Promise.all([
    import('../store/store.js'),
    import('../ingest/ingest.js'),
    import('./pricing.js'),
    import('../ingest/early.js'),
  ]);
  mark('store modules loaded');
  // One DuckDB thread while an early extraction keeps every core busy (a
  // store never filled, many sources): a second one only competed with the
  // extraction threads for the cores; cold 30-day runs of the benchmark were
  // ~25 ms faster, whole-history ones ~40 ms, the report queries and the
  // checkpoint after the ingest included.
  const threads = earlyExtractionStarted() ? 1 : 2;
  const store = await openStore(rt.dbPath, { rebuild: rt.rebuild, createdMeta: pricingMetaOf(cost), threads });
  mark('store open');
  if (store.notice) notice(rt, store.notice);
  const tmp = makeWorkDir();
  try {
    // Rows priced under older prices or overrides get today's prices first.
    await repriceStore(store.conn, cost);
    mark('repriced');
    const result = await ingest(store.conn, {
      home: rt.home,
      env: rt.env,
      rootOverrides: rt.rootOverrides,
      tmpDir: tmp,
      cost,
      progress: progressBar(rt),
      sidecar: sidecarPath(rt.dbPath),
      delta: undefined, // the delta path declines (cli/delta.ts): its base is not kept
      horizonMs: o.horizonMs ?? null,
    });
    mark('ingested');
    // The checkpoint runs on DuckDB's threads; the delta base is written,
    // and the caller's queries run, meanwhile (store.close() waits for it).
    // deltaBaseByCaller: the caller calls ingest.keepDeltaBase itself, once
    // it has queries of its own running.
    store.settle();
    if (!o.deltaBaseByCaller) {
      result.keepDeltaBase?.();
      mark('delta base kept');
    }
    return { store, ingest: result };
  } catch (e) {
    await store.close();
    throw e;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
