// Extractor-level tests for the opencode harness: one real WAL-mode SQLite
// database per rule, built from DDL by fixtures/opencode, read through
// collectSource; expected values come from the builder's own ledger.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { opencode } from '../../src/harnesses/opencode/index.js';
import { collectSource, type Collected } from '../../src/ingest/collect.js';
import type { UsageEvent } from '../../src/core/types.js';
import {
  GENERATED_TITLE,
  OpenCodeDb,
  SECRET,
  sumExpected,
  toExpected,
  usage,
  type Expected,
} from '../../fixtures/opencode/builder.js';
import { buildMainDb, buildV1Db, GEMINI, GPT, SONNET } from '../../fixtures/opencode/scenarios.js';
import { tempDir } from '../helpers/cli.js';

const root = tempDir('txu-opencode-');
const tmpDir = join(root, 'tmp');
mkdirSync(tmpDir);
const open: OpenCodeDb[] = [];
afterAll(() => {
  open.forEach((d) => d.close());
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
function newDb(layout: ConstructorParameters<typeof OpenCodeDb>[1] = 'v2', name = 'opencode.db'): OpenCodeDb {
  const dir = join(root, `case-${++n}`);
  mkdirSync(dir);
  const db = new OpenCodeDb(join(dir, name), layout);
  open.push(db);
  return db;
}

async function collectDb(path: string): Promise<Collected> {
  const sources = await opencode.discover([{ path, origin: 'test', exists: true }], () => {});
  expect(sources).toHaveLength(1);
  return collectSource(opencode, sources[0]!, { resume: null, tmpDir, knownProjects: new Set() });
}

function totals(events: UsageEvent[]): Expected {
  return sumExpected(
    events.map((e) => ({
      requests: e.requests,
      input_tokens: e.input_tokens,
      cache_read_tokens: e.cache_read_tokens,
      cache_write_tokens: e.cache_write_tokens,
      output_tokens: e.output_tokens,
      reasoning_tokens: e.reasoning_tokens,
      total_tokens: e.input_tokens + e.cache_read_tokens + e.cache_write_tokens + e.output_tokens,
      cost_usd: e.recorded_cost_usd ?? 0,
    })),
  );
}

function expectTotals(actual: Expected, expected: Expected) {
  const { cost_usd: a, ...restA } = actual;
  const { cost_usd: b, ...restB } = expected;
  expect(restA).toEqual(restB);
  expect(a).toBeCloseTo(b, 10);
}

const residuals = (c: Collected) => c.events.filter((e) => e.dedupe_key.startsWith('residual:'));
const steps = (c: Collected) => c.events.filter((e) => e.requests === 1);

describe('opencode 2.x steps', () => {
  it('counts each completed assistant row once, normalizing reasoning into output, with model, provider, project and recorded cost', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/p1', model: SONNET });
    s.user();
    const a = s.step({ input: 1200, output: 300, cacheRead: 4000, cacheWrite: 600, cost: 0.0123 });
    const b = s.step({ input: 50, output: 700, reasoning: 250, cacheRead: 5200, cost: 0.0301 }, { model: GPT });
    const c = await collectDb(db.path);
    expect(c.warnings).toEqual([]);
    expect(c.events).toHaveLength(2);
    const [ea, eb] = [
      c.events.find((e) => e.dedupe_key === `msg:${a}`)!,
      c.events.find((e) => e.dedupe_key === `msg:${b}`)!,
    ];
    expect(ea).toMatchObject({
      harness: 'opencode',
      session_id: s.id,
      project: '/work/p1',
      model: SONNET.id,
      provider: 'anthropic',
      requests: 1,
      input_tokens: 1200,
      cache_read_tokens: 4000,
      cache_write_tokens: 600,
      output_tokens: 300,
      reasoning_tokens: 0,
      recorded_cost_usd: 0.0123,
      source_file: db.path,
      dedupe_rank: 0,
    });
    // reasoning is a separate OpenCode bucket: output = output + reasoning.
    expect(eb).toMatchObject({
      model: GPT.id,
      provider: 'openai',
      output_tokens: 950,
      reasoning_tokens: 250,
      input_tokens: 50,
      recorded_cost_usd: 0.0301,
    });
    expect(ea.ts).toBeLessThan(eb.ts);
    expectTotals(totals(c.events), db.expected());
  });

  it('reads committed rows that live only in the -wal file', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/wal', model: SONNET });
    s.step({ input: 10, output: 5, cost: 0.001 });
    // The main file alone (without its -wal) holds no session rows yet.
    const bare = join(root, `bare-${n}.db`);
    copyFileSync(db.path, bare);
    const probe = new Database(bare, { readonly: true });
    expect(
      (probe.prepare("SELECT count(*) AS k FROM sqlite_master WHERE name = 'session_message'").get() as { k: number })
        .k,
    ).toBe(0);
    probe.close();
    const c = await collectDb(db.path);
    expectTotals(totals(c.events), db.expected());
    expect(c.events).toHaveLength(1);
  });

  it('orders by seq and attributes rows of several sessions to their own session and project', async () => {
    const db = newDb();
    const s1 = db.session({ directory: '/work/a', model: SONNET });
    const s2 = db.session({ directory: '/work/b', model: GPT });
    s1.step({ input: 1, output: 1 });
    s2.step({ input: 2, output: 2 });
    s1.step({ input: 3, output: 3 });
    const c = await collectDb(db.path);
    const bySession = (id: string) => c.events.filter((e) => e.session_id === id);
    expect(bySession(s1.id).map((e) => e.input_tokens)).toEqual([1, 3]);
    expect(bySession(s1.id).every((e) => e.project === '/work/a')).toBe(true);
    expect(bySession(s2.id).map((e) => [e.input_tokens, e.project])).toEqual([[2, '/work/b']]);
  });
});

