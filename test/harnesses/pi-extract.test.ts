// Extractor-level tests of the pi harness: every rule of the contract entry
// `pi` checked against the independent ledger of the fixture builders.
import { appendFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildDefaultHome,
  buildEnvLayouts,
  GPT,
  LEGACY,
  PROJECTS,
  SONNET,
  sessionsDir,
} from '../../fixtures/pi/scenarios.js';
import { Ledger, PiSession, randomUsage, rng } from '../../fixtures/pi/session.js';
import { MAX_TRACKED_ENTRIES, type PiState } from '../../src/harnesses/pi/extract.js';
import type { UsageEvent } from '../../src/core/types.js';
import type { Collected } from '../../src/ingest/collect.js';
import { collect, collectAll, discover, fromEvent, fromLedger, sorted, storeView } from '../helpers/pi-support.js';
import { tempDir } from '../helpers/temp.js';

const tmp = (p: string) => tempDir(p);

describe('pi: default home (branched tree, fork, clone, forkFrom, v1, shared ids)', () => {
  let fx: ReturnType<typeof buildDefaultHome>;
  let all: Collected[];
  let events: UsageEvent[];
  const byFile = (path: string) => all.find((c) => c.source.path === path)!;
  const at = (c: Collected, id: string) => {
    const line =
      readFileSync(c.source.path, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes(`"id":"${id}"`)) + 1;
    const e = c.events.find((ev) => ev.source_line === line);
    if (!e) throw new Error(`no event for entry ${id}`);
    return e;
  };

  beforeAll(async () => {
    const home = tmp('txu-pi-home-');
    fx = buildDefaultHome(home);
    all = await collectAll(await discover(home));
    events = all.flatMap((c) => c.events);
  });

  it('discovers every session file of the default layout', () => {
    const files = [fx.tree.main, fx.tree.fork, fx.tree.clone, fx.tree.moved, fx.v1, ...fx.shared]
      .map((s) => s.path)
      .sort();
    expect(all.map((c) => c.source.path).sort()).toEqual(files);
    expect(all.every((c) => !c.failed && c.warnings.length === 0)).toBe(true);
  });

  it('after dedupe, billed responses equal the ledger exactly (every branch once, copies nothing)', () => {
    expect(sorted(storeView(events).map(fromEvent))).toEqual(sorted(fx.ledger.rows.map(fromLedger)));
  });

  it('counts every branch of one file: its events are exactly its own ledger rows', () => {
    const mine = fx.ledger.rows.filter((r) => r.session === fx.tree.main.sessionId);
    expect(sorted(byFile(fx.tree.main.path).events.map(fromEvent))).toEqual(sorted(mine.map(fromLedger)));
    // Both branches and the interleaved lines are all there.
    expect(mine.some((r) => r.model === GPT[0]) && mine.some((r) => r.model === SONNET[0])).toBe(true);
  });

  it('fork/clone/forkFrom copies carry the original keys with dedupe_rank 1; the original keeps the credit', () => {
    const main = byFile(fx.tree.main.path).events;
    const mainKeys = new Set(main.map((e) => e.dedupe_key));
    expect(main.every((e) => e.dedupe_rank === 0)).toBe(true);
    for (const copy of [fx.tree.fork, fx.tree.clone, fx.tree.moved]) {
      const evs = byFile(copy.path).events;
      expect(evs.every((e) => e.dedupe_rank === 1)).toBe(true);
      const copied = evs.filter((e) => mainKeys.has(e.dedupe_key));
      expect(copied.length).toBeGreaterThan(0);
      // Each copy also has responses of its own (after the fork point), which count.
      const own = fx.ledger.rows.filter((r) => r.session === copy.sessionId);
      expect(evs.length - copied.length).toBe(own.length);
      for (const e of copied) {
        const orig = main.find((m) => m.dedupe_key === e.dedupe_key)!;
        expect({ ...fromEvent(e), session: '', project: '' }).toEqual({ ...fromEvent(orig), session: '', project: '' });
      }
    }
    const kept = storeView(events).filter((e) => mainKeys.has(e.dedupe_key));
    expect(kept.every((e) => e.session_id === fx.tree.main.sessionId && e.project === PROJECTS.alpha)).toBe(true);
  });

  it('/fork re-chains parentIds around dropped labels and still resolves models through them', () => {
    const lines = readFileSync(fx.tree.fork.path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0].parentSession).toBe(fx.tree.main.path);
    const warm = lines.find((l) => l.id === fx.tree.ids.warm);
    expect(warm.parentId).toBe(fx.tree.ids.a2); // was the label in the original
    expect(at(byFile(fx.tree.fork.path), fx.tree.ids.compaction!).model).toBe(SONNET[0]);
  });

  it('unrelated sessions sharing an 8-hex entry id are both counted', () => {
    const [a, b] = fx.shared.map((s) => byFile(s.path).events);
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    const mainA1 = at(byFile(fx.tree.main.path), fx.tree.ids.a1!);
    expect(a![0]!.dedupe_key.startsWith(`entry:${fx.tree.ids.a1}:`)).toBe(true);
    expect(new Set([a![0]!.dedupe_key, b![0]!.dedupe_key, mainA1.dedupe_key]).size).toBe(3);
    const view = storeView(events);
    for (const e of [a![0]!, b![0]!, mainA1]) expect(view).toContain(e);
  });

  it('version-1 files (no version, no ids) count, with models taken in line order', () => {
    const c = byFile(fx.v1.path);
    const mine = fx.ledger.rows.filter((r) => r.session === fx.v1.sessionId);
    expect(mine).toHaveLength(4);
    expect(sorted(c.events.map(fromEvent))).toEqual(sorted(mine.map(fromLedger)));
    expect(
      c.events.every((e) => e.model === LEGACY[0] && e.provider === 'anthropic' && e.project === PROJECTS.legacy),
    ).toBe(true);
    // No ids: each message is known by its session, time and usage (README "Entries without an id").
    expect(c.events.every((e) => e.dedupe_key.startsWith(`same:${fx.v1.sessionId}:`))).toBe(true);
    expect(new Set(c.events.map((e) => e.dedupe_key)).size).toBe(4);
    // never rewritten: still no version field
    expect(JSON.parse(readFileSync(fx.v1.path, 'utf8').split('\n')[0]!).version).toBeUndefined();
  });

  it('usage entries count with their own model and provider, unknown kinds included', () => {
    const c = byFile(fx.tree.main.path);
    const warm = at(c, fx.tree.ids.warm!);
    expect([warm.model, warm.provider, warm.cache_read_tokens, warm.requests]).toEqual([
      SONNET[0],
      'anthropic',
      50000,
      1,
    ]);
    const probe = at(c, fx.tree.ids.unknownKind!);
    expect([probe.model, probe.provider]).toEqual(['qwen/qwen3-coder', 'openrouter']);
    expect(c.counts['pi: counted usage entry']).toBe(2);
  });

  it('model-less usage takes the nearest model-naming ancestor on the tree, not the previous line', () => {
    const c = byFile(fx.tree.main.path);
    const m = (k: string) => [at(c, fx.tree.ids[k]!).model, at(c, fx.tree.ids[k]!).provider];
    expect(m('toolNested')).toEqual(SONNET); // parent chain: tool → A1
    expect(m('compaction')).toEqual(SONNET); // through a custom_message (envelope last) to the aborted A3
    expect(m('compactionB')).toEqual(GPT); // through custom + custom_message to B2; previous line is sonnet A4
    expect(m('summary')).toEqual(GPT); // branch point userB (a 400 KB image line) → model_change(gpt)
    expect(m('rootSummary')).toEqual(GPT); // a new root: no ancestor → latest model named earlier in the file (B3)
  });

  it('errored and aborted responses count, a zero-usage error as one request', () => {
    const c = byFile(fx.tree.main.path);
    for (const k of ['b1error', 'a3aborted']) expect(at(c, fx.tree.ids[k]!).output_tokens).toBeGreaterThan(0);
    const z = at(c, fx.tree.ids.zeroError!);
    expect([z.requests, z.input_tokens + z.output_tokens + z.cache_read_tokens + z.cache_write_tokens]).toEqual([1, 0]);
    expect(c.counts['pi: counted errored response']).toBe(2);
    expect(c.counts['pi: counted aborted response']).toBe(1);
  });

  it('normalizes cacheWrite1h into the 1h/5m split only where recorded, and carries cost.total', () => {
    const c = byFile(fx.tree.main.path);
    const a1 = at(c, fx.tree.ids.a1!);
    expect(a1.cache_write_1h_tokens).not.toBeNull();
    expect(a1.cache_write_1h_tokens! + a1.cache_write_5m_tokens!).toBe(a1.cache_write_tokens);
    const b2 = at(c, fx.tree.ids.b2!);
    expect([b2.cache_write_1h_tokens, b2.cache_write_5m_tokens]).toEqual([null, null]);
    expect(b2.reasoning_tokens).toBeLessThanOrEqual(b2.output_tokens);
    expect(c.events.every((e) => typeof e.recorded_cost_usd === 'number')).toBe(true);
  });

  it('dedupe keys are entry id + message timestamp (stable across files)', () => {
    const c = byFile(fx.tree.main.path);
    const line = readFileSync(c.source.path, 'utf8')
      .split('\n')
      .find((l) => l.includes(`"id":"${fx.tree.ids.b2}"`))!;
    const rec = JSON.parse(line);
    expect(at(c, fx.tree.ids.b2!).dedupe_key).toBe(`entry:${rec.id}:${rec.message.timestamp}`);
    const warmLine = JSON.parse(
      readFileSync(c.source.path, 'utf8')
        .split('\n')
        .find((l) => l.includes(`"id":"${fx.tree.ids.warm}"`))!,
    );
    expect(at(c, fx.tree.ids.warm!).dedupe_key).toBe(`entry:${warmLine.id}:${Date.parse(warmLine.timestamp)}`);
  });
});

