// `tx-usage mcp`: an MCP server (the official SDK, over stdio) whose tools
// ask the CLI's own questions. Every answer is made by the function the
// CLI's `--format json` prints (src/cli/answers.ts), so an agent reads the
// figures the user would see; the tool adds only a first line saying the
// period, the time zone and whether the cost is complete.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import type { Answers } from '../cli/answers.js';
import { answerHeadline } from './headline.js';
import { exactJson } from '../cli/sql-output.js';

/** What every report-like tool takes: the CLI's flags of the same names. */
const period = {
  since: z
    .string()
    .optional()
    .describe("first day: Nd, Nw, Nm back from today, or YYYY-MM-DD (default: the report's own, e.g. this month)"),
  until: z.string().optional().describe('last day, inclusive (YYYY-MM-DD or Nd; default today)'),
  tz: z.string().optional().describe('IANA time zone days are cut in (default: the system zone)'),
};
const filters = {
  harness: z
    .string()
    .optional()
    .describe(
      'comma list of harness ids: claude-code, codex, cursor-agent, opencode, pi, gemini-cli, qwen-code, openclaw, cline, roo-code, kilo-code',
    ),
  project: z.string().optional().describe('only projects whose path contains this text'),
  model: z
    .string()
    .optional()
    .describe(
      'comma list of exact model ids, as usage_summary by model lists them (an unknown id is an error naming the nearest)',
    ),
  cost: z
    .enum(['auto', 'computed', 'recorded'])
    .optional()
    .describe("which cost counts: auto (default), computed from prices, or the harness's recorded cost"),
};

type Json = Record<string, unknown>;
type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

/** The answer as the tool returns it: the headline, then the CLI's JSON document (compact). */
function answer(doc: unknown, json = JSON.stringify(doc)): ToolResult {
  return {
    content: [
      { type: 'text', text: answerHeadline(doc) },
      { type: 'text', text: json },
    ],
  };
}

/** A question the CLI would refuse (a bad flag value, an unknown session) is the tool's error, with the CLI's message. */
async function guarded(fn: () => Promise<unknown>, json?: (doc: any) => string): Promise<ToolResult> {
  try {
    const doc = await fn();
    return answer(doc, json?.(doc));
  } catch (e) {
    return { content: [{ type: 'text', text: (e as Error).message }], isError: true };
  }
}

export function mcpServer(answers: Answers, version: string): McpServer {
  const server = new McpServer({ name: 'tx-usage', version });
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'usage_summary',
    {
      title: 'Usage and cost summary',
      description:
        'Tokens and cost of AI coding agents over a period, grouped (`tx-usage report summary --format json`). Rows per group, totals, warnings.',
      inputSchema: {
        ...period,
        ...filters,
        by: z
          .string()
          .optional()
          .describe(
            'comma list of group keys: day, week, month, model, project, harness, session, machine (default day)',
          ),
        sort: z.enum(['cost', 'tokens', 'date', 'name']).optional(),
      },
      annotations: readOnly,
    },
    (a) => guarded(() => answers.ask((q) => q.report({ name: 'summary', ...a }))),
  );
  // The reports that take only a period and filters.
  const reports = [
    [
      'monthly_review',
      'monthly',
      'Monthly review',
      'A month compared with the one before: spend, top models, projects and sessions (`tx-usage report monthly --format json`).',
    ],
    [
      'compare_harnesses',
      'compare',
      'Compare harnesses',
      'Harnesses side by side: cost per prompt, per session, per response, and on the same model (`tx-usage report compare --format json`).',
    ],
  ] as const;
  for (const [tool, name, title, description] of reports) {
    server.registerTool(
      tool,
      { title, description, inputSchema: { ...period, ...filters }, annotations: readOnly },
      (a) => guarded(() => answers.ask((q) => q.report({ name, ...a }))),
    );
  }
  server.registerTool(
    'session_detail',
    {
      title: 'Session detail and explanation',
      description:
        'One session (by id) or transcript file: each usage record, what it was counted as, the rule, its tokens and cost (`tx-usage explain ID --format json`).',
      inputSchema: {
        session: z.string().min(1).describe('a session id (as in usage_summary by session) or a transcript path'),
        ...period,
        cost: filters.cost,
      },
      annotations: readOnly,
    },
    ({ session, ...a }) => guarded(() => answers.ask((q) => q.explain({ paths: [session], ...a }))),
  );
  server.registerTool(
    'current_block_and_limits',
    {
      title: 'Current 5-hour block and plan limits',
      description:
        'The 5-hour blocks of today and the day before, the active one with its burn rate and projection (`tx-usage report blocks --since 1d --format json`), and the plan limits recorded per harness (`tx-usage limits --format json`).',
      inputSchema: { tz: period.tz, harness: filters.harness },
      annotations: readOnly,
    },
    (a) =>
      guarded(() =>
        answers.ask(async (q) => ({
          blocks: await q.report({ name: 'blocks', since: '1d', tz: a.tz, harness: a.harness }),
          limits: await q.limits({ tz: a.tz, harness: a.harness }),
        })),
      ),
  );
  server.registerTool(
    'sql',
    {
      title: 'Read-only SQL on the usage store',
      description:
        'One read-only DuckDB statement on the store (`tx-usage sql --format json`): the `usage` view has one row per billed response (harness, model, project, session_id, ts, token columns, cost_usd); files, network and extensions are refused.',
      inputSchema: {
        query: z.string().min(1).describe('one SQL statement, e.g. SELECT model, sum(cost_usd) FROM usage GROUP BY 1'),
      },
      annotations: readOnly,
    },
    ({ query }) =>
      guarded(
        () => answers.sql(query).then((r) => r.rows),
        (rows) => exactJson(rows, null),
      ),
  );
  return server;
}

/** Serves on `transport` until it closes (the CLI closes it when stdin ends). */
export async function serveMcp(answers: Answers, version: string, transport: Transport): Promise<void> {
  const server = mcpServer(answers, version);
  const closed = new Promise<void>((r) => (server.server.onclose = r));
  await server.connect(transport);
  await closed;
}
