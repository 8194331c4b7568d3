// The price warnings a report shows, from the store and what was judged when
// it was last brought up to date: no price data is loaded to say them.
import { LIST, VARCHAR, listValue, type DuckDBConnection } from '../store/duckdb.js';
import type { ReportParams } from '../report/summary.js';
import { counted } from '../core/plural.js';
import type { NearMatch, Ready } from '../store/ready.js';
import { IN_FILTER } from '../report/macros.js';

/**
 * One warning per model (and harness) whose responses in the report's range
 * have no price: named, with its response and token counts, so an unknown
 * model is visible instead of silently free. Under `--cost recorded` pricing
 * is not used, and under `auto` a response with a recorded cost is not
 * missing one.
 */
export async function unpricedModelWarnings(conn: DuckDBConnection, p: ReportParams): Promise<string[]> {
  if (p.costMode === 'recorded') return [];
  await conn.run(IN_FILTER); // the report's filter (this connection is not the one the report macros were made on)
  const r = await conn.runAndReadAll(
    `SELECT harness, model, speed, billing_kind = 'priority' AS priority, sum(requests)::BIGINT AS responses,
            sum(input_tokens + cache_read_tokens + cache_write_tokens + output_tokens)::BIGINT AS tokens
     FROM billed_events
     WHERE (requests > 0 OR iteration IS NOT NULL) AND computed_cost_e10 IS NULL
       AND ($mode = 'computed' OR recorded_cost_e10 IS NULL)
       AND in_filter($h, $project, $models, harness, project, model)
       AND CAST(timezone($tz, make_timestamptz(ts_ms * 1000)) AS DATE) BETWEEN CAST($since AS DATE) AND CAST($until AS DATE)
     GROUP BY ALL
     ORDER BY tokens DESC, harness, model NULLS LAST`,
    {
      mode: p.costMode,
      h: listValue(p.harnesses),
      project: p.project,
      models: listValue(p.models ?? []),
      tz: p.tz,
      since: p.since,
      until: p.until,
    },
    {
      mode: VARCHAR,
      h: LIST(VARCHAR),
      project: VARCHAR,
      models: LIST(VARCHAR),
      tz: VARCHAR,
      since: VARCHAR,
      until: VARCHAR,
    },
  );
  return (
    r.getRowObjectsJson() as {
      harness: string;
      model: string | null;
      speed: string | null;
      priority: boolean | null;
      responses: string;
      tokens: string;
    }[]
  ).map((x) =>
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
 * a near match (`near`, judged when the store was last brought up to date:
 * cli/pricing.ts judgeNearMatches): another model's price entry that its name
 * merely begins like (`claude-sonnet-5-5` priced as `claude-sonnet-5`),
 * naming the entry used. Only when one of the report's harnesses has one does
 * the range decide whether it is shown.
 */
export async function nearMatchWarnings(conn: DuckDBConnection, p: ReportParams, near: NearMatch[]): Promise<string[]> {
  if (p.costMode === 'recorded') return [];
  const byAttr = new Map<string, { entry: string; provider: string }>();
  for (const n of near)
    if (p.harnesses.includes(n.harness))
      byAttr.set(`${n.harness}\u0000${n.provider ?? ''}\u0000${n.model}`, {
        entry: n.entry,
        provider: n.entryProvider,
      });
  if (!byAttr.size) return [];
  // Which of them priced a response in the range (computed, and used under --cost).
  await conn.run(IN_FILTER);
  const r = await conn.runAndReadAll(
    `SELECT harness, provider, model, count(*)::BIGINT AS responses
     FROM billed_events
     WHERE computed_cost_e10 IS NOT NULL AND ($mode = 'computed' OR recorded_cost_e10 IS NULL)
       AND model IS NOT NULL AND in_filter($h, $project, $models, harness, project, model)
       AND CAST(timezone($tz, make_timestamptz(ts_ms * 1000)) AS DATE) BETWEEN CAST($since AS DATE) AND CAST($until AS DATE)
     GROUP BY ALL ORDER BY model, harness, provider NULLS FIRST`,
    {
      mode: p.costMode,
      h: listValue(p.harnesses),
      project: p.project,
      models: listValue(p.models ?? []),
      tz: p.tz,
      since: p.since,
      until: p.until,
    },
    {
      mode: VARCHAR,
      h: LIST(VARCHAR),
      project: VARCHAR,
      models: LIST(VARCHAR),
      tz: VARCHAR,
      since: VARCHAR,
      until: VARCHAR,
    },
  );
  // Once per model and entry, however many harnesses and providers it came through.
  const byModel = new Map<
    string,
    { model: string; entry: string; provider: string; harnesses: Set<string>; responses: number }
  >();
  for (const x of r.getRowObjectsJson() as {
    harness: string;
    provider: string | null;
    model: string;
    responses: string;
  }[]) {
    const m = byAttr.get(`${x.harness}\u0000${x.provider ?? ''}\u0000${x.model}`);
    if (!m) continue;
    const key = `${x.model}\u0000${m.provider}\u0000${m.entry}`;
    const w = byModel.get(key) ?? {
      model: x.model,
      entry: m.entry,
      provider: m.provider,
      harnesses: new Set<string>(),
      responses: 0,
    };
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
 * The models (ready.ts `judged` keys: harness, provider, model) with responses
 * in the report's window, of those whose price judging warned (`warned`):
 * the warnings of the others concern no row shown. Asked only when one of the
 * report's harnesses has such a warning; an empty set otherwise.
 */
export async function modelsInWindow(
  conn: DuckDBConnection,
  p: ReportParams,
  warned: Ready['resolveWarnings'],
): Promise<Set<string>> {
  if (!warned.some((w) => p.harnesses.includes(w.harness))) return new Set();
  const r = await conn.runAndReadAll(
    `SELECT DISTINCT harness, coalesce(provider, '') AS provider, model
     FROM billed_events
     WHERE model IS NOT NULL AND list_contains($h, harness)
       AND ($project = '' OR contains(coalesce(project, ''), $project))
       AND CAST(timezone($tz, make_timestamptz(ts_ms * 1000)) AS DATE) BETWEEN CAST($since AS DATE) AND CAST($until AS DATE)`,
    { h: listValue(p.harnesses), project: p.project, tz: p.tz, since: p.since, until: p.until },
    { h: LIST(VARCHAR), project: VARCHAR, tz: VARCHAR, since: VARCHAR, until: VARCHAR },
  );
  return new Set(
    (r.getRowObjectsJson() as { harness: string; provider: string; model: string }[]).map(
      (x) => `${x.harness}\u0000${x.provider}\u0000${x.model}`,
    ),
  );
}
