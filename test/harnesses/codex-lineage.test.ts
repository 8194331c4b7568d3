// Codex lineages (README "Lineage: copied history"): a child rollout that
// opens with a copy of its parent's records, in every variant the field
// reports show. Expected totals are worked out by hand from the fixed usages
// in fixtures/codex/lineage.ts:
//   parent: uncached input 800 + 500 + 500 = 1800, cached 200 + 1500 + 2500 = 4200, output 100 + 50 + 30 = 180
//   child:  uncached input 400 + 100 = 500,         cached 100 + 600 = 700,            output 40 + 60 = 100
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { cleanEnv, reportJson, runCli } from '../helpers/cli.js';
import { newContext } from '../../fixtures/codex/home.js';
import {
  BARE,
  bareHeaderScenario,
  C_START,
  CHILD,
  GRANDCHILD,
  lineageScenario,
  nestedScenario,
  P_START,
  PARENT,
  type Variant,
} from '../../fixtures/codex/lineage.js';
import { utcDay } from '../../fixtures/codex/ledger.js';
import { collect, copies, discover, own, storeLike, totalsBy } from '../helpers/codex-helpers.js';
import type { UsageEvent } from '../../src/core/types.js';
import { tempDir } from '../helpers/temp.js';

const dirs: string[] = [];
function freshHome(): string {
  const d = tempDir('txu-codex-lineage-');
  dirs.push(d);
  return join(d, '.codex');
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const PARENT_TOTALS = {
  requests: 3,
  input_tokens: 1800,
  cache_read_tokens: 4200,
  cache_write_tokens: 0,
  output_tokens: 180,
  reasoning_tokens: 0,
  total_tokens: 6180,
};
const LINEAGE_TOTALS = {
  requests: 5,
  input_tokens: 2300,
  cache_read_tokens: 4900,
  cache_write_tokens: 0,
  output_tokens: 280,
  reasoning_tokens: 0,
  total_tokens: 7480,
};

const totalOf = (events: UsageEvent[]) => totalsBy(events, () => 'all').get('all') ?? { requests: 0 };

async function build(b: (ctx: ReturnType<typeof newContext>) => unknown) {
  const codexHome = freshHome();
  const ctx = newContext(codexHome);
  b(ctx);
  const refs = (await discover(codexHome)).filter((r) => r.meta?.role !== 'thread-names');
  const collected = await Promise.all(refs.map((r) => collect(r)));
  const byThread = (t: string) => collected.find((c) => c.source.path.includes(t))!;
  return { ctx, collected, byThread, all: collected.flatMap((c) => c.events) };
}

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((r) => [x, ...r]));
}

const BOUNDARY: Record<Variant, string | null> = {
  original: 'copy ended by the first record dated at or after the fork was created (original timestamps)',
  restamped: "copy ended by the fork's own first turn (turn_id time)",
  'restamped-restart': "copy ended by the fork's own first turn (turn_id time)",
  ordinals: 'copy ended by the ordinal reaching subagent_history_start_ordinal',
  'second-meta': "copy ended by the fork's own session_meta written again after the copy",
  empty: null,
  'no-copy': "copy ended by the fork's own first turn (turn_id time)",
};