describe('opencode session totals (residual events)', () => {
  it('a revert deletes rows but the totals keep their spend: one zero-request residual with the session model and creation time', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/rev', model: GPT });
    s.user();
    const kept = s.step({ input: 3000, output: 400, reasoning: 120, cacheRead: 1000, cost: 0.021 });
    const undone = s.user();
    s.step({ input: 3500, output: 900, reasoning: 300, cacheRead: 3000, cost: 0.044 });
    s.step({ input: 400, output: 100, cacheRead: 6500, cost: 0.009 });
    s.revert(undone);
    const c = await collectDb(db.path);
    expect(steps(c).map((e) => e.dedupe_key)).toEqual([`msg:${kept}`]);
    const [r, ...more] = residuals(c);
    expect(more).toEqual([]);
    expect(r).toMatchObject({
      requests: 0,
      dedupe_key: `residual:${s.id}`,
      session_id: s.id,
      model: GPT.id,
      provider: 'openai',
      ts: s.created,
      project: '/work/rev',
      input_tokens: 3900,
      output_tokens: 1300,
      reasoning_tokens: 300,
      cache_read_tokens: 9500,
      cache_write_tokens: 0,
    });
    expect(r!.recorded_cost_usd).toBeCloseTo(0.053, 10);
    expect(totals([r!])).toEqual({ ...toExpected(s.lost, 0), cost_usd: r!.recorded_cost_usd });
    expectTotals(totals(c.events), db.expected());
  });

  it('title-only usage (in no row) becomes one residual event', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/title', model: GPT });
    s.user();
    s.title({ input: 220, output: 9, cost: 0.0003 });
    const c = await collectDb(db.path);
    expect(c.events).toHaveLength(1);
    expect(c.events[0]).toMatchObject({
      requests: 0,
      input_tokens: 220,
      output_tokens: 9,
      model: GPT.id,
      dedupe_key: `residual:${s.id}`,
    });
    expectTotals(totals(c.events), db.expected());
  });

  it('emits no residual when the rows account for the totals exactly', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/exact', model: SONNET });
    s.step({ input: 100, output: 10, cost: 0.1 });
    s.step({ input: 200, output: 20, cost: 0.2 });
    s.step({ input: 300, output: 30, cost: 0.3 }); // 0.1 + 0.2 + 0.3 in floats is not 0.6 exactly
    const c = await collectDb(db.path);
    expect(residuals(c)).toEqual([]);
    expect(c.events).toHaveLength(3);
  });

  it('rows above their session totals count as they are (no negative residual), and the session is tallied', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/over', model: SONNET });
    s.step({ input: 100, output: 10, cost: 0.01 });
    const t = Date.UTC(2026, 0, 6);
    // A row its session's totals never saw (billed nowhere by the builder).
    s.rawRow(
      'assistant',
      JSON.stringify({
        model: SONNET,
        cost: 0.5,
        tokens: { input: 900, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
        time: { created: t, completed: t },
      }),
    );
    s.title({ output: 4 });
    const c = await collectDb(db.path);
    expect(steps(c).map((e) => e.input_tokens)).toEqual([100, 900]);
    // Per bucket: input and cost are over-covered by the rows (0), output is not (10 + 4 - 11).
    // A cost of 0 for tokens is no recorded cost (README "Recorded cost of zero"): null, the computed one applies.
    expect(residuals(c).map((e) => [e.input_tokens, e.output_tokens, e.recorded_cost_usd])).toEqual([[0, 3, null]]);
    expect(c.counts['sessions whose rows exceed their running totals']).toBe(1);
  });

  it('rows of a session missing from session_v2 still count, without project and without residual', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/gone', model: SONNET });
    s.step({ input: 5, output: 1, cost: 0.001 });
    db.writer.pragma('foreign_keys = OFF'); // else the cascade deletes its rows too
    db.writer.prepare('DELETE FROM session_v2 WHERE id = ?').run(s.id);
    const c = await collectDb(db.path);
    expect(c.events).toHaveLength(1);
    expect(c.events[0]).toMatchObject({ session_id: s.id, project: null, model: SONNET.id, requests: 1 });
  });

  it('a retried step is one row rewritten: its final content counts once, the overwritten attempt only through the totals', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/retry', model: SONNET });
    const id = s.retriedStep(
      { input: 2500, output: 40, cacheRead: 800, cost: 0.011 },
      { input: 2500, output: 610, cacheRead: 800, cacheWrite: 120, cost: 0.019 },
    );
    const c = await collectDb(db.path);
    expect(steps(c)).toHaveLength(1);
    expect(steps(c)[0]).toMatchObject({
      dedupe_key: `msg:${id}`,
      input_tokens: 2500,
      output_tokens: 610,
      cache_write_tokens: 120,
      recorded_cost_usd: 0.019,
    });
    expect(residuals(c)).toHaveLength(1);
    expect(residuals(c)[0]).toMatchObject({ input_tokens: 2500, output_tokens: 40, cache_read_tokens: 800 });
    expectTotals(totals(c.events), db.expected());
  });

  it('a retry that reported no usage for the failed attempt leaves nothing for the totals to add', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/retry2', model: SONNET });
    s.retriedStep(null, { input: 900, output: 33, cost: 0.004 });
    const c = await collectDb(db.path);
    expect(c.events).toHaveLength(1);
    expectTotals(totals(c.events), db.expected());
  });
});

