// Lines reformatted by another tool (issue 42): a JSONL transcript rewritten
// with JSON whitespace between tokens — `{"usage": {"input": 1, ...}}`, as
// Python's json.dumps, a pretty-printer keeping one record a line or a sync
// tool writes it — is still read: whatever finds usage lines must not depend
// on the writer's spacing (src/io/marker-scan.ts finds markers that are one
// JSON string each; README "Bad input"). Every JSONL transcript of the
// all-harness home is rewritten so, record for record, and each harness must
// report what its builders billed.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_RANGE, buildAllHome, pickMetrics, type AllHome } from '../../fixtures/all-harnesses.js';
import { cleanEnv, reportJson, tempDir } from '../helpers/cli.js';

/** JSON with Python json.dumps' default separators (`, ` and `: `), key order and values kept. */
export function spaced(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(spaced).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${spaced(x)}`)
      .join(', ')}}`;
  return JSON.stringify(v);
}

/** Rewrites each JSON line of a JSONL file with whitespace; a line that is not JSON stays as it was. Returns how many changed. */
function reformat(file: string): number {
  const text = readFileSync(file, 'utf8');
  let changed = 0;
  const out = text.split('\n').map((line) => {
    if (!line.trim()) return line;
    try {
      const re = spaced(JSON.parse(line));
      if (re !== line) changed++;
      return re;
    } catch {
      return line;
    }
  });
  writeFileSync(file, out.join('\n'));
  return changed;
}

function jsonlFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) jsonlFiles(p, out);
    else if (/\.jsonl(\.(reset|deleted|bak)\..*)?$/.test(name) && !name.endsWith('.zst')) out.push(p);
  }
  return out;
}

describe('usage lines written with JSON whitespace', () => {
  let fx: AllHome;
  let rewritten = 0;
  beforeAll(() => {
    fx = buildAllHome(tempDir('txu-spaced-'));
    for (const f of jsonlFiles(fx.home)) rewritten += reformat(f);
  });
  afterAll(() => fx?.close());

  it('counts every harness exactly as its builders billed', () => {
    expect(rewritten).toBeGreaterThan(100);
    const j = reportJson([...ALL_RANGE, '--by', 'harness'], cleanEnv(fx.home));
    const got = Object.fromEntries(
      Object.keys(fx.expected)
        .map((h) => [h, j.rows.find((r: any) => r.harness === h)])
        .map(([h, r]) => [h, r ? pickMetrics(r) : null]),
    );
    expect(got).toEqual(fx.expected);
  });
});
