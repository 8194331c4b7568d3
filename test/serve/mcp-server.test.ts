// `tx-usage mcp` driven by the SDK's own client over stdio, as an agent's
// host runs it: the compiled CLI spawned on a fixture home, its tools listed
// and each called; every answer's JSON equals what the CLI prints with
// --format json for the same question, and its first line states the period,
// time zone and whether the cost is partial.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { buildTwoMonthHome } from '../helpers/report-fixture.js';

let env: NodeJS.ProcessEnv;
let client: Client;
let stderr = '';

function cliJson(args: string[]): unknown {
  const r = runCli([...args, '--format', 'json'], env);
  if (r.status !== 0) throw new Error(`tx-usage ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function call(
  name: string,
  args: Record<string, unknown>,
): Promise<{ headline: string; json: unknown; isError: boolean; text: string }> {
  const r = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    isError?: boolean;
  };
  const texts = r.content.map((c) => c.text);
  return {
    headline: texts[0]!,
    text: texts.join('\n'),
    json: r.isError ? null : JSON.parse(texts[1]!),
    isError: r.isError === true,
  };
}

beforeAll(async () => {
  const home = join(tempDir('txu-mcp-'), 'home');
  buildTwoMonthHome(home);
  env = cleanEnv(home, { TX_USAGE_NOW: '2026-11-20T09:30:00Z' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  client = new Client({ name: 'tx-usage-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
});

const RANGE = { since: '2026-10-01', until: '2026-11-30', tz: 'UTC' };
const RANGE_ARGS = ['--since', '2026-10-01', '--until', '2026-11-30', '--tz', 'UTC'];

describe('tx-usage mcp over stdio', () => {
  it('lists its tools, each with a typed input schema and read-only', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'compare_harnesses',
      'current_block_and_limits',
      'monthly_review',
      'session_detail',
      'sql',
      'usage_summary',
    ]);
    const summary = tools.find((t) => t.name === 'usage_summary')!;
    expect(Object.keys(summary.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['since', 'until', 'tz', 'by', 'harness', 'project', 'model', 'cost']),
    );
    for (const name of ['monthly_review', 'compare_harnesses'])
      expect(Object.keys(tools.find((t) => t.name === name)!.inputSchema.properties ?? {})).toContain('model');
    for (const t of tools) expect(t.annotations?.readOnlyHint).toBe(true);
  });

  it('usage_summary: the CLI summary JSON, with period, zone and the partial cost said first', async () => {
    const r = await call('usage_summary', { ...RANGE, by: 'project,model' });
    expect(r.json).toEqual(cliJson(['report', 'summary', ...RANGE_ARGS, '--by', 'project,model']));
    // The fixture has a model without a price: the sum is partial, and the headline says so.
    expect((r.json as { totals: { cost_source: string } }).totals.cost_source).toBe('partial');
    expect(r.headline).toContain('period 2026-10-01 to 2026-11-30');
    expect(r.headline).toContain('time zone UTC');
    expect(r.headline).toContain('cost PARTIAL');
  });

  it('a filter narrows the answer as the flag does', async () => {
    const r = await call('usage_summary', { ...RANGE, by: 'model', project: 'infra' });
    expect(r.json).toEqual(cliJson(['report', 'summary', ...RANGE_ARGS, '--by', 'model', '--project', 'infra']));
    expect(r.headline).toContain('cost complete');
    // --model, in each report-like tool: the CLI's answer to the flag.
    const model = { model: 'claude-opus-5-5' };
    expect((await call('usage_summary', { ...RANGE, by: 'project', ...model })).json).toEqual(
      cliJson(['report', 'summary', ...RANGE_ARGS, '--by', 'project', '--model', 'claude-opus-5-5']),
    );
    expect((await call('monthly_review', { ...RANGE, ...model })).json).toEqual(
      cliJson(['report', 'monthly', ...RANGE_ARGS, '--model', 'claude-opus-5-5']),
    );
    expect((await call('compare_harnesses', { ...RANGE, ...model })).json).toEqual(
      cliJson(['report', 'compare', ...RANGE_ARGS, '--model', 'claude-opus-5-5']),
    );
    const unknown = await call('usage_summary', { ...RANGE, model: 'claude-opus-5' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/--model "claude-opus-5": .*did you mean "claude-opus-5-5"/);
  });

  it('monthly_review and compare_harnesses: the CLI reports', async () => {
    expect((await call('monthly_review', { since: '2026-11-01', until: '2026-11-30', tz: 'UTC' })).json).toEqual(
      cliJson(['report', 'monthly', '--since', '2026-11-01', '--until', '2026-11-30', '--tz', 'UTC']),
    );
    expect((await call('compare_harnesses', RANGE)).json).toEqual(cliJson(['report', 'compare', ...RANGE_ARGS]));
  });

  it('session_detail: the explanation of one session, as explain prints it', async () => {
    const sessions = cliJson(['report', 'summary', ...RANGE_ARGS, '--by', 'session']) as {
      rows: { session: string }[];
    };
    const id = sessions.rows[0]!.session;
    const r = await call('session_detail', { session: id });
    expect(r.json).toEqual(cliJson(['explain', id]));
    const unknown = await call('session_detail', { session: 'no-such-session' });
    expect(unknown.isError).toBe(true);
  });

  it('current_block_and_limits: report blocks and limits', async () => {
    const r = await call('current_block_and_limits', { tz: 'UTC' });
    expect(r.json).toEqual({
      blocks: cliJson(['report', 'blocks', '--since', '1d', '--tz', 'UTC']),
      limits: cliJson(['limits', '--tz', 'UTC']),
    });
  });

  it('sql: read-only, in the CLI sandbox', async () => {
    const q = 'SELECT model, count(*) AS responses, sum(total_tokens) AS tokens FROM usage GROUP BY 1 ORDER BY 1';
    expect((await call('sql', { query: q })).json).toEqual(cliJson(['sql', q]));
    const refused = await call('sql', { query: "COPY (SELECT 1) TO '/tmp/x.csv'" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toEqual(
      runCli(['sql', "COPY (SELECT 1) TO '/tmp/x.csv'"], env)
        .stderr.replace(/^tx-usage: /, '')
        .trim(),
    );
  });

  it("a bad argument is the CLI's usage error, and the server keeps answering", async () => {
    const r = await call('usage_summary', { by: 'colour' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/--by/);
    expect((await call('usage_summary', RANGE)).isError).toBe(false);
    // Nothing but protocol on stdout (the client would have failed), nothing alarming on stderr.
    expect(stderr).toBe('');
  });
});
