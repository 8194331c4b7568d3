// What every command needs: resolved global options, the store opened and
// refreshed, progress on stderr, and clean error reporting.
import { envPathValue } from '../io/raw-path.js';
import { accessSync, constants, rmSync, statSync } from 'node:fs';
import { fsProblem } from '../core/fs-problem.js';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { makeWorkDir } from './workdir.js';
import { HARNESS_IDS, isHarnessId, type HarnessId } from '../core/types.js';
import type { IngestOptions, IngestResult } from '../ingest/ingest.js';
import type { Store } from '../store/store.js';
import type { Ready } from '../store/ready.js';
import { UsageError } from '../report/period.js';
import type { CostFn } from '../store/write.js';
import { mark } from '../core/trace.js';
import { cacheDir, cacheDirProblem } from '../core/cache-dir.js';
import { inputEnv, inputIsTTY, resolveInputPath } from '../core/inputs.js';
import { messageLine, warningLines } from '../render/terminal-text.js';
import { counted } from '../core/plural.js';

export { cacheDir };

export interface GlobalArgs {
  db?: string;
  root?: string[];
  quiet?: boolean;
  color?: boolean;
  rebuild?: boolean;
  /** Confirms what would otherwise be refused (--rebuild dropping retained history). */
  yes?: boolean;
  prices?: string;
}

export interface Runtime {
  home: string;
  /** The environment; reads of it are the run's inputs (core/inputs.ts inputEnv). */
  env: NodeJS.ProcessEnv;
  dbPath: string;
  /** --db was given (its folder must exist; the default one is made). */
  dbGiven: boolean;
  rootOverrides: Partial<Record<HarnessId, string[]>>;
  quiet: boolean;
  color: boolean;
  rebuild: boolean;
  yes: boolean;
  /** `--prices FILE`: LiteLLM-format price overrides. */
  pricesFile?: string;
  /**
   * Where the record of files tx-usage wrote (--out, out-file.ts) is kept,
   * when not the cache dir of `env`/`home`: a demo runs on a generated home
   * but writes the user's files, and must know them again next time.
   */
  outputsDir?: string;
}

export function parseRootOverrides(list: string[] | undefined): Partial<Record<HarnessId, string[]>> {
  // Repeatable: yargs gives an array, or one string for a single --root.
  if (typeof list === 'string') list = [list];
  const out: Partial<Record<HarnessId, string[]>> = {};
  for (const item of list ?? []) {
    const eq = item.indexOf('=');
    const id = eq > 0 ? item.slice(0, eq) : '';
    if (!isHarnessId(id) || eq === item.length - 1) {
      throw new UsageError(
        `--root ${JSON.stringify(item)}: expected HARNESS=PATH with HARNESS one of ${HARNESS_IDS.join(', ')}`,
      );
    }
    const path = item.slice(eq + 1);
    // Relative paths are resolved (by the harness) against the working directory: then it is an input.
    if (!path.startsWith('~')) resolveInputPath(path);
    (out[id] ??= []).push(path);
  }
  return out;
}