describe('codex lineage: each variant counts every billed response once', () => {
  for (const variant of Object.keys(BOUNDARY) as Variant[]) {
    it(`${variant}: the lineage's totals, the child's own and copied responses named, in any file order`, async () => {
      const { all, byThread } = await build((ctx) => lineageScenario(ctx, { variant }));
      const expected = variant === 'empty' ? PARENT_TOTALS : LINEAGE_TOTALS;
      for (const order of permutations(all.length ? [0, 1] : [])) {
        const files = order.map((i) => [byThread(PARENT), byThread(CHILD)][i]!);
        expect(totalOf(storeLike(files.flatMap((c) => c.events))), `${variant} order ${order}`).toEqual(expected);
      }
      const child = byThread(CHILD);
      expect(child.counts['own responses'] ?? 0).toBe(variant === 'empty' ? 0 : 2);
      expect(child.counts[`responses copied from thread ${PARENT}`] ?? 0).toBe(variant === 'no-copy' ? 0 : 3);
      const boundary = BOUNDARY[variant];
      if (boundary) expect(child.counts[boundary], JSON.stringify(child.counts)).toBe(1);
      // Copies carry the keys the parent's own file gives those responses.
      const parentKeys = byThread(PARENT)
        .events.map((e) => e.dedupe_key)
        .sort();
      expect(
        copies(child.events)
          .map((e) => e.dedupe_key)
          .sort(),
      ).toEqual(variant === 'no-copy' ? [] : parentKeys);
      // The parent's originals win: each response on its own day; the child's on its creation day.
      const kept = storeLike(all);
      expect(kept.filter((e) => utcDay(e.ts) === utcDay(P_START)).length).toBe(3);
      expect(kept.filter((e) => utcDay(e.ts) === utcDay(C_START)).length).toBe(variant === 'empty' ? 0 : 2);
      expect(own(child.events).every((e) => e.model === 'o4-mini')).toBe(true);
    });
  }

  it('a sub-agent (restarting its own counter) belongs to the root session; a plain fork to its own thread', async () => {
    const sub = await build((ctx) => lineageScenario(ctx, { variant: 'restamped-restart' }));
    expect(new Set(own(sub.byThread(CHILD).events).map((e) => e.session_id))).toEqual(new Set([PARENT]));
    const fork = await build((ctx) => lineageScenario(ctx, { variant: 'restamped' }));
    expect(new Set(own(fork.byThread(CHILD).events).map((e) => e.session_id))).toEqual(new Set([CHILD]));
  });

  it('parent archived and compressed: the same totals from the .jsonl.zst', async () => {
    const { all, byThread, collected } = await build((ctx) =>
      lineageScenario(ctx, { variant: 'restamped', parent: 'archived-zst' }),
    );
    expect(
      collected.some((c) => c.source.path.endsWith('.jsonl.zst') && c.source.path.includes('archived_sessions')),
    ).toBe(true);
    expect(totalOf(storeLike(all))).toEqual(LINEAGE_TOTALS);
    expect(byThread(CHILD).counts[`responses copied from thread ${PARENT}`]).toBe(3);
  });

  it('parent missing: the copies stand in for its responses, once, dated where the copy dates them', async () => {
    for (const variant of ['original', 'restamped', 'ordinals', 'second-meta'] as Variant[]) {
      const { all, collected } = await build((ctx) => lineageScenario(ctx, { variant, parent: 'missing' }));
      expect(collected).toHaveLength(1);
      const kept = storeLike(all);
      expect(totalOf(kept), variant).toEqual(LINEAGE_TOTALS);
      // Re-stamped copies are dated at the child's creation; original ones keep the parent's day.
      expect(kept.filter((e) => utcDay(e.ts) === utcDay(P_START)).length, variant).toBe(variant === 'original' ? 3 : 0);
    }
  });

  it('nested: a fork of a sub-agent copies both ancestors; each response is keyed by the thread that made it', async () => {
    const { all, byThread } = await build((ctx) => nestedScenario(ctx));
    for (const order of permutations([PARENT, CHILD, GRANDCHILD])) {
      expect(totalOf(storeLike(order.flatMap((t) => byThread(t).events))), order.join()).toEqual(LINEAGE_TOTALS);
    }
    const f = byThread(GRANDCHILD);
    expect(f.counts[`responses copied from thread ${PARENT}`]).toBe(3);
    expect(f.counts[`responses copied from thread ${CHILD}`]).toBe(1);
    expect(f.counts['own responses']).toBe(1);
    const s = byThread(CHILD);
    expect(s.counts[`responses copied from thread ${PARENT}`]).toBe(3);
    expect(s.counts['own responses']).toBe(1);
    // The fork's copy of the sub-agent's own response has the sub-agent file's key.
    expect(
      copies(f.events)
        .map((e) => e.dedupe_key)
        .sort(),
    ).toEqual([...byThread(PARENT).events, ...own(s.events)].map((e) => e.dedupe_key).sort());
    // Only the grandchild and the sub-agent missing: the copies stand in, once each.
    expect(totalOf(storeLike(f.events))).toEqual(LINEAGE_TOTALS);
    expect(totalOf(storeLike(all))).toEqual(LINEAGE_TOTALS);
  });
});

