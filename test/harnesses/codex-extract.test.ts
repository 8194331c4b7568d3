// Extractor-level tests for the codex harness: every rule of the contract
// entry `codex` (see src/harnesses/codex/README.md) against generated rollouts
// whose expected totals the builders added up themselves.
import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  buildCodexHome,
  id,
  legacyForkScenario,
  legacyScenario,
  migratedScenario,
  newContext,
  paginatedForkScenario,
  paginatedScenario,
  revertScenario,
  rolloutName,
  sessionsPath,
  subagentScenario,
  T0,
  writeCorruptRollouts,
  zstdCompress,
} from '../../fixtures/codex/home.js';
import { Ledger, utcDay } from '../../fixtures/codex/ledger.js';
import { randomUsage, rng, RolloutWriter, usageJson, ZERO_USAGE } from '../../fixtures/codex/rollout.js';
import {
  byModelDay,
  collect,
  collectAll,
  copies,
  discover,
  own,
  skipCount,
  sorted,
  storeLike,
  totalsBy,
} from '../helpers/codex-helpers.js';
import type { SourceRef } from '../../src/harnesses/types.js';
import { tempDir } from '../helpers/temp.js';

const dirs: string[] = [];
function freshHome(): string {
  const d = tempDir('txu-codex-');
  dirs.push(d);
  return join(d, '.codex');
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function refFor(codexHome: string, path: string): Promise<SourceRef> {
  const ref = (await discover(codexHome)).find((r) => r.path === path);
  if (!ref) throw new Error(`not discovered: ${path}`);
  return ref;
}

describe('codex: the whole fixture home', () => {
  it('every file yields exactly its own billed responses, and all files together match the ledger by model and UTC day', async () => {
    const home = buildCodexHome(dirname(freshHome()));
    const collected = await collectAll(home.codexHome);
    expect(collected.map((c) => c.source.path).sort()).toEqual(home.written.map((w) => w.path).sort());
    for (const w of home.written) {
      const c = collected.find((x) => x.source.path === w.path)!;
      expect(c.failed).toBe(false);
      expect(sorted(byModelDay(own(c.events))), w.label).toEqual(
        sorted(home.ledger.byModelDay((r) => r.file === w.label)),
      );
    }
    const all = collected.flatMap((c) => c.events);
    expect(sorted(byModelDay(storeLike(all)))).toEqual(sorted(home.ledger.byModelDay()));
    // Every copy (a fork's, a sub-agent's inherited context) shares the key of its original, which the store keeps.
    expect(storeLike(all).length).toBe(own(all).length);
    expect(storeLike(all).every((e) => e.dedupe_rank < 2)).toBe(true);
    expect(home.ledger.responses.length).toBeGreaterThan(40);
    // session_meta.model_provider is passed on; Codex never records a cost.
    expect(new Set(all.map((e) => `${e.provider}/${e.recorded_cost_usd}`))).toEqual(new Set(['openai/null']));
  });
});

/** A fresh home holding only what `build` writes; returns the collected result of each written file. */
async function only(build: (ctx: ReturnType<typeof newContext>) => unknown) {
  const codexHome = freshHome();
  const ctx = newContext(codexHome);
  build(ctx);
  const collected = await collectAll(codexHome);
  const byLabel = new Map(ctx.written.map((w) => [w.label, collected.find((c) => c.source.path === w.path)!]));
  return { ctx, codexHome, collected, byLabel, ledger: ctx.ledger };
}

function lineOf(path: string, pred: (line: string) => boolean): number {
  return readFileSync(path, 'utf8').split('\n').findIndex(pred) + 1;
}

describe('codex: paginated rollouts (token_usage_record)', () => {
  it('counts each response once from its record, whichever side of its token_count the record is on', async () => {
    const { byLabel, ledger, ctx } = await only((ctx) => paginatedScenario(ctx));
    const c = byLabel.get('paginated')!;
    expect(sorted(byModelDay(c.events))).toEqual(sorted(ledger.byModelDay()));
    expect(c.events.length).toBe(ledger.responses.length);
    expect(c.counts['responses from token_usage_record']).toBe(ledger.responses.length);
    expect(c.counts['responses from token_count totals']).toBeUndefined();
    // Every response's token_count was paired with its record, never counted again.
    expect(skipCount(c, 'token_count already counted by its token_usage_record')).toBe(ledger.responses.length);
    expect(new Set(c.events.map((e) => e.dedupe_key)).size).toBe(c.events.length);
    // The file crosses a UTC midnight: both days are present.
    expect(new Set(ledger.responses.map((r) => utcDay(r.ts))).size).toBe(2);
    void ctx;
  });

  it('skips records repeating a response_id (adjacent and much later)', async () => {
    const { byLabel } = await only((ctx) => paginatedScenario(ctx));
    expect(skipCount(byLabel.get('paginated')!, 'duplicate token_usage_record (same response_id)')).toBe(2);
  });

  it('ignores info:null and repeated totals, and marker strings inside tool calls', async () => {
    const { byLabel } = await only((ctx) => paginatedScenario(ctx));
    const c = byLabel.get('paginated')!;
    expect(skipCount(c, 'token_count without info (rate-limit update only)')).toBe(1);
    expect(skipCount(c, 'token_count repeating an unchanged total')).toBe(2);
    expect(c.events.every((e) => e.input_tokens + e.cache_read_tokens + e.cache_write_tokens < 999999)).toBe(true);
  });

  it('an unparsable line mid-file is a warning naming file:line and reading goes on', async () => {
    const { byLabel, ctx, ledger } = await only((ctx) => paginatedScenario(ctx));
    const path = ctx.written[0]!.path;
    const bad = lineOf(path, (l) => l.endsWith('"total_tok'));
    expect(bad).toBeGreaterThan(1);
    const c = byLabel.get('paginated')!;
    expect(c.warnings).toEqual([`${path}:${bad}: 1 unparsable line skipped (first at line ${bad})`]);
    // Responses after the bad line are counted (paginatedScenario writes 3 before it).
    const after = ledger.responses.length - 3;
    expect(after).toBeGreaterThan(2);
    expect(c.events.filter((e) => (e.source_line ?? 0) > bad).length).toBe(after);
  });

  it('thread_rolled_back keeps the spent tokens; project follows the turn_context cwd', async () => {
    const { byLabel, ledger } = await only((ctx) => paginatedScenario(ctx));
    const c = byLabel.get('paginated')!;
    expect(c.counts['thread_rolled_back (spend kept)']).toBe(1);
    expect(sorted(totalsBy(c.events, (e) => e.project ?? 'null'))).toEqual(sorted(ledger.by((r) => r.project)));
    expect(new Set(c.events.map((e) => e.project))).toEqual(new Set(['/proj/alpha', '/proj/alpha/sub']));
    expect(new Set(c.events.map((e) => e.session_id))).toEqual(new Set([id(0xa1)]));
    expect(c.events.every((e) => e.recorded_cost_usd === null && e.harness === 'codex')).toBe(true);
  });
});

describe('codex: legacy rollouts (token_count only)', () => {
  it('derives each response from the difference of cumulative totals; repeats, info:null and overflow totals add nothing', async () => {
    const { byLabel, ledger, ctx } = await only((ctx) => {
      const w = legacyScenario(ctx);
      const path = sessionsPath(ctx.codexHome, w.o.start, rolloutName(w.o.start, w.o.threadId));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, w.text());
      ctx.written.push({ label: 'legacy', path, threadId: w.o.threadId });
    });
    const c = byLabel.get('legacy')!;
    expect(sorted(byModelDay(c.events))).toEqual(sorted(ledger.byModelDay()));
    expect(c.counts['responses from token_count totals']).toBe(ledger.responses.length);
    expect(skipCount(c, 'token_count without info (rate-limit update only)')).toBe(2);
    expect(skipCount(c, 'token_count repeating an unchanged total')).toBe(3);
    expect(skipCount(c, 'synthesized context-window-overflow total (not provider usage)')).toBe(2);
    // The trap is really in the file: summing last_token_usage over every
    // token_count with info would over-count (repeats, synthesized totals).
    let naive = 0;
    for (const l of readFileSync(ctx.written[0]!.path, 'utf8').split('\n')) {
      if (!l.includes('"token_count"')) continue;
      try {
        const r = JSON.parse(l);
        if (r.payload?.info?.last_token_usage) naive += r.payload.info.last_token_usage.total_tokens;
      } catch {
        /* the torn line */
      }
    }
    expect(naive).toBeGreaterThan(ledger.total().total_tokens);
    // Models switch with turn_context; the file crosses midnight.
    expect(new Set(c.events.map((e) => e.model))).toEqual(new Set(['gpt-5', 'o3']));
    expect(new Set(c.events.map((e) => utcDay(e.ts))).size).toBe(2);
  });

  it('a total that restarts or rewinds gets a new key epoch; a restart counts last_token_usage, a rewind to a seen total adds nothing', async () => {
    const { byLabel, ledger } = await only((ctx) => {
      const w = new RolloutWriter({
        threadId: id(0x51),
        start: T0,
        paginated: false,
        label: 'restart',
        project: '/proj/r',
        ledger: ctx.ledger,
        cacheWriteField: false,
      });
      const r = rng(5);
      const small = { input: 3000, cached: 1000, cacheWrite: 0, output: 100, reasoning: 20 };
      const big = { input: 90000, cached: 1000, cacheWrite: 0, output: 900, reasoning: 20 };
      w.sessionMeta().turn('gpt-5', '/proj/r');
      w.response(randomUsage(r, false)).response(randomUsage(r, false));
      w.total = ZERO_USAGE; // e.g. resumed by a build that did not restore the totals
      w.response(small); // the new total is below the old one
      const afterRestart = w.total;
      w.response(randomUsage(r, false));
      w.total = afterRestart; // back to a state this file already showed
      w.repeatTokenCount();
      w.response(randomUsage(r, false));
      w.total = ZERO_USAGE;
      w.response(big); // restarted again, this time above the old total
      w.response(randomUsage(r, false)).endTurn();
      const path = sessionsPath(ctx.codexHome, T0, rolloutName(T0, id(0x51)));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, w.text());
      ctx.written.push({ label: 'restart', path, threadId: id(0x51) });
    });
    const c = byLabel.get('restart')!;
    expect(sorted(byModelDay(c.events))).toEqual(sorted(ledger.byModelDay()));
    expect(c.counts['cumulative total restarts']).toBe(2);
    expect(skipCount(c, 'cumulative total went back to an earlier value (no new usage)')).toBe(1);
    expect(new Set(c.events.map((e) => e.dedupe_key)).size).toBe(ledger.responses.length);
  });

  it('a response before any turn_context takes the next turn_context model', async () => {
    const { byLabel, ledger } = await only((ctx) => {
      const w = new RolloutWriter({
        threadId: id(0x52),
        start: T0,
        paginated: false,
        label: 'early',
        project: '/proj/early',
        ledger: ctx.ledger,
        cacheWriteField: false,
      });
      const r = rng(6);
      w.sessionMeta();
      w.model = 'gpt-5-codex'; // the rule under test: attributed to the next turn_context's model
      w.response(randomUsage(r, false));
      w.turn('gpt-5-codex', '/proj/early').response(randomUsage(r, false));
      const path = sessionsPath(ctx.codexHome, T0, rolloutName(T0, id(0x52)));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, w.text());
      ctx.written.push({ label: 'early', path, threadId: id(0x52) });
    });
    const c = byLabel.get('early')!;
    expect(sorted(byModelDay(c.events))).toEqual(sorted(ledger.byModelDay()));
    expect(c.events.map((e) => e.project)).toEqual(['/proj/early', '/proj/early']);
  });
});

