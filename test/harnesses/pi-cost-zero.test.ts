// pi records cost 0 for models missing from its catalogue: zero for billed
// tokens is read as "no recorded cost", zero for a zero-token response stays 0.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cwdDirName } from '../../fixtures/pi/session.js';
import { collect, discover } from '../helpers/pi-support.js';
import { tempDir } from '../helpers/temp.js';

it('treats a recorded zero cost for billed tokens as unknown', async () => {
  const home = tempDir('txu-pi-zero-');
  const cwd = '/home/u/zero';
  const dir = join(home, '.pi/agent/sessions', cwdDirName(cwd));
  mkdirSync(dir, { recursive: true });
  const msg = (id: string, parent: string, ts: string, usage: object) =>
    JSON.stringify({
      type: 'message',
      id,
      parentId: parent,
      timestamp: ts,
      message: {
        role: 'assistant',
        content: [],
        provider: 'anthropic',
        model: 'claude-sonnet-5-5',
        usage,
        stopReason: 'stop',
        timestamp: Date.parse(ts),
      },
    });
  const lines = [
    JSON.stringify({ type: 'session', version: 3, id: 's-zero', timestamp: '2026-10-01T10:00:00.000Z', cwd }),
    msg('aaaaaaa1', 's-zero', '2026-10-01T10:00:01.000Z', {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    }),
    msg('aaaaaaa2', 'aaaaaaa1', '2026-10-01T10:00:02.000Z', {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    }),
    msg('aaaaaaa3', 'aaaaaaa2', '2026-10-01T10:00:03.000Z', {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0.25, output: 0.25, cacheRead: 0, cacheWrite: 0, total: 0.5 },
    }),
  ];
  writeFileSync(join(dir, '2026-10-01T10-00-00-000Z_s-zero.jsonl'), lines.join('\n') + '\n');
  const [src] = await discover(home);
  const c = await collect(src!);
  expect(c.events.map((e) => e.recorded_cost_usd)).toEqual([null, 0, 0.5]);
});
