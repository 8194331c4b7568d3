// Token fields read from a usage record (src/core/numbers.ts): the reader
// made for a field table must give what the rule says for every shape a
// record can have — counts, missing or null fields (0, no warning), wrong
// types, negatives, fractions, non-finite and implausible values (0, named),
// and nested paths through values that are not objects.
import { describe, expect, it } from 'vitest';
import { MAX_TOKENS_PER_FIELD, readTokenFields } from '../../src/core/numbers.js';

const FIELDS = {
  input: 'input_tokens',
  cacheRead: 'cache_read_input_tokens',
  cache5m: 'cache_creation.ephemeral_5m_input_tokens',
  cache1h: 'cache_creation.ephemeral_1h_input_tokens',
  thinking: 'output_tokens_details.thinking_tokens',
  deep: 'a.b.c',
} as const;

/** The rule, written out here on its own: missing is 0; anything but a plain count (null included, issue 35) is 0 and named with its reason. */
function expected(rec: Record<string, unknown>) {
  const values: Record<string, number> = {};
  const invalid: string[] = [];
  for (const [k, path] of Object.entries(FIELDS)) {
    let cur: unknown = rec;
    for (const part of path.split('.'))
      cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
    let reason: string | null = null;
    if (cur === undefined) reason = null;
    else if (cur === null) reason = 'null';
    else if (typeof cur !== 'number') reason = `not a number (${typeof cur})`;
    else if (!Number.isFinite(cur)) reason = 'not finite';
    else if (cur < 0) reason = 'negative';
    else if (!Number.isInteger(cur)) reason = 'not an integer';
    else if (cur > MAX_TOKENS_PER_FIELD) reason = 'implausibly large';
    values[k] = reason === null && typeof cur === 'number' ? cur : 0;
    if (reason) invalid.push(`${path} ${reason}`);
  }
  return { values, invalid };
}

describe('readTokenFields', () => {
  it('follows the rule for every kind of value, at every depth', () => {
    const kinds: unknown[] = [
      undefined,
      null,
      0,
      1,
      123_456,
      MAX_TOKENS_PER_FIELD,
      MAX_TOKENS_PER_FIELD + 1,
      -1,
      2.5,
      NaN,
      Infinity,
      '12',
      true,
      {},
      [3],
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    // Mostly fine values (the first six kinds), so that whole records are fine often enough.
    const pick = () => (next() % 10 < 8 ? kinds[next() % 6] : kinds[next() % kinds.length]);
    const nest = (leaf: unknown, ...path: string[]): unknown => {
      // Sometimes the container itself is not an object.
      const r = pick();
      if (r === 1 || r === '12') return r;
      let v = leaf;
      for (let i = path.length - 1; i >= 0; i--) v = { [path[i]!]: v };
      return v;
    };
    let clean = 0;
    for (let n = 0; n < 3000; n++) {
      const rec: Record<string, unknown> = {};
      for (const [key, leaf] of [
        ['input_tokens', pick()],
        ['cache_read_input_tokens', pick()],
      ] as const)
        if (leaf !== undefined) rec[key] = leaf;
      const cc = { ephemeral_5m_input_tokens: pick(), ephemeral_1h_input_tokens: pick() };
      rec.cache_creation = pick() === null ? null : cc;
      rec.output_tokens_details = nest(pick(), 'thinking_tokens');
      rec.a = nest(pick(), 'b', 'c');
      const want = expected(rec);
      const got = readTokenFields(rec, FIELDS);
      expect({ values: { ...got.values }, invalid: [...got.invalid] }).toEqual(want);
      if (!want.invalid.length) clean++;
    }
    // Both paths taken: records with nothing to name, and records with something.
    expect(clean).toBeGreaterThan(100);
    expect(clean).toBeLessThan(2900);
  });
});