describe('codex lineage: copied headers that carry only the thread id (ccusage thread_spawn tests)', () => {
  // A copied session_meta written as {"id": …} alone still names whose records follow; the
  // thread's creation time, which decides whose turn a copied turn is, comes from its UUIDv7 id.
  for (const turnSignals of [true, false]) {
    it(`a sub-agent named only in thread_spawn, its copy re-stamped${turnSignals ? '' : ', no turn times'}: each response once, copies keyed as the root keys them`, async () => {
      const { all, collected } = await build((ctx) => bareHeaderScenario(ctx, { nested: false, turnSignals }));
      const byThread = (t: string) => collected.find((c) => c.source.path.includes(t))!;
      for (const order of permutations([BARE.root, BARE.subagent])) {
        expect(totalOf(storeLike(order.flatMap((t) => byThread(t).events))), order.join()).toEqual(LINEAGE_TOTALS);
      }
      const root = byThread(BARE.root)
        .events.map((e) => e.dedupe_key)
        .sort();
      const child = byThread(BARE.subagent);
      // The root's three responses are met by key; with no boundary in the file (no turn times) the
      // sub-agent's own two are taken as the root's too (README "Lineage", 7), still each once.
      expect(
        copies(child.events)
          .map((e) => e.dedupe_key)
          .filter((k) => root.includes(k))
          .sort(),
      ).toEqual(root);
      expect(child.counts['own responses'] ?? 0).toBe(turnSignals ? 2 : 0);
      expect(new Set(storeLike(all).map((e) => e.session_id))).toEqual(new Set([BARE.root]));
    });
  }

  it('nested: a fork of that sub-agent, whose copy holds both bare headers, meets each original in its own thread', async () => {
    const { collected } = await build((ctx) => bareHeaderScenario(ctx, { nested: true, turnSignals: true }));
    const [root, sub, fork] = [BARE.root, BARE.subagent, null].map((t) =>
      collected.find((c) =>
        t === null
          ? !c.source.path.includes(BARE.root) && !c.source.path.includes(BARE.subagent)
          : c.source.path.includes(t),
      )!,
    );
    for (const order of permutations([root!, sub!, fork!])) {
      expect(
        totalOf(storeLike(order.flatMap((c) => c.events))),
        order.map((c) => basename(c.source.path)).join(),
      ).toEqual(LINEAGE_TOTALS);
    }
    expect(fork!.counts[`responses copied from thread ${BARE.root}`]).toBe(3);
    expect(fork!.counts[`responses copied from thread ${BARE.subagent}`]).toBe(1);
    // The fork's copy of the sub-agent's own response has the key the sub-agent's file gives it.
    expect(
      copies(fork!.events)
        .map((e) => e.dedupe_key)
        .sort(),
    ).toEqual([...root!.events, ...own(sub!.events)].map((e) => e.dedupe_key).sort());
  });
});

describe('codex lineage through the store: files arriving in any order over incremental runs', () => {
  const metrics = (t: any) => ({
    requests: t.requests,
    input_tokens: t.input_tokens,
    cache_read_tokens: t.cache_read_tokens,
    output_tokens: t.output_tokens,
    total_tokens: t.total_tokens,
  });
  const LINEAGE = { requests: 5, input_tokens: 2300, cache_read_tokens: 4900, output_tokens: 280, total_tokens: 7480 };
  const RANGE = ['--since', '2026-01-01', '--until', '2026-02-28', '--tz', 'UTC'];
  const byDay = (j: any) => Object.fromEntries(j.rows.map((r: any) => [r.day, r.requests]));

  for (const first of ['child', 'parent'] as const) {
    it(`the ${first} ingested first, the other in a later run: the same totals, each response once on its own day`, () => {
      const home = dirname(freshHome());
      const ctx = newContext(join(home, '.codex'));
      const { parent, child } = lineageScenario(ctx, { variant: 'restamped' });
      const held = first === 'child' ? parent! : child;
      const aside = `${held.path}.aside`;
      renameSync(held.path, aside);
      const env = cleanEnv(home);
      expect(runCli(['ingest'], env).status).toBe(0);
      const one = reportJson(['--harness', 'codex', '--by', 'day', ...RANGE], env);
      // Alone, the child's copies stand in for the parent's responses (dated at the child's creation);
      // alone, the parent is its three responses.
      expect(metrics(one.totals)).toEqual(
        first === 'child'
          ? LINEAGE
          : { requests: 3, input_tokens: 1800, cache_read_tokens: 4200, output_tokens: 180, total_tokens: 6180 },
      );
      renameSync(aside, held.path);
      expect(runCli(['ingest'], env).status).toBe(0);
      const both = reportJson(['--harness', 'codex', '--by', 'day', ...RANGE], env);
      expect(metrics(both.totals)).toEqual(LINEAGE);
      expect(byDay(both)).toEqual({ [utcDay(P_START)]: 3, [utcDay(C_START)]: 2 });
      // `sources` names, per file, its own responses and its copies of which thread, and where the copy ended.
      const src = runCli(['sources'], env).stdout.split('\n');
      const at = src.findIndex((l) => l.startsWith(`  ${child.path}:`));
      const block = src.slice(
        at + 1,
        src.findIndex((l, i) => i > at && !l.startsWith('    ')),
      );
      expect(block).toEqual(
        expect.arrayContaining([
          `    responses copied from thread ${PARENT}: 3`,
          '    own responses: 2',
          "    copy ended by the fork's own first turn (turn_id time): 1",
        ]),
      );
    });
  }

  it("a report over the child's day alone reads the parent it would have left unread (a copy was met): the child's own two", () => {
    const home = dirname(freshHome());
    const ctx = newContext(join(home, '.codex'));
    const later = C_START + 9 * 86_400_000;
    const { parent } = lineageScenario(ctx, { variant: 'restamped', childStart: later });
    const old = new Date(P_START);
    utimesSync(parent!.path, old, old);
    const env = cleanEnv(home);
    const day = utcDay(later);
    // Far from the parent's last line and modification time: left unread, were it not for the copies.
    const j = reportJson(['--harness', 'codex', '--by', 'day', '--since', day, '--until', day, '--tz', 'UTC'], env);
    expect(metrics(j.totals)).toEqual({
      requests: 2,
      input_tokens: 500,
      cache_read_tokens: 700,
      output_tokens: 100,
      total_tokens: 1300,
    });
  });
});

