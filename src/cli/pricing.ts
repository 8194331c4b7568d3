// The cost function the ingest uses to fill computed costs, and the two store
// chores that come with it: re-pricing stored rows when prices change, and
// naming the models that could not be priced. The prices themselves live in
// src/pricing (bundled @pydantic/genai-prices data, `prices update` file,
// `--prices` overrides); a model that matches nothing gets a null cost —
// never an invented price, never 0.
import { VARCHAR, type DuckDBConnection } from '../store/duckdb.js';
import { inputsOf } from '../core/inputs.js';
import { buildInputs } from './build-inputs.js';
import type { NearMatch, PricingRecord, Ready } from '../store/ready.js';
import { readTeamConfig } from '../export/config.js';
import type { HarnessId } from '../core/types.js';
import { loadPricer, PricesFileError, renderDescription, updatePrices, type Pricer } from '../pricing/index.js';
import { UsageError } from '../report/period.js';
import type { CostFn } from '../store/write.js';
import { settleMarks } from '../store/billed.js';
import { SESSIONS_PENDING } from '../store/session-stats.js';
import { cacheDir } from '../core/cache-dir.js';
import { messageLine, printableLines, warningLines } from '../render/terminal-text.js';
import { renderJson } from '../render/json.js';

export interface CostSetup {
  fn: CostFn;
  /** Warnings to show in reports (unusable price data file, bad override fields). */
  warnings: string[];
  /** Changes whenever prices or overrides change. */
  fingerprint: string;
  pricer: Pricer;
  /** What this setup was made from, to know it again without loading the prices (store/ready.ts). */
  record: PricingRecord;
}

/** Most one response may cost, in units of 1e-10 USD: USD 1,000,000, the bound of a recorded cost (core/numbers.ts checkCost). */
const MAX_COST_E10 = 10n ** 16n;

/** The setup behind each cost function, so the store chores below can be given just the function. */
const setups = new WeakMap<CostFn, CostSetup>();

/** What of a run (cli/runtime.ts Runtime) pricing reads. */
interface PricingRun {
  home: string;
  env: NodeJS.ProcessEnv;
  quiet: boolean;
  /** --prices FILE. */
  pricesFile?: string;
}

export async function costFunction(rt: PricingRun): Promise<CostSetup> {
  // Every file and variable the prices are made from (the config file, the
  // stored price data, the overrides file), noted with the answer each gave.
  const { value: pricer, inputs } = await inputsOf(async () => {
    // --prices FILE, else "prices" in the config file.
    const config = rt.pricesFile === undefined ? readTeamConfig(rt.env, rt.home) : null;
    const pricesFile = rt.pricesFile ?? config?.prices;
    try {
      return await loadPricer({ cacheDir: cacheDir(rt.env, rt.home), pricesFile });
    } catch (e) {
      // A usage error, named by where the file was given.
      if (e instanceof PricesFileError)
        throw new UsageError(`${config ? `"prices" in ${config.path}:` : '--prices'} ${e.path}: ${e.problem}`);
      throw e;
    }
  });
  // The build is an input too: the bundled price data and the pricing engine come with it.
  const record: PricingRecord = {
    basis: pricingBasis(rt),
    fingerprint: pricer.fingerprint,
    inputs: [...buildInputs(), ...inputs],
    warnings: [...pricer.warnings],
  };
  const fn: CostFn = (e) => {
    const units = pricer.costE10(e);
    if (units === null || units <= MAX_COST_E10) return units;
    // Stored as BIGINT units of 1e-10 USD: a cost past any real one is a bad price or count, not a crash.
    const w = `a ${e.model} response would cost more than $1,000,000 at its price; left unpriced (check the price)`;
    if (!pricer.warnings.includes(w)) pricer.warnings.push(w);
    return null;
  };
  // The pricer's own array: warnings met while pricing during the ingest show up too.
  const setup: CostSetup = { fn, warnings: pricer.warnings, fingerprint: pricer.fingerprint, pricer, record };
  setups.set(fn, setup);
  return setup;
}

/** What, besides its inputs, a run's prices are made from: its home and its --prices file. */
export function pricingBasis(rt: PricingRun): PricingRecord['basis'] {
  return { home: rt.home, pricesFile: rt.pricesFile ?? null };
}

/** The setup `fn` was made by (costFunction). */
export function setupOf(fn: CostFn): CostSetup {
  const setup = setups.get(fn);
  if (!setup) throw new Error('setupOf: a cost function costFunction did not make');
  return setup;
}

const FINGERPRINT_KEY = 'pricing_fingerprint';

/**
 * The meta row repriceStore looks for, for a store created in this run: it
 * holds no rows yet, and those the ingest writes are priced by `fn`, so the
 * store is created with it (store.ts, in its migration's transaction) and
 * repriceStore then has nothing to do (a fresh store's own transaction and
 * commit for it were ~10–25 ms of a cold run's main thread).
 */