describe('codex: forks, sub-agents, reverts, migrated files', () => {
  it('legacy fork: copied parent records (session_meta included) add nothing; the fork continues from the last inherited total', async () => {
    const { byLabel, ledger } = await only((ctx) => legacyForkScenario(ctx));
    const parent = byLabel.get('fork-parent')!;
    const fork = byLabel.get('legacy-fork')!;
    expect(sorted(byModelDay(own(fork.events)))).toEqual(sorted(ledger.byModelDay((r) => r.file === 'legacy-fork')));
    expect(sorted(byModelDay(parent.events))).toEqual(sorted(ledger.byModelDay((r) => r.file === 'fork-parent')));
    expect(skipCount(fork, 'session_meta copied from another rollout (only the first line describes the file)')).toBe(
      1,
    );
    // The copied responses are keyed as the parent's file keys them.
    expect(fork.counts[`responses copied from thread ${id(0xc1)}`]).toBe(3);
    expect(fork.counts['own responses']).toBe(2);
    expect(
      copies(fork.events)
        .map((e) => e.dedupe_key)
        .sort(),
    ).toEqual(parent.events.map((e) => e.dedupe_key).sort());
    expect(new Set(own(fork.events).map((e) => e.session_id))).toEqual(new Set([id(0xc2)]));
    expect(own(fork.events).map((e) => e.model)).toEqual(['o4-mini', 'o4-mini']);
    const all = [...parent.events, ...fork.events];
    expect(sorted(byModelDay(storeLike(all)))).toEqual(sorted(ledger.byModelDay()));
    expect(storeLike(all).length).toBe(own(all).length);
  });

  it('sub-agent: inherited parent context adds nothing; own responses go to the child thread and the parent project', async () => {
    const { byLabel, ledger } = await only((ctx) => subagentScenario(ctx));
    const child = byLabel.get('subagent')!;
    expect(sorted(byModelDay(own(child.events)))).toEqual(sorted(ledger.byModelDay((r) => r.file === 'subagent')));
    expect(own(child.events).length).toBe(3);
    expect(child.counts[`responses copied from thread ${id(0xd1)}`]).toBe(2);
    expect(child.counts['copy ended by the ordinal reaching subagent_history_start_ordinal']).toBe(1);
    // A sub-agent's spend belongs to the root of its session tree (here the parent, whose thread is the root).
    expect(new Set(own(child.events).map((e) => e.session_id))).toEqual(new Set([id(0xd1)]));
    expect(new Set(own(child.events).map((e) => e.project))).toEqual(new Set(['/proj/delta']));
    expect(new Set(own(child.events).map((e) => e.model))).toEqual(new Set(['gpt-5-mini']));
    const parent = byLabel.get('sub-parent')!;
    expect(sorted(byModelDay(parent.events))).toEqual(sorted(ledger.byModelDay((r) => r.file === 'sub-parent')));
    const all = [...parent.events, ...child.events];
    expect(sorted(byModelDay(storeLike(all)))).toEqual(sorted(ledger.byModelDay()));
  });

  it('revert: old and new rollout of one thread each count their own responses once (history_base prefix not re-counted)', async () => {
    const { byLabel, ledger } = await only((ctx) => revertScenario(ctx));
    const old = byLabel.get('revert-old')!;
    const nw = byLabel.get('revert-new')!;
    expect(sorted(byModelDay(old.events))).toEqual(sorted(ledger.byModelDay((r) => r.file === 'revert-old')));
    expect(sorted(byModelDay(nw.events))).toEqual(sorted(ledger.byModelDay((r) => r.file === 'revert-new')));
    // The new file's response without a record is counted from its token_count delta.
    expect(nw.counts['responses from token_count totals']).toBe(1);
    expect(new Set([...old.events, ...nw.events].map((e) => e.session_id))).toEqual(new Set([id(0xe1)]));
    const all = [...old.events, ...nw.events];
    expect(storeLike(all).length).toBe(all.length);
    expect(nw.events.every((e) => e.dedupe_key.includes(':0199aaaa-0000-7000-8000-0000000e1f01:'))).toBe(true);
  });

  it('paginated fork and a legacy file migrated in place to paginated', async () => {
    const { byLabel, ledger } = await only((ctx) => {
      paginatedForkScenario(ctx, {
        threadId: id(0xd1),
        total: { input: 9000, cached: 4000, cacheWrite: 10, output: 700, reasoning: 300 },
        ordinal: 12,
      });
      migratedScenario(ctx);
    });
    const fork = byLabel.get('paginated-fork')!;
    const mig = byLabel.get('migrated')!;
    expect(sorted(byModelDay(fork.events))).toEqual(sorted(ledger.byModelDay((r) => r.file === 'paginated-fork')));
    expect(sorted(byModelDay(mig.events))).toEqual(sorted(ledger.byModelDay((r) => r.file === 'migrated')));
    expect(mig.counts['responses from token_count totals']).toBe(3);
    expect(mig.counts['responses from token_usage_record']).toBe(2);
    expect(skipCount(mig, 'duplicate token_usage_record (same response_id)')).toBe(1);
  });

  it('history_base file whose first own response has only a token_count: its last_token_usage, against the inherited total', async () => {
    const { byLabel, ledger } = await only((ctx) => {
      const w = new RolloutWriter({
        threadId: id(0x53),
        start: T0,
        paginated: true,
        firstOrdinal: 20,
        label: 'based',
        project: '/proj/b',
        ledger: ctx.ledger,
        startTotal: { input: 50000, cached: 20000, cacheWrite: 0, output: 3000, reasoning: 1000 },
      });
      const r = rng(8);
      w.sessionMeta({ history_base: { thread_id: id(0x54), end_ordinal_exclusive: 20, end_byte_offset: 9999 } }).turn(
        'gpt-5',
        '/proj/b',
      );
      // No record, no known starting total: the response is its last_token_usage (delta against the inherited total).
      w.response(randomUsage(r), { record: 'none' });
      w.response(randomUsage(r), { record: 'none' }).response(randomUsage(r), { record: 'after' });
      const path = sessionsPath(ctx.codexHome, T0, rolloutName(T0, id(0x53)));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, w.text());
      ctx.written.push({ label: 'based', path, threadId: id(0x53) });
    });
    const c = byLabel.get('based')!;
    expect(sorted(byModelDay(c.events))).toEqual(sorted(ledger.byModelDay()));
    expect(c.counts['responses from token_count totals']).toBe(2);
    expect(c.skips.map((k) => k.reason)).not.toContain(
      'first token_count after an unknown total without a usable last_token_usage: taken as the starting total',
    );
  });
});