describe('opencode rows that count nothing', () => {
  it('an in-flight row without usage, a crashed row superseded by the next step, and a failed step without usage count nothing', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/flight', model: SONNET });
    s.supersededStep();
    s.failedStep(null);
    const counted = s.step({ input: 10, output: 1, cost: 0.001 });
    s.inFlightStep();
    const c = await collectDb(db.path);
    expect(c.events.map((e) => e.dedupe_key)).toEqual([`msg:${counted}`]);
    const reasons = Object.fromEntries(c.skips.map((k) => [k.reason, k.count]));
    expect(reasons['assistant step in flight or interrupted (no time.completed)']).toBe(1);
    expect(reasons['assistant step ended without usage']).toBe(2);
    expectTotals(totals(c.events), db.expected());
  });

  it('a restarted retry still in flight shows the failed attempt usage: not a request, covered by the totals', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/flight2', model: SONNET });
    s.inFlightRetry({ input: 1400, output: 2, cost: 0.0041 });
    const c = await collectDb(db.path);
    expect(steps(c)).toEqual([]);
    expect(residuals(c)).toHaveLength(1);
    expect(residuals(c)[0]).toMatchObject({ input_tokens: 1400, output_tokens: 2, requests: 0 });
    expectTotals(totals(c.events), db.expected());
  });

  it('a failed step that reported usage counts as its request', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/failed', model: SONNET });
    const id = s.failedStep({ input: 1500, cost: 0.0045 });
    const c = await collectDb(db.path);
    expect(c.events).toHaveLength(1);
    expect(c.events[0]).toMatchObject({ dedupe_key: `msg:${id}`, requests: 1, input_tokens: 1500 });
    expectTotals(totals(c.events), db.expected());
  });
});

