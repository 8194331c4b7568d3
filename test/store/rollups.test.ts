// The roll-ups the ingest keeps (issue 41, src/store/rollups.ts) give the
// answers the billed responses give, one by one:
// - a local day cut in any zone: responses at and around local midnights in
//   zones of :30 and :45 offsets, a 30-minute DST (Lord Howe) and a zone that
//   changed its offset at 00:01 (St. John's in 2005, which cuts a 15-minute
//   slot: the report then reads per-instant slots), against the days Intl
//   gives each response;
// - 5-hour blocks: built from slots (a response on a slot boundary a slot of
//   its own) equal to those built from the responses, active block included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysSlot } from '../../src/report/groups.js';
import { slotsWhole, useSlotsFor } from '../../src/report/slots.js';
import { loadTemplate, runTemplate } from '../../src/report/template.js';
import { blocksBetween } from '../../src/live/events.js';
import { blockRow } from '../../src/live/block-rows.js';
import { identifyBlocks, type LiveEvent } from '../../src/live/blocks.js';
import type { Store } from '../../src/store/store.js';
import { memoryStore, type TestEvent } from '../helpers/report-store.js';

// A deterministic spread of responses: every 15-minute boundary ±1 ms and on
// it, around the local midnights of the zones below, plus a busy random
// stretch; costs recorded, computed, both or neither.
let seed = 41;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const ZONES = [
  'UTC',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Kiritimati',
  'America/Los_Angeles',
  'America/St_Johns',
];
const events: TestEvent[] = [];
const add = (ms: number, harness = 'claude-code', o: Partial<TestEvent> = {}) => {
  const i = events.length;
  const cost = i % 4;
  events.push({
    harness,
    session: `s${i % 5}`,
    project: `/p/${i % 3}`,
    model: ['m1', 'm2', null][i % 3],
    ...o,
    ts: new Date(ms).toISOString(),
    requests: 1,
    input: 1 + (i % 7),
    cache_read: i % 11,
    output: 1 + (i % 5),
    recorded_e10: cost === 1 || cost === 3 ? 100 + i : null,
    computed_e10: cost >= 2 ? 90 + i : null,
    key: `k${i}`,
  });
};
const MIN15 = 900_000;
for (const day of ['2026-04-04', '2026-04-05', '2026-10-03', '2026-10-04', '2005-10-29', '2005-10-30', '2026-03-08']) {
  for (const tz of ZONES) {
    const midnight = Date.parse(`${day}T00:00:00Z`) - offsetAt(Date.parse(`${day}T00:00:00Z`), tz);
    for (let d = -2 * MIN15; d <= 2 * MIN15; d += MIN15) for (const e of [-1, 0, 1]) add(midnight + d + e);
  }
}
// St. John's left summer time at 00:01 local on 2005-10-30 (02:31 UTC): one slot holds both days.
add(Date.parse('2005-10-30T02:30:30Z'));
add(Date.parse('2005-10-30T02:32:00Z'));
// Codex: a busy stretch, a pause of over 5 hours (a gap row), responses exactly at a block's end and 1 ms
// after it, two models answering in the same millisecond, then a stretch still active at `now`.
let t = Date.parse('2026-06-01T00:07:00Z');
for (let n = 0; n < 150; n++, t += Math.floor(rand() * 40 * 60_000)) add(t, 'codex');
t += 6 * 3_600_000;
const second = t;
for (let n = 0; n < 20; n++, t += Math.floor(rand() * 10 * 60_000)) add(t, 'codex');
const blockEnd = Math.floor(second / 3_600_000) * 3_600_000 + 5 * 3_600_000;
// One session, project and model (one slot row but for the boundary: a slot of its own), and a second model at the same instant.
for (const x of [blockEnd - 60_000, blockEnd, blockEnd + 1, blockEnd + 120_000])
  add(x, 'codex', { session: 'b', project: '/p/b', model: 'm1' });
add(blockEnd, 'codex', { session: 'b', project: '/p/b', model: 'm2' });
for (t = blockEnd + 300_000; t < blockEnd + 4 * 3_600_000; t += Math.floor(rand() * 9 * 60_000)) add(t, 'codex');

