// A job result must arrive on the main thread exactly as the worker made it.
import { describe, expect, it } from 'vitest';
import type { UsageEvent } from '../src/core/types.js';
import type { JobResult } from '../src/ingest/job.js';
import { decodeResult, encodeResult, transferList } from '../src/ingest/transport.js';
import { UnitColumns } from '../src/core/unit-columns.js';

function event(i: number): UsageEvent {
  return {
    harness: i % 2 ? 'codex' : 'claude-code',
    session_id: `s-${i % 3}`,
    project: i % 4 === 0 ? null : `/home/dev/projekt-ü-${i % 2}`,
    model: i % 5 === 0 ? null : 'gpt-5.1-codex',
    provider: i % 3 === 0 ? 'openai' : null,
    ts: 1764000000000 + i,
    dedupe_key: i % 10 === 3 ? "repeated" : `resp-${i}-"quoted"\n`, // repeats too: the table is not asked for it
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
  };
}

describe('worker → main transport', () => {
  it('round-trips events (nulls, unicode, quotes) and the rest of the result unchanged', () => {
    const events = Array.from({ length: 50 }, (_, i) => event(i));
    const units = new UnitColumns();
    for (let i = 0; i < 30; i++) {
      units.push({ harness: i % 2 ? 'codex' : 'pi', session_id: `s-${i % 4}`, kind: (['prompt', 'turn', 'tool_call', 'subagent_task'] as const)[i % 4]!, dedupe_key: `k-${i}-ü`, dedupe_rank: i % 2, ts: 1764000000000 + i * 1000, count: 1 + (i % 3) });
    }
    const facts = [{ harness: 'pi', session_id: 's-1', title: 'Tïtle "q"', title_rank: 0, parent_session_id: null, seq: 4 }];
    const r = {
      id: 7,
      collected: { source: { harness: 'codex', key: 'k', path: 'p', kind: 'jsonl' }, events, estimates: [], contexts: [], units, facts, warnings: ['w'], tailWarnings: [], skips: [{ reason: 'x', count: 2, first: 'f:1' }], counts: { a: 1 }, resume: { offset: 10, lines: 2, state: { v: 1 } }, failed: false },
      tailHash: 'abc',
      bytesRead: 123,
      peakHeldBytes: 0,
    } as unknown as JobResult;
    const wantUnits = units.toJSON();
    const copy = structuredClone({ ...r, collected: { ...r.collected, units: null } });
    const enc = encodeResult(r);
    // As postMessage hands it over: cloned, with the arrays' buffers moved.
    const sent = structuredClone(enc, { transfer: transferList(enc) });
    expect(enc.refs.byteLength).toBe(0); // moved, not copied
    const got = decodeResult(sent);
    expect(got.collected.units.toJSON()).toEqual(wantUnits);
    expect(wantUnits.map((u) => u.dedupe_key)).toHaveLength(new Set(wantUnits.map((u) => u.dedupe_key)).size); // distinct keys, distinct hashes
    expect({ ...got, collected: { ...got.collected, units: null } }).toEqual(copy);
    expect(sent.json.length + sent.refs.byteLength + sent.nums.byteLength).toBeLessThan(JSON.stringify(r).length * 0.7);
  });
});