describe('opencode compactions', () => {
  it('completed compactions and failed ones with usage are requests of their own; running and usage-less failures count nothing', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/compact', model: SONNET });
    s.step({ input: 20, output: 80, cacheRead: 9000, cost: 0.0039 });
    const done = s.compaction('completed', { input: 9000, output: 400, cost: 0.02 });
    const failedPaid = s.compaction('failed', { input: 7000, output: 3, cost: 0.01 });
    s.compaction('failed');
    const doneFree = s.compaction('completed', undefined, { model: GEMINI });
    s.compaction('running');
    const c = await collectDb(db.path);
    const byKey = new Map(c.events.map((e) => [e.dedupe_key, e]));
    expect(byKey.get(`msg:${done}`)).toMatchObject({
      requests: 1,
      input_tokens: 9000,
      output_tokens: 400,
      model: SONNET.id,
      recorded_cost_usd: 0.02,
    });
    expect(byKey.get(`msg:${failedPaid}`)).toMatchObject({ requests: 1, input_tokens: 7000, output_tokens: 3 });
    expect(byKey.get(`msg:${doneFree}`)).toMatchObject({
      requests: 1,
      input_tokens: 0,
      model: GEMINI.id,
      provider: 'google',
      recorded_cost_usd: null,
    });
    expect(c.events).toHaveLength(4);
    const reasons = c.skips.map((k) => k.reason).sort();
    expect(reasons).toEqual(['compaction still running', 'failed compaction without usage']);
    expectTotals(totals(c.events), db.expected());
  });
});

