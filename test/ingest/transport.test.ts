// Job results must arrive on the main thread exactly as the worker made
// them, many sources to a pack (src/ingest/transport.ts), and the writer's
// cursor must read each response as the object it was.
import { describe, expect, it } from 'vitest';
import type { UsageEvent } from '../../src/core/types.js';
import type { JobResult } from '../../src/ingest/job.js';
import {
  EventCursor,
  eventRows,
  PackBuilder,
  PackedCollected,
  received,
  resultsOf,
  sendable,
  transferList,
} from '../../src/ingest/transport.js';
import { UnitColumns } from '../../src/core/unit-columns.js';

function event(i: number): UsageEvent {
  return {
    harness: i % 2 ? 'codex' : 'claude-code',
    session_id: `s-${i % 3}`,
    project: i % 4 === 0 ? null : `/home/dev/projekt-ü-${i % 2}`,
    model: i % 5 === 0 ? null : 'gpt-5.1-codex',
    provider: i % 3 === 0 ? 'openai' : null,
    ts: 1764000000000 + i,
    dedupe_key: i % 10 === 3 ? 'repeated' : `resp-${i}-"quoted"\n`, // repeats too: the table is not asked for it
    dedupe_rank: i % 2,
    requests: 1,
    input_tokens: i * 11,
    cache_read_tokens: 0,
    cache_write_tokens: 7,
    cache_write_5m_tokens: i % 2 ? null : 3,
    cache_write_1h_tokens: i % 2 ? 4 : null,
    output_tokens: 999_999_999_999,
    reasoning_tokens: 5,
    recorded_cost_usd: i % 2 ? null : 0.0123 * i,
    source_file: '/home/dev/.codex/sessions/2026/12/02/rollout.jsonl',
    source_line: i % 7 === 0 ? null : i,
    // Billing details only imported usage CSVs state (null elsewhere, as a worker's events carry them).
    billing_kind: i % 3 === 1 ? 'Errored, No Charge' : i % 3 === 2 ? 'Included' : null,
    request_units: i % 4 === 1 ? 17.3 : null,
    // Claude Code's billing details: fast mode, web searches, a response's sampling iteration.
    speed: i % 5 === 2 ? 'fast' : null,
    web_search_requests: i % 6 === 1 ? 3 : null,
    iteration: i % 4 === 3 ? 2 : null,
    // What the row was made from: a session total now and then (null: a response, as most extractors leave it).
    grain: i % 7 === 4 ? 'session' : null,
  };
}

function result(
  id: number,
  events: UsageEvent[],
  units: UnitColumns,
  extra: Partial<JobResult['collected']> = {},
): JobResult {
  const facts = [
    { harness: 'pi', session_id: `s-${id}`, title: 'Tïtle "q"', title_rank: 0, parent_session_id: null, seq: 4 },
  ];
  return {
    id,
    collected: {
      source: { harness: 'codex', key: `k${id}`, path: `p${id}`, kind: 'jsonl' },
      events,
      estimates: [],
      contexts: [],
      units,
      facts,
      warnings: [`w${id}`],
      tailWarnings: [],
      skips: [{ reason: 'x', count: 2, first: 'f:1' }],
      counts: { a: id },
      resume: { offset: 10 * id, lines: 2, state: { v: 1 } },
      failed: false,
      ...extra,
    },
    tailHash: `h${id}`,
    bytesRead: 123 * id,
    peakHeldBytes: id,
  } as unknown as JobResult;
}

function unitsOf(n: number, seed: number): UnitColumns {
  const units = new UnitColumns();
  for (let i = 0; i < n; i++) {
    units.push({
      harness: i % 2 ? 'codex' : 'pi',
      session_id: `s-${(i + seed) % 4}`,
      kind: (['prompt', 'turn', 'tool_call', 'subagent_task'] as const)[i % 4]!,
      dedupe_key: `k-${seed}-${i}-ü`,
      dedupe_rank: i % 2,
      ts: 1764000000000 + i * 1000,
      count: 1 + (i % 3),
    });
  }
  return units;
}