export function runtimeFrom(args: GlobalArgs, env: NodeJS.ProcessEnv = inputEnv): Runtime {
  const home = env.HOME && env.HOME.trim() ? envPathValue('HOME', env.HOME) : homedir();
  return {
    home,
    env,
    dbPath:
      args.db === undefined || args.db === ':memory:'
        ? (args.db ?? join(cacheDir(env, home), 'usage.duckdb'))
        : resolveInputPath(args.db),
    dbGiven: args.db !== undefined,
    rootOverrides: parseRootOverrides(args.root),
    quiet: args.quiet === true,
    // Asked when a renderer needs it: the terminal is an input only of what is rendered for it.
    get color() {
      // --color / --no-color given on the command line win (over NO_COLOR, as no-color.org asks, and when piped);
      // by default, colour on a terminal unless NO_COLOR is set.
      if (typeof args.color === 'boolean') return args.color;
      return !('NO_COLOR' in env && env.NO_COLOR !== '') && inputIsTTY(1);
    },
    rebuild: args.rebuild === true,
    yes: args.yes === true,
    pricesFile: args.prices === undefined ? undefined : resolveInputPath(args.prices),
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
  if (!rt.quiet) process.stderr.write(messageLine(msg));
}

export interface Refreshed {
  store: Store;
  ingest: IngestResult;
  /** The --root problems (rootProblems), already on stderr unless the caller kept them. */
  rootWarnings: string[];
  /**
   * The store could not be written and was answered from as it is (opened
   * read-only, nothing ingested: `readOnlyOk`): its warning, already on
   * stderr unless the caller kept it (with `keepRootWarnings`). Else empty.
   */
  storeWarnings: string[];
  /** With `ready`: what a report needs besides its query, as kept for the next question (store/ready.ts). */
  ready?: Ready;
}

/** Options of a refresh. `ready`: make (and keep, when the store is up to date and writable) the ready row. */
interface RefreshOptions {
  horizonMs?: number | null;
  keepRootWarnings?: boolean;
  onWrite?: IngestOptions['onWrite'];
  readOnlyOk?: boolean;
  ready?: boolean;
}

/** `--db PATH` in a folder that does not exist: a usage error (the default store's folder is made). */
export function checkDbFolder(rt: Runtime): void {
  if (!rt.dbGiven) {
    // The default store's folder is made: one that cannot be is said in words, not as mkdir's ENOTDIR.
    const problem = cacheDirProblem(rt.env, rt.home);
    if (problem) throw new UsageError(problem);
  }
  if (!rt.dbGiven || rt.dbPath === ':memory:') return;
  const dir = dirname(rt.dbPath);
  let st;
  try {
    st = statSync(dir, { throwIfNoEntry: false });
  } catch (e) {
    throw new UsageError(`--db ${rt.dbPath}: ${dir}: ${fsProblem(e)}`);
  }
  if (!st) throw new UsageError(`--db ${rt.dbPath}: no such folder ${dir}`);
  if (!st.isDirectory()) throw new UsageError(`--db ${rt.dbPath}: ${dir} is not a folder`);
}

/**
 * Opens the store and brings it up to date with the harness files. The
 * --root problems go to stderr as warnings, unless `keepRootWarnings` (the
 * report puts them among its own warnings).
 */
export async function openAndRefresh(rt: Runtime, cost: CostFn, o: RefreshOptions = {}): Promise<Refreshed> {
  checkDbFolder(rt);
  const rootWarnings = [...rootProblems(rt).values()].flat();
  if (!o.keepRootWarnings && !rt.quiet) process.stderr.write(warningLines(rootWarnings));
  // Loaded here, not at start-up: a report answered from its memo never needs DuckDB.
  const [{ openStore, ReadOnlyStoreError }, { pricingMetaOf }, { earlyExtractionStarted }] = await Promise.all([
    import('../store/store.js'),
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
  let store: Store;
  try {
    store = await openStore(rt.dbPath, { rebuild: rt.rebuild, yes: rt.yes, createdMeta: pricingMetaOf(cost), threads });
  } catch (e) {
    // A store there is, but this user cannot write it: a command that only reads answers from it as it is.
    if (!(o.readOnlyOk && !rt.rebuild && e instanceof ReadOnlyStoreError)) throw e;
    const answered = await answerReadOnly(rt, cost, e, o.horizonMs ?? null);
    if (!answered) throw e;
    if (!o.keepRootWarnings && !rt.quiet) process.stderr.write(warningLines(answered.storeWarnings));
    return {
      ...answered,
      rootWarnings,
      ready: o.ready ? await readyOf(rt, answered.store, answered.ingest, cost, false) : undefined,
    };
  }
  mark('store open');
  if (store.notice) notice(rt, store.notice);
  return { ...(await refreshStore(rt, store, cost, o)), rootWarnings };
}

/**
 * Brings the open `store` up to date: prices, then the ingest (with the
 * sources a memo check or a current-store check found, when offered).
 * Closes the store if that fails.
 */
export async function refreshStore(
  rt: Runtime,
  store: Store,
  cost: CostFn,
  o: RefreshOptions = {},
): Promise<Omit<Refreshed, 'rootWarnings'>> {
  const [{ ingest, sidecarPath }, { repriceStore }] = await Promise.all([
    import('../ingest/ingest.js'),
    import('./pricing.js'),
  ]);
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
      horizonMs: o.horizonMs ?? null,
      onWrite: o.onWrite,
    });
    mark('ingested');
    const ready = o.ready ? await readyOf(rt, store, result, cost, true) : undefined;
    // The checkpoint runs on DuckDB's threads while the caller's queries run (store.close() waits for it).
    store.settle();
    return { store, ingest: result, storeWarnings: [], ready };
  } catch (e) {
    await store.close();
    throw e;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The ready row of the store as `ingest` left it (store/ready.ts): the
 * sources' warnings and facts, the prices' record, the near matches (those of
 * the row before kept when the prices are the same). Kept when `keep` and the
 * ingest left the store up to date (its sources digest recorded).
 */
async function readyOf(rt: Runtime, store: Store, ingest: IngestResult, cost: CostFn, keep: boolean): Promise<Ready> {
  const [{ setupOf, judgeNearMatches }, { sourceFacts }, { readCurrentMeta, saveReady, READY_VERSION }] =
    await Promise.all([import('./pricing.js'), import('../ingest/ready.js'), import('../store/ready.js')]);
  const setup = setupOf(cost);
  const before = (await readCurrentMeta(store.conn)).ready;
  // Still the row of this state and of prices made from the same inputs: nothing to make or write.
  if (before && before.digest === ingest.digest && JSON.stringify(before.pricing) === JSON.stringify(setup.record))
    return before;
  const ready: Omit<Ready, 'v'> = {
    digest: ingest.digest,
    pricing: setup.record,
    ...(await sourceFacts(store.conn, ingest.scans)),
    ...(await judgeNearMatches(
      rt,
      store.conn,
      before && before.pricing.fingerprint === setup.fingerprint ? before : null,
    )),
  };
  if (keep && (await saveReady(store.conn, ready))) mark('ready row saved');
  return { v: READY_VERSION, ...ready };
}

/**
 * The store at rt.dbPath cannot be written (`e` says why): opened read-only
 * instead, without ingesting (ingest/survey.ts counts what an ingest would
 * have read), with a warning that says so. Null when there is no store to
 * answer from (none yet, one of another schema version, or one DuckDB cannot
 * open read-only either): the caller then throws `e` as it is.
 */
async function answerReadOnly(
  rt: Runtime,
  cost: CostFn,
  e: { path: string; problem: string },
  horizonMs: number | null,
): Promise<Omit<Refreshed, 'rootWarnings'> | null> {
  const [{ openStoreReadOnly }, { surveyReadOnly }, { pricedAsNow }] = await Promise.all([
    import('../store/store.js'),
    import('../ingest/survey.js'),
    import('./pricing.js'),
  ]);
  const store = await openStoreReadOnly(rt.dbPath, {}, { withoutLockFile: true });
  if (!store) return null;
  mark('store open read-only');
  try {
    const { result, changed } = await surveyReadOnly(store.conn, {
      home: rt.home,
      env: rt.env,
      rootOverrides: rt.rootOverrides,
      tmpDir: '',
      cost,
      horizonMs,
    });
    const prices = (await pricedAsNow(store.conn, cost))
      ? ''
      : '; its computed costs are at the prices it was last written with, not the current ones';
    const what =
      changed === 0
        ? 'answered from what it holds, which no source has changed since it was last written'
        : `answered from what it holds: ${counted(changed, 'source')} new or changed since it was last written ${changed === 1 ? 'was' : 'were'} not read, so the answer may be stale`;
    return {
      store,
      ingest: result,
      storeWarnings: [
        `the store ${e.path} is read-only (${e.problem}): ${what}${prices} (give it write permission, or use --db for a store elsewhere)`,
      ],
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/**
 * `--root HARNESS=PATH` overrides whose PATH cannot be searched (missing,
 * unreadable): one warning each, by harness. The harness then finds nothing
 * there; said, not silently dropped.
 */
export function rootProblems(rt: Runtime): Map<HarnessId, string[]> {
  const out = new Map<HarnessId, string[]>();
  for (const [id, paths] of Object.entries(rt.rootOverrides) as [HarnessId, string[]][]) {
    for (const p of paths) {
      const abs = resolve(p === '~' ? rt.home : p.startsWith('~/') ? join(rt.home, p.slice(2)) : p);
      let why: string | null = null;
      try {
        const st = statSync(abs);
        accessSync(abs, st.isDirectory() ? constants.R_OK | constants.X_OK : constants.R_OK);
      } catch (e) {
        why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : fsProblem(e);
      }
      if (why) (out.get(id) ?? out.set(id, []).get(id)!).push(`--root ${id}=${p}: ${why}`);
    }
  }
  return out;
}
