// `tx-usage mcp`: the MCP server on stdio (src/mcp/server.ts), answering
// from the store as the CLI's commands do (answers.ts). stdout is the
// protocol's, so nothing else is written there; notices stay off (quiet).
// It ends when the client closes stdin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { packageRoot } from '../core/package-root.js';
import { serveMcp } from '../mcp/server.js';
import { Answers } from './answers.js';
import type { Runtime } from './runtime.js';

export async function mcpCommand(rt: Runtime): Promise<void> {
  const version = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
  const transport = new StdioServerTransport();
  process.stdin.once('end', () => void transport.close());
  await serveMcp(new Answers({ ...rt, quiet: true }), version, transport);
}