export function pricingMetaOf(fn: CostFn): Record<string, string> {
  const setup = setups.get(fn);
  return setup ? { [FINGERPRINT_KEY]: setup.fingerprint } : {};
}

async function storedPricing(conn: DuckDBConnection): Promise<string | null> {
  const cur = await conn.runAndReadAll(`SELECT value FROM meta WHERE key = '${FINGERPRINT_KEY}'`);
  return (cur.getRowObjectsJson()[0] as { value?: string } | undefined)?.value ?? null;
}

/** Whether the store's computed costs are at `fn`'s prices (what repriceStore would leave): asked of a store that cannot be repriced. */
export async function pricedAsNow(conn: DuckDBConnection, fn: CostFn): Promise<boolean> {
  const setup = setups.get(fn);
  return !setup || (await storedPricing(conn)) === setup.fingerprint;
}

/**
 * Brings every stored row's computed cost up to date with the current prices,
 * once per price change: a no-op while the store's recorded fingerprint equals
 * the pricer's. Run before the ingest, so rows it writes are priced once.
 * One transaction: an interrupted re-price leaves the old costs and the old
 * fingerprint, and the next run does it again. The roll-ups of the sessions
 * whose rows changed are made again in it (settleMarks, store/rollups.ts).
 */
export async function repriceStore(conn: DuckDBConnection, fn: CostFn): Promise<number> {
  const setup = setups.get(fn);
  if (!setup) return 0;
  if ((await storedPricing(conn)) === setup.fingerprint) return 0;
  let changed = 0;
  await conn.run('BEGIN TRANSACTION');
  try {
    // Column vectors read item by item: several times faster than row arrays for millions of rows.
    const res = await conn.stream(`
      SELECT r.rowid::DOUBLE AS rid, a.harness, a.model, a.provider, r.ts_ms::DOUBLE AS ts,
             r.input_tokens::DOUBLE, r.cache_read_tokens::DOUBLE, r.cache_write_tokens::DOUBLE,
             r.cache_write_5m_tokens::DOUBLE, r.cache_write_1h_tokens::DOUBLE,
             r.output_tokens::DOUBLE, r.reasoning_tokens::DOUBLE, r.computed_cost_e10, r.requests::DOUBLE,
             a.speed, r.web_search_requests::DOUBLE, r.iteration::DOUBLE, a.billing_kind
      FROM usage_rows r JOIN event_attrs a USING (attr_id)`);
    const rids: number[] = [];
    const costs: (bigint | null)[] = [];
    for (;;) {
      const chunk = await res.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const col = Array.from({ length: 18 }, (_, i) => chunk.getColumnVector(i));
      const num = (c: number, i: number) => col[c]!.getItem(i) as number;
      const numOrNull = (c: number, i: number) => col[c]!.getItem(i) as number | null;
      for (let i = 0; i < chunk.rowCount; i++) {
        const e10 = setup.pricer.costE10({
          harness: col[1]!.getItem(i) as HarnessId,
          model: col[2]!.getItem(i) as string | null,
          provider: col[3]!.getItem(i) as string | null,
          ts: num(4, i),
          input_tokens: num(5, i),
          cache_read_tokens: num(6, i),
          cache_write_tokens: num(7, i),
          cache_write_5m_tokens: numOrNull(8, i),
          cache_write_1h_tokens: numOrNull(9, i),
          output_tokens: num(10, i),
          reasoning_tokens: num(11, i),
          requests: num(13, i),
          speed: col[14]!.getItem(i) as string | null,
          web_search_requests: numOrNull(15, i),
          iteration: numOrNull(16, i),
          billing_kind: col[17]!.getItem(i) as string | null,
        });
        if (e10 === (col[12]!.getItem(i) as bigint | null)) continue;
        rids.push(num(0, i));
        costs.push(e10);
      }
    }
    if (rids.length) {
      await conn.run('CREATE OR REPLACE TEMP TABLE txu_reprice (rid BIGINT, c BIGINT)');
      const a = await conn.createAppender('txu_reprice', 'main', 'temp');
      for (let i = 0; i < rids.length; i++) {
        a.appendBigInt(BigInt(rids[i]!));
        const c = costs[i];
        if (c === null || c === undefined) a.appendNull();
        else a.appendBigInt(c);
        a.endRow();
      }
      a.closeSync();
      await conn.run('UPDATE usage_rows SET computed_cost_e10 = t.c FROM txu_reprice t WHERE usage_rows.rowid = t.rid');
      // The roll-ups of the sessions whose costs changed are made again, in this transaction (store/rollups.ts).
      await conn.run(`
        INSERT INTO ${SESSIONS_PENDING}
        SELECT DISTINCT harness, session_id FROM event_attrs
        WHERE attr_id IN (SELECT attr_id FROM usage_rows WHERE rowid IN (SELECT rid FROM txu_reprice))`);
      await conn.run('DROP TABLE txu_reprice');
      await settleMarks(conn);
      changed = rids.length;
    }
    await conn.run(
      `INSERT OR REPLACE INTO meta VALUES ('${FINGERPRINT_KEY}', $fp)`,
      { fp: setup.fingerprint },
      { fp: VARCHAR },
    );
    await conn.run('COMMIT');
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
  return changed;
}

/**
 * Which models of the store are priced by a near match (another model's
 * entry its name merely begins like), judged once per (harness, provider,
 * model) the store holds, in that order, by a pricer of its own: what each
 * resolution warns of (price data the library cannot use) is said with the
 * model it came from, as a run that judged that model first would say it.
 * The judgements of `previous` (a ready row of the same prices) are kept:
 * only models new since are judged, and no prices are loaded when there are none.
 */
export async function judgeNearMatches(
  rt: PricingRun,
  conn: DuckDBConnection,
  previous: Pick<Ready, 'near' | 'resolveWarnings' | 'judged'> | null,
): Promise<Pick<Ready, 'near' | 'resolveWarnings' | 'judged'>> {
  const attrs = await conn.runAndReadAll(
    `SELECT DISTINCT harness, provider, model FROM event_attrs WHERE model IS NOT NULL ORDER BY harness, provider NULLS FIRST, model`,
  );
  const keyOf = (h: string, p: string | null, m: string) => `${h}\u0000${p ?? ''}\u0000${m}`;
  const judgedBefore = new Set(previous?.judged ?? []);
  const nearBefore = new Map((previous?.near ?? []).map((n) => [keyOf(n.harness, n.provider, n.model), n]));
  const warnedBefore = new Map((previous?.resolveWarnings ?? []).map((w) => [w.key, w]));
  let pricer: Pricer | null = null;
  const out: Pick<Ready, 'near' | 'resolveWarnings' | 'judged'> = { near: [], resolveWarnings: [], judged: [] };
  for (const a of attrs.getRowObjectsJson() as { harness: HarnessId; provider: string | null; model: string }[]) {
    const k = keyOf(a.harness, a.provider, a.model);
    out.judged.push(k);
    if (judgedBefore.has(k)) {
      const n = nearBefore.get(k);
      if (n) out.near.push(n);
      const w = warnedBefore.get(k);
      if (w) out.resolveWarnings.push(w);
      continue;
    }
    pricer ??= (await costFunction(rt)).pricer;
    const n = pricer.warnings.length;
    const m = pricer.nearMatch(a.model, a.provider, a.harness);
    if (m)
      out.near.push({
        harness: a.harness,
        provider: a.provider,
        model: a.model,
        entry: m.entry,
        entryProvider: m.provider,
      });
    if (pricer.warnings.length > n)
      out.resolveWarnings.push({ key: k, harness: a.harness, warnings: pricer.warnings.slice(n) });
  }
  return out;
}

/**
 * `tx-usage prices show MODEL [--provider ID] [--at DATE] [--format text|json]`:
 * the prices that apply to MODEL at a time, and which override or data entry matched.
 * A model with no price is a usage error (exit 2).
 */
export async function pricesShowCommand(
  rt: PricingRun,
  a: { model: string; provider?: string; at?: string; format?: string },
): Promise<number> {
  const format = a.format ?? 'text';
  if (format !== 'text' && format !== 'json')
    throw new UsageError(`--format ${JSON.stringify(a.format)}: expected text or json`);
  let ts = Date.now();
  if (a.at !== undefined) {
    ts = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(a.at) ? `${a.at}T00:00:00Z` : a.at);
    if (Number.isNaN(ts)) throw new UsageError(`--at ${JSON.stringify(a.at)}: expected YYYY-MM-DD or an ISO 8601 time`);
  }
  const { pricer, warnings } = await costFunction(rt);
  const d = pricer.describe(a.model, a.provider ?? null, ts);
  // The model is the user's input: one that has no price is a usage error (exit 2), in either format.
  if (!d) {
    const what = `${JSON.stringify(a.model)}${a.provider !== undefined ? ` (--provider ${a.provider})` : ''}`;
    throw new UsageError(
      `prices show ${what}: no price found (neither in the price data nor in a --prices file); its cost is reported as unknown, not $0`,
    );
  }
  process.stdout.write(format === 'json' ? renderJson(d) : printableLines(renderDescription(a.model, d)));
  if (!rt.quiet) process.stderr.write(warningLines(warnings));
  return d ? 0 : 1;
}

/** `tx-usage prices update`: the only command that touches the network. Exit status 1 when nothing was stored. */
export async function pricesUpdateCommand(rt: PricingRun): Promise<number> {
  const r = await updatePrices({ cacheDir: cacheDir(rt.env, rt.home) });
  (r.ok ? process.stdout : process.stderr).write(r.ok ? `${printableLines(r.message)}\n` : messageLine(r.message));
  return r.ok ? 0 : 1;
}