describe('codex: normalization and bad numbers', () => {
  function oneRecordFile(codexHome: string, usage: Record<string, unknown>): string {
    const tid = id(0x61);
    const path = sessionsPath(codexHome, T0, rolloutName(T0, tid));
    mkdirSync(dirname(path), { recursive: true });
    const lines = [
      {
        timestamp: '2026-01-10T09:00:00.000Z',
        ordinal: 0,
        type: 'session_meta',
        payload: {
          id: tid,
          session_id: tid,
          timestamp: '2026-01-10T09:00:00.000Z',
          cwd: '/p',
          originator: 'codex_cli_rs',
          cli_version: '0.164.0',
          history_mode: 'paginated',
        },
      },
      {
        timestamp: '2026-01-10T09:00:01.000Z',
        ordinal: 1,
        type: 'turn_context',
        payload: { cwd: '/p', model: 'gpt-5-codex', approval_policy: 'never', sandbox_policy: { type: 'read-only' } },
      },
      {
        timestamp: '2026-01-10T09:00:02.000Z',
        ordinal: 2,
        type: 'token_usage_record',
        payload: { thread_id: tid, turn_id: 't', session_id: tid, root_turn_id: 't', response_id: 'resp_1', usage },
      },
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l) + '\n').join(''));
    return path;
  }

  it('uncached input = input - cached - cache_write; output includes reasoning; missing fields are 0', async () => {
    const codexHome = freshHome();
    const u = {
      input_tokens: 1200,
      cached_input_tokens: 1000,
      cache_write_input_tokens: 50,
      output_tokens: 80,
      reasoning_output_tokens: 40,
      total_tokens: 1280,
    };
    const path = oneRecordFile(codexHome, u);
    const [c] = await collectAll(codexHome);
    expect(c!.events).toHaveLength(1);
    const e = c!.events[0]!;
    expect([e.input_tokens, e.cache_read_tokens, e.cache_write_tokens, e.output_tokens, e.reasoning_tokens]).toEqual([
      u.input_tokens - u.cached_input_tokens - u.cache_write_input_tokens,
      u.cached_input_tokens,
      u.cache_write_input_tokens,
      u.output_tokens,
      u.reasoning_output_tokens,
    ]);
    expect(e.input_tokens + e.cache_read_tokens + e.cache_write_tokens + e.output_tokens).toBe(u.total_tokens);
    expect([e.model, e.project, e.session_id, e.source_file, e.source_line]).toEqual([
      'gpt-5-codex',
      '/p',
      id(0x61),
      path,
      3,
    ]);
    // Older record: no cache_write_input_tokens, no reasoning.
    const older = freshHome();
    oneRecordFile(older, { input_tokens: 700, cached_input_tokens: 200, output_tokens: 30 });
    const [d] = await collectAll(older);
    const f = d!.events[0]!;
    expect([f.input_tokens, f.cache_read_tokens, f.cache_write_tokens, f.output_tokens, f.reasoning_tokens]).toEqual([
      500, 200, 0, 30, 0,
    ]);
  });

  it('a field of the wrong type counts 0 with a warning naming file:line', async () => {
    const codexHome = freshHome();
    const path = oneRecordFile(codexHome, { input_tokens: 900, cached_input_tokens: 'lots', output_tokens: 10 });
    const [c] = await collectAll(codexHome);
    expect(c!.events[0]!.cache_read_tokens).toBe(0);
    expect(c!.events[0]!.input_tokens).toBe(900);
    expect(c!.warnings.some((w) => w.startsWith(`${path}:3: `) && w.includes('cached_input_tokens'))).toBe(true);
  });
});

