// The cost function the ingest uses to fill computed costs, and the two store
// chores that come with it: re-pricing stored rows when prices change, and
// naming the models that could not be priced. The prices themselves live in
// src/pricing (bundled @pydantic/genai-prices data, `prices update` file,
// `--prices` overrides); a model that matches nothing gets a null cost —
// never an invented price, never 0.
import { LIST, VARCHAR, listValue, type DuckDBConnection } from '../store/duckdb.js';
import { readTeamConfig } from '../export/config.js';
import type { HarnessId } from '../core/types.js';
import { loadPricer, PricesFileError, renderDescription, updatePrices, type Pricer } from '../pricing/index.js';
import { UsageError } from '../report/period.js';
import type { ReportParams } from '../report/summary.js';
import type { CostFn } from '../store/write.js';
import { settleMarks } from '../store/billed.js';
import { SESSIONS_PENDING } from '../store/session-stats.js';
import { cacheDir } from '../core/cache-dir.js';
import { counted } from '../core/plural.js';
import { messageLine, printableLines, warningLines } from '../render/terminal-text.js';
import { renderJson } from '../render/json.js';

export interface CostSetup {
  fn: CostFn;
  /** Warnings to show in reports (unusable price data file, bad override fields). */
  warnings: string[];
  /** Changes whenever prices or overrides change. */
  fingerprint: string;
  pricer: Pricer;
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
  // --prices FILE, else "prices" in the config file.
  const config = rt.pricesFile === undefined ? readTeamConfig(rt.env, rt.home) : null;
  const pricesFile = rt.pricesFile ?? config?.prices;
  let pricer: Pricer;
  try {
    pricer = await loadPricer({ cacheDir: cacheDir(rt.env, rt.home), pricesFile });
  } catch (e) {
    // A usage error, named by where the file was given.
    if (e instanceof PricesFileError) throw new UsageError(`${config ? `"prices" in ${config.path}:` : '--prices'} ${e.path}: ${e.problem}`);
    throw e;
  }
  const fn: CostFn = (e) => {
    const units = pricer.costE10(e);
    if (units === null || units <= MAX_COST_E10) return units;
    // Stored as BIGINT units of 1e-10 USD: a cost past any real one is a bad price or count, not a crash.
    const w = `a ${e.model} response would cost more than $1,000,000 at its price; left unpriced (check the price)`;
    if (!pricer.warnings.includes(w)) pricer.warnings.push(w);
    return null;
  };
  // The pricer's own array: warnings met while pricing during the ingest show up too.
  const setup: CostSetup = { fn, warnings: pricer.warnings, fingerprint: pricer.fingerprint, pricer };
  setups.set(fn, setup);
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
    await conn.run(`INSERT OR REPLACE INTO meta VALUES ('${FINGERPRINT_KEY}', $fp)`, { fp: setup.fingerprint }, { fp: VARCHAR });
    await conn.run('COMMIT');
  } catch (e) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
  return changed;
}

/**
 * One warning per model (and harness) whose responses in the report's range
 * have no price: named, with its response and token counts, so an unknown
 * model is visible instead of silently free. Under `--cost recorded` pricing
 * is not used, and under `auto` a response with a recorded cost is not
 * missing one.
 */
export async function unpricedModelWarnings(conn: DuckDBConnection, p: ReportParams): Promise<string[]> {
  if (p.costMode === 'recorded') return [];
  const r = await conn.runAndReadAll(
    `SELECT harness, model, speed, billing_kind = 'priority' AS priority, sum(requests)::BIGINT AS responses,
            sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens)::BIGINT AS tokens
     FROM billed_events
     WHERE (requests > 0 OR iteration IS NOT NULL) AND computed_cost_e10 IS NULL
       AND ($mode = 'computed' OR recorded_cost_e10 IS NULL)
       AND list_contains($h, harness)
       AND ($project = '' OR contains(coalesce(project, ''), $project))
       AND CAST(timezone($tz, make_timestamptz(ts_ms * 1000)) AS DATE) BETWEEN CAST($since AS DATE) AND CAST($until AS DATE)
     GROUP BY ALL
     ORDER BY tokens DESC, harness, model NULLS LAST`,
    { mode: p.costMode, h: listValue(p.harnesses), project: p.project, tz: p.tz, since: p.since, until: p.until },
    { mode: VARCHAR, h: LIST(VARCHAR), project: VARCHAR, tz: VARCHAR, since: VARCHAR, until: VARCHAR },
  );
  return (r.getRowObjectsJson() as { harness: string; model: string | null; speed: string | null; priority: boolean | null; responses: string; tokens: string }[]).map((x) =>
    x.priority && x.model !== null
      ? `no priority-processing price for model "${x.model}" (${x.harness}): ${counted(x.responses, 'response')}, ${counted(x.tokens, 'token')} billed at the priority tier ${Number(x.tokens) === 1 ? 'has' : 'have'} no computed cost (unknown, not the standard rate)`
      : x.model === null
      ? `${counted(x.responses, `${x.harness} response`)} (${counted(x.tokens, 'token')}) ${Number(x.responses) === 1 ? 'names no model, so it has' : 'name no model, so they have'} no computed cost (unknown, not $0)`
      : x.speed !== null
        ? // A model priced at standard speed whose fast-mode price is not known (src/pricing/fast-mode.ts).
          `no ${x.speed}-mode price for model "${x.model}" (${x.harness}): ${counted(x.responses, 'response')} served at speed "${x.speed}" (${counted(x.tokens, 'token')}) ${Number(x.responses) === 1 ? 'has' : 'have'} no computed cost (unknown, not the standard rate); price it with --prices FILE (LiteLLM format${x.speed === 'fast' ? ', provider_specific_entry.fast' : ''})`
        : `no price for model "${x.model}" (${x.harness}): ${counted(x.responses, 'response')}, ${counted(x.tokens, 'token')} ${Number(x.tokens) === 1 ? 'has' : 'have'} no computed cost (unknown, not $0); price it with --prices FILE (LiteLLM format)`,
  );
}