describe('opencode forks', () => {
  it('copied rows (new ids, same seq) add nothing; the fork and a fork of the fork count their own rows and totals', async () => {
    const db = newDb();
    const src = db.session({ directory: '/work/fork', model: SONNET });
    src.user();
    const s1 = src.step({ input: 600, output: 60, cost: 0.006 });
    const boundary = src.user();
    const s2 = src.step({ input: 700, output: 70, cost: 0.007 });
    src.inFlightStep();
    const fork = src.fork({ type: 'through', messageID: boundary });
    const turn = fork.user();
    const own = fork.step({ input: 1000, output: 100, cost: 0.01 });
    fork.title({ input: 150, output: 8, cost: 0.00015 });
    const fork2 = fork.fork({ type: 'before', messageID: turn });
    const own2 = fork2.step({ input: 1100, output: 110, cost: 0.011 });
    // The fork really holds copies of the source's settled rows (same seq, new id).
    const copies = db.writer
      .prepare('SELECT id, seq FROM session_message WHERE session_id = ? ORDER BY seq')
      .all(fork.id) as { id: string; seq: number }[];
    expect(copies.length).toBeGreaterThanOrEqual(3);
    expect(copies.slice(0, 3).every((r) => r.id.endsWith(`_${r.seq}`))).toBe(true);

    const c = await collectDb(db.path);
    expect(steps(c).map((e) => [e.session_id, e.dedupe_key])).toEqual([
      [src.id, `msg:${s1}`],
      [src.id, `msg:${s2}`],
      [fork.id, `msg:${own}`],
      [fork2.id, `msg:${own2}`],
    ]);
    // The fork's totals started at 0: its residual is its own title usage only.
    expect(residuals(c).map((e) => [e.session_id, e.input_tokens, e.output_tokens])).toEqual([[fork.id, 150, 8]]);
    // Copied assistant rows: s1 into the fork, and the fork's copy of s1 into fork2.
    expect(c.skips.find((k) => k.reason.startsWith('fork copy'))?.count).toBe(2);
    expectTotals(totals(c.events), db.expected());
  });

  it('recognizes copies by their id (msg_<forkEvent>_<seq>) when the boundary row was reverted away in the source later', async () => {
    const db = newDb();
    const src = db.session({ directory: '/work/fork2', model: SONNET });
    const first = src.user();
    src.step({ input: 600, output: 60, cost: 0.006 });
    const boundary = src.user();
    const fork = src.fork({ type: 'through', messageID: boundary });
    const own = fork.step({ input: 50, output: 5, cost: 0.0005 });
    src.revert(first); // every source row is gone; its spend stays in its totals
    const c = await collectDb(db.path);
    expect(steps(c).map((e) => e.dedupe_key)).toEqual([`msg:${own}`]);
    expect(residuals(c).map((e) => [e.session_id, e.input_tokens])).toEqual([[src.id, 600]]);
    expectTotals(totals(c.events), db.expected());
  });

  it('recognizes copies by the boundary (seq up to the last copied row) when their ids carry no seq suffix', async () => {
    const db = newDb();
    const src = db.session({ directory: '/work/fork3', model: SONNET });
    src.user();
    src.step({ input: 600, output: 60, cost: 0.006 });
    const boundary = src.user();
    src.step({ input: 700, output: 70, cost: 0.007 });
    const fork = src.fork({ type: 'before', messageID: boundary }, { plainIds: true });
    const own = fork.step({ input: 50, output: 5, cost: 0.0005 });
    const c = await collectDb(db.path);
    expect(
      steps(c)
        .filter((e) => e.session_id === fork.id)
        .map((e) => e.dedupe_key),
    ).toEqual([`msg:${own}`]);
    expectTotals(totals(c.events), db.expected());
  });
});

