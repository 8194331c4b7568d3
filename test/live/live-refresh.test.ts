// The live snapshot carried forward by a refresh (what `watch` does after an
// append) equals the snapshot made from the store after the same ingest:
// the same responses, session totals and resume points.
import { appendFileSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BLOCKS_MODEL, buildBlocksHome, type BlocksHome } from '../../fixtures/live/blocks.js';
import { refreshSnapshot } from '../../src/cli/live-refresh.js';
import { runtimeFrom, type Runtime } from '../../src/cli/runtime.js';
import type { LiveSnapshot } from '../../src/live/snapshot.js';
import { SNAPSHOT_SPAN_MS } from '../../src/live/snapshot.js';
import { identifyBlocks, isActive } from '../../src/live/blocks.js';
import { ClaudeHome } from '../../fixtures/claude-code/build.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';

let dir: string;
let fx: BlocksHome;
let rt: Runtime;
const o = {
  now: Date.parse('2026-03-29T11:30:00Z'),
  lineHarnesses: ['claude-code'],
  monthStart: Date.parse('2026-03-01T00:00:00Z'),
};

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
  s.response({
    ts: '2026-03-29T11:00:00.000Z',
    usage: { input: 700, output: 300, cacheRead: 5000 },
    splits: 3,
    model: BLOCKS_MODEL,
  });
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
  appendFileSync(
    fx.session.file,
    JSON.stringify({ type: 'summary', summary: 'a summary line', leafUuid: 'x' }) + '\n' + text,
  );
  const r = await refreshSnapshot(rt, o, prev);
  expect(r.ingest.rewritten).toBe(1);
  expect(r.incremental).toBe(false);
});

it("a history with no 5-hour pause: the snapshot starts at the latest block before its span, not months back, and its active block is the whole history's", async () => {
  const home = join(dir, 'busy');
  const claude = new ClaudeHome(join(home, '.claude'));
  const start = Date.parse('2026-03-01T00:10:00Z');
  const now = Date.parse('2026-03-29T11:30:00Z');
  const times: number[] = [];
  // A response every 40 minutes for four weeks, across three sessions: the block chain never breaks.
  const sessions = [0, 1, 2].map(() => claude.session({ cwd: '/work/busy' }));
  for (let t = start, i = 0; t < now - 10 * 60_000; t += 40 * 60_000, i++) {
    sessions[i % 3]!.response({ ts: new Date(t).toISOString(), usage: { input: 10, output: 1 }, model: BLOCKS_MODEL });
    times.push(t);
  }
  const busy = runtimeFrom({ prices: fx.pricesFile, quiet: true }, cleanEnv(home));
  const snap = (await refreshSnapshot(busy, { ...o, now })).snapshot;
  // It carries about two days of responses (the span and the block reaching into it), not four weeks.
  expect(snap.from).toBeGreaterThanOrEqual(now - SNAPSHOT_SPAN_MS - 5 * 3_600_000);
  expect(snap.events.length).toBeLessThan(times.filter((t) => t >= now - SNAPSHOT_SPAN_MS - 6 * 3_600_000).length + 1);
  // The active block from the snapshot's chain point equals the one from the first response of the history.
  const ev = (t: number) => ({
    harness: 'claude-code',
    session: 's',
    project: null,
    model: 'm',
    ts: t,
    requests: 1,
    input: 10,
    cache_read: 0,
    cache_write: 0,
    output: 1,
    reasoning: 0,
    cost_e10: null,
    computed_e10: null,
    recorded_e10: null,
    uses_recorded: false,
  });
  const whole = identifyBlocks('claude-code', times.map(ev)).filter((b) => isActive(b, now));
  const fromSnap = identifyBlocks(
    'claude-code',
    snap.events.filter((e) => e.harness === 'claude-code' && e.ts >= snap.block_from['claude-code']!),
  ).filter((b) => isActive(b, now));
  expect(whole).toHaveLength(1);
  expect(fromSnap.map((b) => [b.start, b.end, b.events.length])).toEqual(
    whole.map((b) => [b.start, b.end, b.events.length]),
  );
});