describe('codex lineage: a store written by an earlier build', () => {
  it('is read again (the lineage migration): copies an older build counted under the child are replaced by the parent-keyed ones', async () => {
    const home = dirname(freshHome());
    const ctx = newContext(join(home, '.codex'));
    lineageScenario(ctx, { variant: 'restamped' });
    const env = cleanEnv(home);
    const db = join(home, 'store.duckdb');
    const RANGE = ['--since', '2026-01-01', '--until', '2026-02-28', '--tz', 'UTC', '--db', db];
    expect(runCli(['ingest', '--db', db], env).status).toBe(0);
    // What an earlier build stored: the child's re-stamped copies keyed by the child (each billed again), at the schema before.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const { MIGRATIONS } = await import('../../src/store/schema.js');
    // The store as it was before the lineage migration (later migrations run after it too).
    const lineage = MIGRATIONS.findIndex((m) => m.includes('codex lineage'));
    expect(lineage).toBeGreaterThan(0);
    const inst = await DuckDBInstance.create(db);
    const conn = await inst.connect();
    await conn.run(
      `UPDATE usage_rows SET dedupe_key = replace(dedupe_key, '${PARENT}', '${CHILD}'), billed = true WHERE dedupe_rank >= 2`,
    );
    await conn.run(`UPDATE meta SET value = '${lineage}' WHERE key = 'schema_version'`);
    const before = await conn.runAndReadAll('SELECT count(*)::INTEGER AS n FROM billed_events');
    expect(before.getRowObjectsJson()[0]).toEqual({ n: 8 });
    conn.closeSync();
    inst.closeSync();
    const j = reportJson(['--harness', 'codex', ...RANGE], env);
    expect({ requests: j.totals.requests, total_tokens: j.totals.total_tokens }).toEqual({
      requests: 5,
      total_tokens: 7480,
    });
  });
});

describe('codex lineage: a child read in two runs, cut at every line', () => {
  it('the copy boundary and the copied keys are the same as one whole read, wherever the first run stopped', async () => {
    const layouts: [string, (ctx: ReturnType<typeof newContext>) => unknown, string][] = [
      ['restamped', (ctx) => lineageScenario(ctx, { variant: 'restamped' }), CHILD],
      ['second-meta', (ctx) => lineageScenario(ctx, { variant: 'second-meta' }), CHILD],
      ['original', (ctx) => lineageScenario(ctx, { variant: 'original' }), CHILD],
      ['ordinals', (ctx) => lineageScenario(ctx, { variant: 'ordinals' }), CHILD],
      ['nested', (ctx) => nestedScenario(ctx), GRANDCHILD],
    ];
    let cuts = 0;
    for (const [name, b, thread] of layouts) {
      const { byThread } = await build(b);
      const whole = byThread(thread);
      const full = readFileSync(whole.source.path);
      const scratchDir = dirname(freshHome());
      const scratch = join(scratchDir, basename(whole.source.path));
      const sref = { ...whole.source, path: scratch, key: scratch };
      const wanted = storeLike(whole.events)
        .map((e) => `${e.dedupe_key} ${e.dedupe_rank} ${e.session_id} ${e.input_tokens}`)
        .sort();
      for (let i = 0; i < full.length; i++) {
        if (full[i] !== 10) continue;
        writeFileSync(scratch, full.subarray(0, i + 1));
        const first = await collect(sref);
        writeFileSync(scratch, full);
        const second = await collect(sref, first.resume);
        const union = storeLike([...first.events, ...second.events])
          .map((e) => `${e.dedupe_key} ${e.dedupe_rank} ${e.session_id} ${e.input_tokens}`)
          .sort();
        expect(union, `${name} cut after byte ${i}`).toEqual(wanted);
        cuts++;
      }
    }
    expect(cuts).toBeGreaterThan(100);
  });
});