/**
 * One warning per model in the report's range whose computed costs come from
 * a near match: another model's price entry that its name merely begins like
 * (`claude-sonnet-5-5` priced as `claude-sonnet-5`), naming the entry used.
 * Models are judged once per (harness, provider, model) the store holds;
 * only when one is a near match does the range decide whether it is shown.
 */
export async function nearMatchWarnings(conn: DuckDBConnection, p: ReportParams, pricer: Pricer): Promise<string[]> {
  if (p.costMode === 'recorded') return [];
  const attrs = await conn.runAndReadAll(`SELECT DISTINCT harness, provider, model FROM event_attrs WHERE model IS NOT NULL AND list_contains($h, harness)`, { h: listValue(p.harnesses) }, { h: LIST(VARCHAR) });
  const near = new Map<string, { entry: string; provider: string }>();
  for (const a of attrs.getRowObjectsJson() as { harness: HarnessId; provider: string | null; model: string }[]) {
    const m = pricer.nearMatch(a.model, a.provider, a.harness);
    if (m) near.set(`${a.harness}\u0000${a.provider ?? ''}\u0000${a.model}`, m);
  }
  if (!near.size) return [];
  // Which of them priced a response in the range (computed, and used under --cost).
  const r = await conn.runAndReadAll(
    `SELECT harness, provider, model, count(*)::BIGINT AS responses
     FROM billed_events
     WHERE computed_cost_e10 IS NOT NULL AND ($mode = 'computed' OR recorded_cost_e10 IS NULL)
       AND model IS NOT NULL AND list_contains($h, harness)
       AND ($project = '' OR contains(coalesce(project, ''), $project))
       AND CAST(timezone($tz, make_timestamptz(ts_ms * 1000)) AS DATE) BETWEEN CAST($since AS DATE) AND CAST($until AS DATE)
     GROUP BY ALL ORDER BY model, harness, provider NULLS FIRST`,
    { mode: p.costMode, h: listValue(p.harnesses), project: p.project, tz: p.tz, since: p.since, until: p.until },
    { mode: VARCHAR, h: LIST(VARCHAR), project: VARCHAR, tz: VARCHAR, since: VARCHAR, until: VARCHAR },
  );
  // Once per model and entry, however many harnesses and providers it came through.
  const byModel = new Map<string, { model: string; entry: string; provider: string; harnesses: Set<string>; responses: number }>();
  for (const x of r.getRowObjectsJson() as { harness: string; provider: string | null; model: string; responses: string }[]) {
    const m = near.get(`${x.harness}\u0000${x.provider ?? ''}\u0000${x.model}`);
    if (!m) continue;
    const key = `${x.model}\u0000${m.provider}\u0000${m.entry}`;
    const w = byModel.get(key) ?? { model: x.model, entry: m.entry, provider: m.provider, harnesses: new Set<string>(), responses: 0 };
    w.harnesses.add(x.harness);
    w.responses += Number(x.responses);
    byModel.set(key, w);
  }
  return [...byModel.values()].map(
    (w) =>
      `model "${w.model}" (${[...w.harnesses].join(', ')}) has no price entry of its own: its ${counted(w.responses, 'response')} ${Number(w.responses) === 1 ? 'is' : 'are'} priced as "${w.entry}" (${w.provider}, the nearest entry); check with \`tx-usage prices show ${w.model}\`, or price it with --prices FILE (LiteLLM format)`,
  );
}

/**
 * `tx-usage prices show MODEL [--provider ID] [--at DATE] [--format text|json]`:
 * the prices that apply to MODEL at a time, and which override or data entry matched.
 * A model with no price is a usage error (exit 2).
 */
export async function pricesShowCommand(rt: PricingRun, a: { model: string; provider?: string; at?: string; format?: string }): Promise<number> {
  const format = a.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format ${JSON.stringify(a.format)}: expected text or json`);
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
    throw new UsageError(`prices show ${what}: no price found (neither in the price data nor in a --prices file); its cost is reported as unknown, not $0`);
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