/** The zone's offset at `ms` by Intl (independent of the store and its slots). */
function offsetAt(ms: number, tz: string): number {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(ms))
      .map((x) => [x.type, Number(x.value)]),
  );
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(ms / 1000) * 1000;
}
const dayIn = (ms: number, tz: string) => new Date(ms + offsetAt(ms, tz)).toISOString().slice(0, 10);

let store: Store;
beforeAll(async () => {
  store = await memoryStore(events);
});
afterAll(() => store?.close());

describe('a local day cut from 15-minute slots', () => {
  it('is whole in every zone but one whose 00:01 change cuts a slot', async () => {
    for (const tz of ZONES) expect(await slotsWhole(store.conn, tz), tz).toBe(tz !== 'America/St_Johns');
  });

  it("gives each day the sums of its responses in every zone (St. John's from per-instant slots)", async () => {
    for (const tz of ZONES) {
      await useSlotsFor(store.conn, tz);
      const rows = await runTemplate(
        store.conn,
        loadTemplate('summary'),
        {
          since: '2000-01-01',
          until: '2099-12-31',
          tz,
          harnesses: ['claude-code', 'codex'],
          project: '',
          models: [],
          cost_mode: 'auto',
        },
        { keys: keysSlot(['day']) },
      );
      const expected = new Map<string, { requests: number; tokens: number; cost: number | null; priced: number }>();
      for (const e of events) {
        const ms = Date.parse(e.ts);
        const d = dayIn(ms, tz);
        const x = expected.get(d) ?? { requests: 0, tokens: 0, cost: null, priced: 0 };
        x.requests += 1;
        x.tokens += e.input! + e.cache_read! + e.output!;
        const c = e.recorded_e10 ?? e.computed_e10;
        if (c !== null && c !== undefined) {
          x.cost = (x.cost ?? 0) + c;
          x.priced++;
        }
        expected.set(d, x);
      }
      const got = new Map(
        rows.map((r) => [
          String(r.day),
          {
            requests: Number(r.requests),
            tokens: Number(r.total_tokens),
            cost: r.cost_e10 === null ? null : Number(r.cost_e10),
            priced: Number(r.priced_events),
          },
        ]),
      );
      expect(got, tz).toEqual(expected);
    }
  });
});

describe('5-hour blocks from slots', () => {
  it('equal the blocks of the responses one by one, the active block and its last 30 minutes included', async () => {
    const mine = events.filter((e) => e.harness === 'codex');
    const now = Date.parse(mine[mine.length - 1]!.ts) + 7 * 60_000;
    const one = (e: TestEvent): LiveEvent & { key: string } => ({
      harness: e.harness,
      session: e.session,
      project: e.project ?? null,
      model: e.model ?? null,
      ts: Date.parse(e.ts),
      key: e.key,
      requests: 1,
      input: e.input!,
      cache_read: e.cache_read!,
      cache_write: 0,
      output: e.output!,
      reasoning: 0,
      cost_e10:
        e.recorded_e10 !== null && e.recorded_e10 !== undefined
          ? BigInt(e.recorded_e10)
          : e.computed_e10 !== null && e.computed_e10 !== undefined
            ? BigInt(e.computed_e10)
            : null,
      computed_e10: e.computed_e10 === null || e.computed_e10 === undefined ? null : BigInt(e.computed_e10),
      recorded_e10: e.recorded_e10 === null || e.recorded_e10 === undefined ? null : BigInt(e.recorded_e10),
      uses_recorded: e.recorded_e10 !== null && e.recorded_e10 !== undefined,
    });
    // The responses in the live views' order: time, then key.
    const ordered = mine.map(one).sort((a, b) => a.ts - b.ts || (a.key < b.key ? -1 : 1));
    const reference = identifyBlocks('codex', ordered).map((b) => blockRow(b, 'UTC', now, null));
    const { perHarness } = await blocksBetween(
      store.conn,
      { harnesses: ['codex'], project: '', costMode: 'auto' },
      Date.parse('2026-05-01T00:00:00Z'),
      now + 86_400_000,
      now,
    );
    const fromSlots = perHarness[0]!.blocks.map((b) => blockRow(b, 'UTC', now, null));
    expect(fromSlots.some((r) => r.is_active)).toBe(true);
    expect(fromSlots.some((r) => r.is_gap)).toBe(true);
    expect(fromSlots).toEqual(reference);
  });
});