describe('pi: roots and layouts', () => {
  it('PI_CODING_AGENT_DIR replaces ~/.pi/agent; PI_CODING_AGENT_SESSION_DIR (flat, any cwd) is searched too', async () => {
    const base = tmp('txu-pi-env-');
    const home = join(base, 'home');
    const env = buildEnvLayouts(base);
    const ignored = buildDefaultHome(home); // ~/.pi/agent: not searched once PI_CODING_AGENT_DIR is set
    const sources = await discover(home, {
      PI_CODING_AGENT_DIR: env.agentDir,
      PI_CODING_AGENT_SESSION_DIR: env.flatDir,
    });
    const evs = storeView((await collectAll(sources)).flatMap((c) => c.events));
    expect(sorted(evs.map(fromEvent))).toEqual(sorted(env.ledger.rows.map(fromLedger)));
    expect(new Set(evs.map((e) => e.project))).toEqual(new Set([PROJECTS.delta, PROJECTS.epsilon, PROJECTS.zeta]));
    expect(ignored.ledger.rows.length).toBeGreaterThan(0);

    // Session dir alone: it and the default agent dir.
    const both = await discover(home, { PI_CODING_AGENT_SESSION_DIR: env.flatDir });
    const n = storeView((await collectAll(both)).flatMap((c) => c.events)).length;
    const flatRows = env.ledger.rows.filter((r) => r.project !== PROJECTS.delta).length;
    expect(n).toBe(ignored.ledger.rows.length + flatRows);
  });

  it('--root pi=PATH accepts an agent dir or a sessions dir, and a linked dir is read once', async () => {
    const base = tmp('txu-pi-root-');
    const env = buildEnvLayouts(base);
    const viaAgent = await discover('/nonexistent-home', {}, [env.agentDir]);
    const viaSessions = await discover('/nonexistent-home', {}, [join(env.agentDir, 'sessions')]);
    expect(viaAgent.map((s) => s.path)).toEqual(viaSessions.map((s) => s.path));
    expect(viaAgent).toHaveLength(1);
    symlinkSync(env.flatDir, join(base, 'flat-link'));
    const linked = await discover('/nonexistent-home', {}, [env.flatDir, join(base, 'flat-link')]);
    expect(linked).toHaveLength(2);
  });

  it('session id from the header, else from the file name; project from the header cwd, else the dir name', async () => {
    const home = tmp('txu-pi-hdr-');
    const dir = join(home, '.pi/agent/sessions/--srv-app--');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, '2026-01-01T10-00-00-000Z_0190aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl');
    const asst = (id: string) =>
      JSON.stringify({
        type: 'message',
        id,
        parentId: null,
        timestamp: '2026-01-01T10:00:03.000Z',
        message: {
          role: 'assistant',
          content: [],
          api: 'x',
          provider: 'p',
          model: 'm',
          usage: { input: 5, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 6 },
          stopReason: 'stop',
          timestamp: 1767261602000,
        },
      });
    writeFileSync(file, asst('aaaa0001') + '\n');
    const [src] = await discover(home);
    const c = await collect(src!);
    expect(c.events.map((e) => [e.session_id, e.project, e.recorded_cost_usd])).toEqual([
      ['0190aaaa-bbbb-7ccc-8ddd-eeeeffff0000', '/srv/app', null],
    ]);
    expect(c.warnings).toEqual([
      `${file}:1: no session header before the first entry; session id taken from the file name`,
    ]);
  });
});