describe('opencode table sets and versions', () => {
  it('never counts stale 1.x tables beside 2.x tables', async () => {
    const db = newDb('v2+stale-v1');
    const s = db.session({ directory: '/work/up', model: SONNET });
    const stale = db.v1Session({ directory: '/work/up', model: SONNET, id: s.id });
    stale.user();
    stale.assistant([{ input: 900, output: 90, cost: 0.09 }]);
    stale.assistantWithoutParts({ input: 5, output: 5 });
    s.step({ input: 10, output: 1, cost: 0.001 });
    const c = await collectDb(db.path);
    expect(c.events).toHaveLength(1);
    expect(c.counts['stale 1.x tables ignored (2.x tables present)']).toBe(1);
    expectTotals(totals(c.events), db.expected());
  });

  it('reads a 1.x-only database: one request per step-finish part, a message without parts once, zero-usage messages not at all', async () => {
    const db = newDb('v1');
    const s = db.v1Session({ directory: '/work/old', model: SONNET });
    s.user();
    s.assistant([
      { input: 1000, output: 100, cacheRead: 50, cost: 0.01 },
      { input: 200, output: 300, reasoning: 40, cacheRead: 1100, cost: 0.02 },
    ]);
    s.assistantWithoutParts({ input: 700, output: 70, cacheWrite: 30, cost: 0.007 });
    s.inFlight();
    const c = await collectDb(db.path);
    expect(c.warnings).toEqual([]);
    // Keyed by what a Session.fork copy keeps (README "Forks (1.x)"), never by the copied row's id.
    expect(c.events.map((e) => [e.dedupe_key.split(':')[0], e.rule, e.dedupe_rank])).toEqual([
      ['v1', '1.x step-finish part', 0],
      ['v1', '1.x step-finish part', 0],
      ['v1', '1.x message usage', 0],
    ]);
    expect(new Set(c.events.map((e) => e.dedupe_key)).size).toBe(3);
    expect(c.events[2]).toMatchObject({ input_tokens: 700, cache_write_tokens: 30, requests: 1 });
    expect(
      c.events.every(
        (e) =>
          e.project === '/work/old' && e.model === SONNET.id && e.provider === 'anthropic' && e.session_id === s.id,
      ),
    ).toBe(true);
    // message.tokens of `multi` (= its last step) is not counted on top of its parts.
    expect(c.events.filter((e) => e.input_tokens === 200)).toHaveLength(1);
    expect(c.events[1]).toMatchObject({ output_tokens: 340, reasoning_tokens: 40 });
    expectTotals(totals(c.events), db.expected());
  });

  it('reads rows written by older 2.x builds (legacy key names) like current ones', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/legacy', model: GPT });
    const step = s.step({ input: 400, output: 40, reasoning: 11, cacheRead: 50, cost: 0.004 }, { legacy: true });
    const comp = s.compaction('completed', { input: 3000, output: 150, cost: 0.003 }, { legacy: true });
    const raw = db.writer.prepare('SELECT data FROM session_message WHERE id = ?').pluck();
    expect(raw.get(step)).toContain('"providerState"');
    expect(raw.get(comp)).toContain('"providerContext"');
    const c = await collectDb(db.path);
    expect(c.warnings).toEqual([]);
    expect(c.events.map((e) => [e.dedupe_key, e.output_tokens])).toEqual([
      [`msg:${step}`, 51],
      [`msg:${comp}`, 150],
    ]);
    expectTotals(totals(c.events), db.expected());
  });

  it('reads a pre-split 2.x database whose sessions are still in `session`', async () => {
    const db = newDb('v2-presplit');
    const s = db.session({ directory: '/work/presplit', model: SONNET });
    s.step({ input: 10, output: 2, cost: 0.01 });
    s.title({ input: 5, output: 1, cost: 0.001 });
    const c = await collectDb(db.path);
    expect(c.events.map((e) => e.requests)).toEqual([1, 0]);
    expectTotals(totals(c.events), db.expected());
  });

  it('warns about a SQLite file without OpenCode tables', async () => {
    const dir = join(root, 'not-oc');
    mkdirSync(dir);
    const p = join(dir, 'opencode.db');
    const d = new Database(p);
    d.exec('CREATE TABLE other (x)');
    d.close();
    const c = await collectDb(p);
    expect(c.events).toEqual([]);
    expect(c.warnings).toEqual([`${p}: no OpenCode session tables (session_message or message) found; nothing read`]);
  });
});

describe('opencode bad input', () => {
  it('skips a malformed row and counts an invalid token field as 0, each warning naming the database and row, everything else counted', async () => {
    const db = newDb();
    const s = db.session({ directory: '/work/bad', model: SONNET });
    const good = s.step({ input: 10, output: 1, cost: 0.001 });
    const broken = s.rawRow('assistant', `{"model":{"id":"m"},"text":"${SECRET}`);
    const wrongType = s.rawRow(
      'assistant',
      JSON.stringify({
        model: SONNET,
        cost: 'free',
        tokens: { input: '12', output: 7, reasoning: 0, cache: { read: true, write: 0 } },
        time: { created: Date.UTC(2026, 0, 6), completed: Date.UTC(2026, 0, 6) },
      }),
    );
    const c = await collectDb(db.path);
    expect(c.failed).toBe(false);
    expect(c.events.map((e) => e.dedupe_key).sort()).toEqual([`msg:${good}`, `msg:${wrongType}`].sort());
    expect(c.events.find((e) => e.dedupe_key === `msg:${wrongType}`)).toMatchObject({
      input_tokens: 0,
      output_tokens: 7,
      cache_read_tokens: 0,
      recorded_cost_usd: null,
    });
    expect(c.warnings).toContain(
      `${db.path} (session_message ${broken}): 1 session_message row(s) with unparsable data skipped (first: ${broken})`,
    );
    expect(c.warnings).toContain(
      `${db.path} (session_message ${wrongType}): invalid usage field(s) counted as 0: data.tokens.input not a number (string), data.tokens.cache.read not a number (boolean)`,
    );
    expect(c.warnings).toContain(`${db.path} (session_message ${wrongType}): invalid cost ignored`);
    expect(c.warnings.join('\n')).not.toContain(SECRET);
  });

  it('never carries prompt text or tool output into events, units, facts or warnings (titles only as session facts)', async () => {
    const dir = join(root, 'privacy');
    mkdirSync(dir);
    const db = buildMainDb(join(dir, 'opencode.db'));
    open.push(db);
    const c = await collectDb(db.path);
    expect(JSON.stringify(c)).not.toContain(SECRET);
    expect(c.units.length).toBeGreaterThan(0);
    expect(c.facts.some((f) => f.title === GENERATED_TITLE)).toBe(true);
    expect(JSON.stringify({ ...c, facts: [] })).not.toContain(GENERATED_TITLE);
  });
});