describe('codex: bad input never stops the file', () => {
  function writeLines(codexHome: string, tid: string, lines: (object | string)[]): string {
    const path = sessionsPath(codexHome, T0, rolloutName(T0, tid));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l)) + '\n').join(''));
    return path;
  }
  const tc = (ts: string | undefined, input: number, cached: number, output: number) => ({
    ...(ts ? { timestamp: ts } : {}),
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: {
        total_token_usage: {
          input_tokens: input,
          cached_input_tokens: cached,
          output_tokens: output,
          reasoning_output_tokens: 0,
          total_tokens: input + output,
        },
        model_context_window: 272000,
      },
    },
  });

  it('a torn first line: thread id from the file name, a warning, and the usage still counted', async () => {
    const codexHome = freshHome();
    const tid = id(0x41);
    const path = writeLines(codexHome, tid, [
      '{"timestamp":"2026-01-10T09:00:00.000Z","type":"session_meta","payload":{"id":"',
      { timestamp: '2026-01-10T09:00:01.000Z', type: 'turn_context', payload: { cwd: '/q', model: 'gpt-5' } },
      tc('2026-01-10T09:00:02.000Z', 1000, 400, 50),
    ]);
    const [c] = await collectAll(codexHome);
    expect(
      c!.events.map((e) => [e.session_id, e.project, e.input_tokens, e.cache_read_tokens, e.output_tokens]),
    ).toEqual([[tid, '/q', 600, 400, 50]]);
    expect(c!.warnings).toContain(
      `${path}:1: first line is not a readable session_meta; thread id taken from the file name`,
    );
  });

  it('a usage line without a timestamp is dated by the previous line; a cumulative total with a bad field is ignored, not a baseline', async () => {
    const codexHome = freshHome();
    const tid = id(0x42);
    const meta = {
      timestamp: '2026-01-10T09:00:00.000Z',
      type: 'session_meta',
      payload: { id: tid, timestamp: '2026-01-10T09:00:00.000Z', cwd: '/q' },
    };
    const bad = tc('2026-01-10T09:00:03.000Z', 5000, 0, 10) as any;
    bad.payload.info.total_token_usage.output_tokens = '10';
    const path = writeLines(codexHome, tid, [
      meta,
      { timestamp: '2026-01-10T09:00:01.000Z', type: 'turn_context', payload: { cwd: '/q', model: 'gpt-5' } },
      tc(undefined, 1000, 400, 50),
      bad,
      tc('2026-01-10T09:00:04.000Z', 3000, 900, 80),
    ]);
    const [c] = await collectAll(codexHome);
    expect(c!.events.map((e) => [e.ts, e.input_tokens + e.cache_read_tokens, e.output_tokens])).toEqual([
      [Date.parse('2026-01-10T09:00:01.000Z'), 1000, 50],
      [Date.parse('2026-01-10T09:00:04.000Z'), 2000, 30],
    ]);
    expect(c!.warnings).toContain(`${path}:3: response without a usable timestamp dated by the previous line`);
    expect(c!.warnings.some((w) => w.startsWith(`${path}:4: cumulative total with invalid field(s) ignored`))).toBe(
      true,
    );
  });

  it('input below cached + cache-write: uncached input 0, with a warning', async () => {
    const codexHome = freshHome();
    const tid = id(0x43);
    const path = writeLines(codexHome, tid, [
      { timestamp: '2026-01-10T09:00:00.000Z', type: 'session_meta', payload: { id: tid, cwd: '/q' } },
      tc('2026-01-10T09:00:02.000Z', 100, 400, 50),
    ]);
    const [c] = await collectAll(codexHome);
    expect(c!.events.map((e) => [e.input_tokens, e.cache_read_tokens])).toEqual([[0, 400]]);
    expect(c!.warnings).toContain(
      `${path}:2: input_tokens smaller than cached + cache-write tokens; uncached input counted as 0`,
    );
  });

  it('a truncated and a garbage .jsonl.zst: one warning naming each file, nothing counted, the source not failed', async () => {
    const codexHome = freshHome();
    const files = writeCorruptRollouts(codexHome);
    const collected = await collectAll(codexHome);
    expect(collected.map((c) => c.source.path).sort()).toEqual([...files].sort());
    for (const c of collected) {
      expect(c.failed).toBe(false);
      expect(c.events).toEqual([]);
      expect(c.warnings.filter((w) => w.startsWith(`${c.source.path}: corrupt zstd data`))).toHaveLength(1);
    }
  });
});