describe('worker → main transport', () => {
  it('round-trips every source of a pack (responses with nulls, unicode, quotes; units; the rest) unchanged, arrays moved', () => {
    const all = Array.from({ length: 50 }, (_, i) => event(i));
    // Three sources: 30 responses, none (a failed read), 20; units likewise.
    const results = [
      result(1, all.slice(0, 30), unitsOf(12, 1)),
      result(2, [], new UnitColumns(), { failed: true }),
      result(3, all.slice(30), unitsOf(18, 3)),
    ];
    const rest = (r: JobResult) => {
      const { source, estimates, contexts, rateLimits, facts, warnings, tailWarnings, skips, counts, resume, failed } =
        r.collected;
      return structuredClone({
        id: r.id,
        tailHash: r.tailHash,
        bytesRead: r.bytesRead,
        peakHeldBytes: r.peakHeldBytes,
        collected: {
          source,
          estimates,
          contexts,
          rateLimits,
          facts,
          warnings,
          tailWarnings,
          skips,
          counts,
          resume,
          failed,
        },
      });
    };
    const want = results.map((r) => ({
      events: structuredClone(r.collected.events),
      units: r.collected.units.toJSON(),
      rest: rest(r),
    }));
    const b = new PackBuilder();
    results.forEach((r, i) => b.add(r, 10 + i));
    expect(b.sources).toBe(3);
    expect(b.events).toBe(50);
    const sent = sendable(b.take()!);
    expect(b.sources).toBe(0); // the builder starts again
    // As postMessage hands it over: cloned, with the arrays' buffers moved.
    const moved = structuredClone(sent, { transfer: transferList(sent) });
    expect(sent.erefs.byteLength).toBe(0);
    const sources = new Map(results.map((r, i) => [10 + i, r.collected.source]));
    const got = resultsOf(received(moved), (index) => ({ id: index - 9, source: sources.get(index)! }));
    expect(got.map((g) => g.index)).toEqual([10, 11, 12]);
    got.forEach(({ result: r }, i) => {
      expect(r.collected).toBeInstanceOf(PackedCollected);
      expect(r.collected.events).toEqual(want[i]!.events);
      expect(r.collected.units.toJSON()).toEqual(want[i]!.units);
      expect(rest(r)).toEqual(want[i]!.rest);
    });
    expect(moved.json.length + moved.erefs.byteLength + moved.enums.byteLength).toBeLessThan(
      JSON.stringify(results).length * 0.7,
    );
  });

  it("the writer's cursor reads each response as the object it was, and tells repeated string combinations apart", () => {
    const events = Array.from({ length: 40 }, (_, i) => event(i));
    const b = new PackBuilder();
    b.add(result(1, events, new UnitColumns()), 0);
    const pack = b.take()!;
    const c = new EventCursor();
    c.over(pack);
    const combo = (e: UsageEvent) =>
      [
        e.harness,
        e.session_id,
        e.project,
        e.model,
        e.provider,
        e.source_file,
        e.billing_kind ?? null,
        e.speed ?? null,
        e.grain ?? null,
      ].join('|');
    const keys = new Map<string, string>();
    for (let i = 0; i < events.length; i++) {
      c.at(i);
      const e = events[i]!;
      for (const [k, v] of Object.entries(e))
        expect((c as unknown as Record<string, unknown>)[k], `${k} of response ${i}`).toBe(v ?? null);
      if (i > 0) expect(c.sameRows(i, i - 1)).toBe(combo(e) === combo(events[i - 1]!));
      // One key per combination, and one combination per key.
      const k = c.keyOf(i);
      if (keys.has(k)) expect(keys.get(k)).toBe(combo(e));
      else keys.set(k, combo(e));
    }
    expect(new Set(keys.values()).size).toBe(keys.size);
  });

  it('the writer reads the same rows from a packed result as from the objects it was made of', () => {
    const events = Array.from({ length: 40 }, (_, i) => event(i));
    const plain = result(1, events, new UnitColumns());
    const b = new PackBuilder();
    b.add(plain, 0);
    const pack = b.take()!;
    const a = eventRows(plain.collected);
    const p = eventRows(new PackedCollected(pack, pack.entries[0]!, plain.collected.source));
    expect(p.length).toBe(a.length);
    const keys = new Map<string, string>();
    for (let i = 0; i < a.length; i++) {
      expect({ ...p.at(i) }).toMatchObject(Object.fromEntries(Object.entries(a.at(i)).map(([k, v]) => [k, v ?? null])));
      for (let j = 0; j < i; j++) expect(p.same(i, j), `${i} ${j}`).toBe(a.same(i, j));
      // Equal keys exactly when equal combinations, in both.
      const [kp, ka] = [p.key(i), a.key(i)];
      if (keys.has(kp)) expect(keys.get(kp)).toBe(ka);
      else keys.set(kp, ka);
    }
    expect(new Set(keys.values()).size).toBe(keys.size);
  });
});