describe('opencode whole database', () => {
  it('harness total equals the sum of session totals plus nothing from stale or copied rows; per-session and per-model totals match', async () => {
    const dir = join(root, 'main');
    mkdirSync(dir);
    const db = buildMainDb(join(dir, 'opencode.db'));
    open.push(db);
    const c = await collectDb(db.path);
    expect(c.warnings).toEqual([]);
    expect(new Set(c.events.map((e) => e.dedupe_key)).size).toBe(c.events.length);
    expectTotals(totals(c.events), db.expected());

    // Sum of the running totals in the database itself.
    const sums = db.writer
      .prepare(
        'SELECT sum(tokens_input) AS i, sum(tokens_output) AS o, sum(tokens_reasoning) AS r, sum(tokens_cache_read) AS cr, sum(tokens_cache_write) AS cw, sum(cost) AS cost FROM session_v2',
      )
      .get() as Record<string, number>;
    const t = totals(c.events);
    expect([t.input_tokens, t.output_tokens, t.cache_read_tokens, t.cache_write_tokens]).toEqual([
      sums.i,
      sums.o! + sums.r!,
      sums.cr,
      sums.cw,
    ]);
    expect(t.cost_usd).toBeCloseTo(sums.cost!, 10);

    for (const [session, e] of db.expectedBySession())
      expectTotals(totals(c.events.filter((x) => x.session_id === session)), e);
    const models = new Set(c.events.map((e) => e.model ?? 'null'));
    expect([...models].sort()).toEqual([...db.expectedByModel().keys()].sort());
    for (const [model, e] of db.expectedByModel()) expectTotals(totals(c.events.filter((x) => x.model === model)), e);
  });

  it('a 1.x-only database matches its independently computed totals', async () => {
    const dir = join(root, 'v1only');
    mkdirSync(dir);
    const db = buildV1Db(join(dir, 'opencode.db'));
    open.push(db);
    const c = await collectDb(db.path);
    expectTotals(totals(c.events), db.expected());
    expect(db.expected().requests).toBe(3);
  });

  it('usage helper sanity: the builder ledger is what the session rows in the database say', () => {
    // Guards the fixture itself: the running totals it writes equal its own spend ledger.
    const db = newDb();
    const s = db.session({ directory: '/work/ledger', model: SONNET });
    s.step({ input: 7, output: 3, reasoning: 2, cost: 0.5 });
    s.title({ input: 1 });
    const row = db.writer
      .prepare('SELECT tokens_input AS i, tokens_output AS o, tokens_reasoning AS r, cost FROM session_v2 WHERE id = ?')
      .get(s.id);
    expect(row).toEqual({ i: 8, o: 3, r: 2, cost: 0.5 });
    expect(s.spend).toEqual(usage({ input: 8, output: 3, reasoning: 2, cost: 0.5 }));
  });
});