describe('codex: auto-compaction request, model and service tier without turn_context', () => {
  /** Writes `w` as a rollout of a fresh home and collects it. */
  async function one(w: RolloutWriter) {
    const codexHome = freshHome();
    const path = sessionsPath(codexHome, w.o.start, rolloutName(w.o.start, w.o.threadId));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, w.text());
    return collect(await refFor(codexHome, path));
  }
  const fixed = (input: number, cached: number, output: number) => ({
    input,
    cached,
    cacheWrite: 0,
    output,
    reasoning: 0,
  });

  it('the compaction request (its own token_usage_record, the thread total unmoved: openai/codex#47003) keeps its own key', async () => {
    const w = new RolloutWriter({
      threadId: id(0x61),
      start: T0,
      paginated: true,
      label: 'compact',
      project: '/proj/c',
      ledger: new Ledger(),
    });
    w.sessionMeta().turn('gpt-5', '/proj/c');
    w.response(fixed(1000, 200, 100), { record: 'after' });
    // The compaction request: usage of its own, thread_token_usage = the total before it; the next token_count repeats that total.
    w.line('token_usage_record', {
      thread_id: id(0x61),
      turn_id: w.turnId,
      session_id: id(0x61),
      root_turn_id: w.turnId,
      response_id: 'resp_compaction',
      usage: usageJson(fixed(5000, 0, 300)),
      turn_token_usage: usageJson(w.turnTotal),
      thread_token_usage: usageJson(w.total),
    });
    w.repeatTokenCount();
    w.response(fixed(700, 600, 60), { record: 'before' });
    const c = await one(w);
    const kept = storeLike(c.events);
    // By hand: uncached input 800 + 5000 + 100, cached 200 + 0 + 600, output 100 + 300 + 60.
    expect(totalsBy(kept, () => 'all').get('all')).toMatchObject({
      requests: 3,
      input_tokens: 5900,
      cache_read_tokens: 800,
      output_tokens: 460,
    });
    expect(c.counts['requests outside the thread total (auto-compaction)']).toBe(1);
    expect(kept.find((e) => e.dedupe_key.endsWith(':resp:resp_compaction'))).toBeDefined();
  });

  it('model from thread_settings_applied or token_count.info.model; service_tier priority (legacy "fast") marks the responses after it', async () => {
    const w = new RolloutWriter({
      threadId: id(0x62),
      start: T0,
      paginated: false,
      label: 'tier',
      project: '/proj/t',
      ledger: new Ledger(),
    });
    const settings = (model: string, tier?: string) =>
      w.line('event_msg', {
        type: 'thread_settings_applied',
        thread_settings: {
          model,
          model_provider_id: 'openai',
          ...(tier ? { service_tier: tier } : {}),
          approval_policy: 'never',
          cwd: '/proj/t',
        },
      });
    w.sessionMeta();
    settings('gpt-5.5', 'priority');
    w.response(fixed(1000, 0, 10));
    // A token_count naming its model (newer builds).
    const total = { ...w.total, input: w.total.input + 2000, output: w.total.output + 20 };
    w.line('event_msg', {
      type: 'token_count',
      info: {
        model: 'gpt-5.4',
        total_token_usage: usageJson(total, false),
        last_token_usage: usageJson(fixed(2000, 0, 20), false),
        model_context_window: 272000,
      },
      rate_limits: null,
    });
    w.total = total;
    settings('gpt-5.5', 'default');
    w.response(fixed(3000, 0, 30));
    settings('gpt-5.5', 'fast');
    w.response(fixed(4000, 0, 40));
    const c = await one(w);
    expect(c.events.map((e) => [e.model, e.billing_kind ?? null, e.input_tokens])).toEqual([
      ['gpt-5.5', 'priority', 1000],
      ['gpt-5.4', 'priority', 2000],
      ['gpt-5.5', null, 3000],
      ['gpt-5.5', 'priority', 4000],
    ]);
  });
});
