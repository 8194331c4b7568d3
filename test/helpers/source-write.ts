// A source's write as the ingest hands it to the store (src/store/write.ts),
// for tests of the store's writing and of what is kept beside it.
import type { UsageEvent } from '../../src/core/types.js';
import type { SourceWrite } from '../../src/store/write.js';
import { UnitColumns } from '../../src/core/unit-columns.js';

/** One source with `n` events of `tokens` input tokens each. */
export function sourceWrite(name: string, n: number, tokens = 10, session: string | null = 's1'): SourceWrite {
  const path = `/h/${name}.jsonl`;
  const events: UsageEvent[] = Array.from({ length: n }, (_, i) => ({
    harness: 'claude-code',
    session_id: session as string,
    project: '/p',
    model: 'claude-sonnet-4-5',
    provider: null,
    ts: Date.UTC(2026, 10, 1) + i * 1000,
    dedupe_key: `${name}:${i}`,
    dedupe_rank: 0,
    requests: 1,
    input_tokens: tokens,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cache_write_5m_tokens: null,
    cache_write_1h_tokens: null,
    output_tokens: 1,
    reasoning_tokens: 0,
    recorded_cost_usd: null,
    source_file: path,
    source_line: i + 1,
  }));
  return {
    collected: {
      source: { harness: 'claude-code', key: path, path, kind: 'jsonl' },
      events,
      estimates: [],
      contexts: [],
      units: new UnitColumns(),
      facts: [],
      warnings: [],
      tailWarnings: [],
      skips: [],
      counts: {},
      resume: { offset: 100, lines: n },
      failed: false,
    },
    book: {
      source_key: path,
      harness: 'claude-code',
      path,
      kind: 'jsonl',
      fingerprint: `fp-${name}`,
      size: 100,
      ino: '1',
      resume_offset: 100,
      resume_lines: n,
      resume_state: null,
      tail_hash: 'h',
    },
    mode: 'full',
    fresh: true,
  };
}