describe('pi: incremental reads', () => {
  function twoPartSession(ledger: Ledger, dir: string) {
    const s = new PiSession({ dir, cwd: PROJECTS.alpha, start: Date.UTC(2026, 2, 1), ledger, seed: 77 });
    const r = rng(78);
    s.modelChange(GPT[1], GPT[0]);
    const u1 = s.user('first', 20_000);
    s.assistant({ provider: GPT[1], model: GPT[0], usage: randomUsage(r) });
    s.customMessage('note');
    s.modelChange(SONNET[1], SONNET[0]);
    s.user('second');
    s.assistant({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(r) });
    return { s, u1: u1!, r };
  }

  it('a resumed read (state round-tripped through JSON) gives exactly the events of a full read', async () => {
    const dir = join(tmp('txu-pi-inc-'), 'sessions', '--home-dev-alpha--');
    const ledger = new Ledger();
    const { s, u1, r } = twoPartSession(ledger, dir);
    s.flush();
    const [src] = await discover(join(dir, '../..'), {}, [join(dir, '..')]);
    const first = await collect(src!);
    // Part 2: branch back to part 1's user message (a line never parsed) and summarise there.
    s.branchSummary(u1, { usage: randomUsage(r) });
    s.toolResult({ usage: randomUsage(r) });
    s.flush();
    const resume = JSON.parse(JSON.stringify(first.resume));
    const second = await collect(src!, resume);
    const full = await collect(src!);
    expect(second.events.length).toBe(2);
    expect([...first.events, ...second.events].map(fromEvent)).toEqual(full.events.map(fromEvent));
    expect(sorted(full.events.map(fromEvent))).toEqual(sorted(ledger.rows.map(fromLedger)));
    expect(second.events.map((e) => e.model)).toEqual([GPT[0], GPT[0]]); // from the tree, not sonnet (last line of part 1)
  });

  it('leaves a torn final line for the next run', async () => {
    const dir = join(tmp('txu-pi-torn-'), 'sessions', '--home-dev-alpha--');
    const ledger = new Ledger();
    const { s } = twoPartSession(ledger, dir);
    const path = s.write();
    const whole = readFileSync(path, 'utf8');
    const lines = whole.trimEnd().split('\n');
    const last = lines.pop()!;
    writeFileSync(path, lines.join('\n') + '\n' + last.slice(0, 40));
    const [src] = await discover(join(dir, '../..'), {}, [join(dir, '..')]);
    const a = await collect(src!);
    expect(a.events.length).toBe(ledger.rows.length - 1);
    expect(a.tailWarnings.some((w) => w.includes('incomplete final line'))).toBe(true);
    writeFileSync(path, whole);
    const b = await collect(src!, JSON.parse(JSON.stringify(a.resume)));
    expect(b.events.map(fromEvent)).toEqual([fromLedger(ledger.rows[ledger.rows.length - 1]!)]);
  });

  it('keeps bounded state; full and resumed reads agree even past the bound', async () => {
    const dir = join(tmp('txu-pi-big-'), 'sessions', '--home-dev-alpha--');
    const ledger = new Ledger();
    const s = new PiSession({ dir, cwd: PROJECTS.alpha, start: Date.UTC(2026, 2, 2), ledger, seed: 90 });
    const r = rng(91);
    s.modelChange(GPT[1], GPT[0]);
    const early = s.user('early')!;
    for (let i = 0; i < MAX_TRACKED_ENTRIES + 50; i++) s.thinkingLevel(i % 2 ? 'high' : 'low');
    s.assistant({ provider: SONNET[1], model: SONNET[0], usage: randomUsage(r) });
    s.flush();
    const [src] = await discover(join(dir, '../..'), {}, [join(dir, '..')]);
    const first = await collect(src!);
    const state = first.resume!.state as PiState;
    expect(state.ids.length).toBe(MAX_TRACKED_ENTRIES);
    expect(JSON.stringify(state).length).toBeLessThan(MAX_TRACKED_ENTRIES * 16);
    // A branch back to an entry forgotten long ago: the model falls back to file order (sonnet), in both modes.
    s.branch(early);
    s.compaction({ usage: randomUsage(r) });
    s.flush();
    const resumed = await collect(src!, JSON.parse(JSON.stringify(first.resume)));
    const full = await collect(src!);
    expect([...first.events, ...resumed.events].map(fromEvent)).toEqual(full.events.map(fromEvent));
    expect(full.events.at(-1)!.model).toBe(SONNET[0]);
  });
});

