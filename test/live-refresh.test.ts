// The live snapshot carried forward by a refresh (what `watch` does after an
// append) equals the snapshot made from the store after the same ingest:
// the same responses, session totals and resume points.
import { appendFileSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BLOCKS_MODEL, buildBlocksHome, type BlocksHome } from '../fixtures/live/blocks.js';
import { refreshSnapshot } from '../src/cli/live-refresh.js';
import { runtimeFrom, type Runtime } from '../src/cli/runtime.js';
import type { LiveSnapshot } from '../src/live/snapshot.js';
import { cleanEnv, tempDir } from './helpers/cli.js';

let dir: string;
let fx: BlocksHome;
let rt: Runtime;
const o = { now: Date.parse('2026-03-29T11:30:00Z'), lineHarnesses: ['claude-code'], monthStart: Date.parse('2026-03-01T00:00:00Z') };

beforeAll(() => {
  dir = tempDir('txu-refresh-');
  fx = buildBlocksHome(join(dir, 'home'));
  rt = runtimeFrom({ prices: fx.pricesFile, quiet: true }, cleanEnv(fx.home));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What must agree: everything but when the snapshot was made and the exported prices (a cache of the pricer). */
function comparable(s: LiveSnapshot) {
  const events = [...s.events].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { from: s.from, block_from: s.block_from, events, sessions: s.sessions, sources: s.sources, month: s.month };
}

it('after appends: carried forward, and equal to a snapshot made from the store', async () => {
  const first = await refreshSnapshot(rt, o);
  expect(first.incremental).toBe(false);
  const s = fx.session;
  const r9 = [...s.written.keys()].at(-1)!;
  s.user('2026-03-29T11:00:00.000Z');
  s.response({ ts: '2026-03-29T11:00:00.000Z', usage: { input: 700, output: 300, cacheRead: 5000 }, splits: 3, model: BLOCKS_MODEL });
  s.response({ ts: '2026-03-29T10:45:00.000Z', usage: { input: 2000, output: 800 }, msgId: r9, model: BLOCKS_MODEL });
  // A sub-agent transcript that did not exist: a source the store never had.
  const sub = s.subagent('a1');
  sub.response({ ts: '2026-03-29T11:10:00.000Z', usage: { input: 40, output: 4 }, model: BLOCKS_MODEL });
  const carried = await refreshSnapshot(rt, o, first.snapshot);
  expect(carried.incremental).toBe(true);
  expect([carried.ingest.appended, carried.ingest.rewritten]).toEqual([1, 1]);
  const rebuilt = await refreshSnapshot(rt, o, null);
  expect(rebuilt.incremental).toBe(false);
  expect(comparable(carried.snapshot)).toEqual(comparable(rebuilt.snapshot));
  // And the figures moved: 3 new responses (one of them the sub-agent's), r9 grown.
  const key = `claude-code\u0000${s.sessionId}`;
  expect(Number(carried.snapshot.sessions[key]!.requests) - Number(first.snapshot.sessions[key]!.requests)).toBe(2);
  expect(Object.keys(carried.snapshot.sources)).toContain(sub.file);
});

it('a transcript rewritten: made from the store again', async () => {
  const prev = (await refreshSnapshot(rt, o)).snapshot;
  const text = readFileSync(fx.session.file, 'utf8');
  // A line put in front: the bytes before the resume point changed, so the ingest reads the file again.
  truncateSync(fx.session.file, 0);
  appendFileSync(fx.session.file, JSON.stringify({ type: 'summary', summary: 'a summary line', leafUuid: 'x' }) + '\n' + text);
  const r = await refreshSnapshot(rt, o, prev);
  expect(r.ingest.rewritten).toBe(1);
  expect(r.incremental).toBe(false);
});