describe('pi: bad input', () => {
  it('warns with file and line for unparsable lines and invalid numbers, counts the rest, never prints content', async () => {
    const dir = join(tmp('txu-pi-bad-'), 'sessions', '--home-dev-alpha--');
    const ledger = new Ledger();
    const s = new PiSession({ dir, cwd: PROJECTS.alpha, start: Date.UTC(2026, 2, 3), ledger, seed: 95 });
    s.modelChange(SONNET[1], SONNET[0]);
    s.user('secret prompt text');
    s.assistant({
      provider: SONNET[1],
      model: SONNET[0],
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: 0.5 },
    });
    const path = s.write();
    appendFileSync(path, '{"type":"message","id":"bad00001","usage": secret prompt text not json\n');
    appendFileSync(
      path,
      JSON.stringify({
        type: 'message',
        id: 'bad00002',
        parentId: null,
        timestamp: '2026-03-03T01:00:00.000Z',
        message: {
          role: 'assistant',
          provider: 'anthropic',
          model: 'm',
          usage: { input: 'many', output: 7, cacheRead: -1, cacheWrite: 0, cost: { total: 'x' } },
          stopReason: 'stop',
          timestamp: 1772499600000,
        },
      }) + '\n',
    );
    const [src] = await discover(join(dir, '../..'), {}, [join(dir, '..')]);
    const c = await collect(src!);
    expect(c.events.map((e) => [e.input_tokens, e.output_tokens, e.cache_read_tokens, e.recorded_cost_usd])).toEqual([
      [10, 5, 0, 0.5],
      [0, 7, 0, null],
    ]);
    const n = readFileSync(path, 'utf8').trimEnd().split('\n').length;
    expect(c.warnings).toContain(`${path}:${n - 1}: 1 unparsable line skipped (first at line ${n - 1})`);
    expect(
      c.warnings.some(
        (w) => w.startsWith(`${path}:${n}: invalid usage field(s)`) && w.includes('input') && w.includes('cacheRead'),
      ),
    ).toBe(true);
    expect(c.warnings.some((w) => w.startsWith(`${path}:${n}: usage.cost.total`))).toBe(true);
    expect(c.warnings.join('\n')).not.toContain('secret');
    expect(basename(path)).toContain(s.sessionId);
  });
});
